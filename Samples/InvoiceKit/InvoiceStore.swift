import Foundation
import TetherSQLite

// What the app asks of its store: opening (and converting) the file, the lists of invoices and
// customers as signals, adding and deleting. Call them on the store's thread (the main thread
// in the app), like the store itself.

/// Tether's migrations and the invoice sample's own (its tables: `003_invoice.sql`,
/// `005_invoice_lines.sql`, `006_invoice_number_index.sql` in schema/, compiled into the sample
/// as `invoiceSchema`), in order.
///
/// ```swift
/// try invoiceMigrator().migrate(connection)   // Tether's bookkeeping and the invoice tables
/// ```
public func invoiceMigrator() throws(MigrationError) -> Migrator {
    var migrations = try Migrator.builtIn().migrations
    for file in invoiceSchema { migrations.append(try Migration(name: file.name, sql: file.sql)) }
    return try Migrator(migrations)
}

/// Opens the invoice database at `path` (created if missing) and returns its store.
///
/// - A new file gets the tables of `schema/` (`003_invoice.sql`, `005_invoice_lines.sql`) and
///   the example invoices.
/// - A file written before invoices had lines (one quantity and unit price per invoice, the
///   customer as text) is converted, in one transaction: each distinct customer name becomes a
///   `Customer`, each invoice gets one line holding its quantity and unit price. The old
///   columns stay in the table, untouched. Two copies opening the file at once convert it once.
/// - A file that has an `Invoice` table of another shape is refused (`InvoiceFileError`), and
///   left as it was.
/// - A file with tables of another program (and no invoices) is refused too, unless
///   `adoptingOtherTables`: then the invoice tables are added beside them, without examples.
///
/// ```swift
/// let store = try openInvoiceStore(path: path)
/// let invoices = invoiceList(store)
/// ```
public func openInvoiceStore(
    path: String,
    scheduler: any Scheduler = MainScheduler.shared,
    busyTimeout: Duration = .seconds(5),
    watchesExternalChanges: Bool = true,
    adoptingOtherTables: Bool = false
) throws -> Store {
    let migrator = try invoiceMigrator()
    let created = try prepareInvoiceFile(path: path, migrator: migrator, busyTimeout: busyTimeout, adopting: adoptingOtherTables)
    let store = try Store(
        path: path, scheduler: scheduler, migrator: migrator, busyTimeout: busyTimeout,
        watchesExternalChanges: watchesExternalChanges)
    if created {
        let examples = exampleInvoices()
        try store.insert(contentsOf: examples.compactMap(\.customer))
        try store.insert(contentsOf: examples)
    }
    return store
}

/// Why an invoice file cannot be opened.
public enum InvoiceFileError: Error, Equatable, CustomStringConvertible {
    /// The file has an `Invoice` table that the invoice app did not make.
    case foreignInvoiceTable(path: String, missing: [String])
    /// The file has tables of another program, and adopting them was not asked for.
    case otherProgramsTables(path: String, tables: [String])

    public var description: String {
        switch self {
        case .otherProgramsTables(let path, let tables):
            let shown = tables.prefix(5).joined(separator: ", ") + (tables.count > 5 ? ", …" : "")
            return "\(path) holds tables of another program (\(shown)); it was left unchanged. To add the invoice tables beside them, run again with --adopt"
        case .foreignInvoiceTable(let path, let missing):
            return "\(path) has an Invoice table that is not the invoice app's (it lacks \(missing.joined(separator: ", "))); it was left unchanged"
        }
    }
}

/// Brings the file at `path` to the current tables and says whether it created them in a file
/// that held nothing else (a new file, which gets the examples).
///
/// The migrations of `schema/` are applied by `migrator`, each in its own transaction. A file
/// that the invoice app wrote before `schema/003_invoice.sql` was recorded as a migration (the
/// store created the table from the model) has that migration recorded first, after checking
/// that its table is the one the file describes; `005_invoice_lines.sql` then converts it.
func prepareInvoiceFile(path: String, migrator: Migrator, busyTimeout: Duration, adopting: Bool = false) throws -> Bool {
    let firstVersion = try migration("003_invoice.sql", in: migrator)
    // Tables of another program, in a file without invoices: not touched unless adopted. An
    // existing file is looked at read-only first, its journal mode left alone, so that a file
    // refused is left byte for byte as it was.
    let ours: Set<String> = ["Invoice", "Customer", "InvoiceLine"]
    func otherTables(in connection: Connection) throws -> [String] {
        try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { row -> String? in
            guard case .text(let name) = row.values.first else { return nil }
            return ours.contains(name) || name.hasPrefix("tether_") || name.hasPrefix("sqlite_") ? nil : name
        }
    }
    var others: [String] = []
    if let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 {
        let look = try Connection(path: path, options: Connection.Options(readOnly: true, busyTimeout: busyTimeout, journalMode: nil))
        others = try otherTables(in: look)
        let hasInvoices = try look.tableExists("Invoice")
        if !others.isEmpty, !hasInvoices, !adopting {
            throw InvoiceFileError.otherProgramsTables(path: path, tables: others)
        }
        if hasInvoices, !(try look.tableExists(Migrator.tableName)) {
            // An Invoice table with no record of migrations at all: not the app's.
            let columns = Set(try look.columns(in: "Invoice").map(\.name))
            let missing = ["number", "customer", "note", "quantity", "unitPrice", "discount", "tax"].filter { !columns.contains($0) }
            throw InvoiceFileError.foreignInvoiceTable(path: path, missing: missing + ["Tether's record of migrations"])
        }
    }
    let connection = try Connection(path: path, options: Connection.Options(busyTimeout: busyTimeout))
    /// Whether the file has an `Invoice` table that no record says `003_invoice.sql` made.
    func unrecorded() throws -> Bool {
        guard try connection.tableExists("Invoice") else { return false }
        guard try connection.tableExists(Migrator.tableName) else { return true }
        return try !migrator.appliedMigrations(in: connection).contains { $0.name == firstVersion.name }
    }
    func recordFirstVersion() throws {
        let recorded = try connection.tableExists(Migrator.tableName)
        var missing = ["number", "customer", "note", "quantity", "unitPrice", "discount", "tax"]
        let columns = Set(try connection.columns(in: "Invoice").map(\.name))
        missing.removeAll { columns.contains($0) }
        if !recorded { missing.append("Tether's record of migrations") }
        guard missing.isEmpty else { throw InvoiceFileError.foreignInvoiceTable(path: path, missing: missing) }
        try connection.execute(
            "INSERT INTO \(Migrator.tableName) (name, checksum, applied_at) VALUES (?, ?, ?)",
            [.text(firstVersion.name), .text(firstVersion.checksum), .real(Date().timeIntervalSince1970)])
    }
    // Looked at without the write lock first: opening a current file writes nothing.
    if try unrecorded() {
        try connection.inTransaction(.immediate) {
            guard try unrecorded() else { return }   // another copy recorded it meanwhile
            try recordFirstVersion()
        }
    }
    let applied = try migrator.migrate(connection)
    // Examples only in a file that held nothing else.
    return applied.contains { $0.name == firstVersion.name } && others.isEmpty
}

/// The migration named `name` of `migrator`.
private func migration(_ name: String, in migrator: Migrator) throws(MigrationError) -> Migration {
    guard let migration = migrator.migrations.first(where: { $0.name == name }) else {
        throw MigrationError.unreadable(path: "schema/\(name)", reason: "the built-in migrations lack it")
    }
    return migration
}

/// The invoices of `store`, ordered by number, as live models: the current list when
/// subscribed, then a new list after every committed change that affects it, made here or by
/// another process (another copy of the app on the same file). It is the store's live query.
///
/// ```swift
/// invoiceList(store).subscribe(next: { invoices in list.setItems(invoices) })
/// ```
///
/// Subscribe on the store's thread (the main thread in the app); the lists arrive there.
public func invoiceList(_ store: Store) -> Signal<QueryResult<Invoice>, StoreError> {
    store.observe(Invoice.self, orderBy: \.number)
}

/// The customers of `store`, ordered by name, as live models (like `invoiceList`).
///
/// ```swift
/// customerList(store).subscribe(next: { customers in picker.setItems(customers) })
/// ```
public func customerList(_ store: Store) -> Signal<QueryResult<Customer>, StoreError> {
    store.observe(Customer.self, orderBy: \.name)
}

/// Adds an invoice with the next free number (one more than the largest) and one blank line,
/// and returns it.
///
/// Two copies of the app adding invoices at the same moment never keep the same number: the
/// number is checked again under the database's write lock (`Store.update`), and the invoice
/// that finds its number taken moves to the next free one. When the largest number is
/// `Int.max` there is no next one: this throws `InvoiceNumberError.exhausted` and adds nothing.
///
/// ```swift
/// let invoice = try addInvoice(to: store)
/// invoice.lines[0].text = "Paper"          // written through
/// ```
@discardableResult
public func addInvoice(to store: Store) throws -> Invoice {
    let last = try store.fetch(Invoice.self, orderBy: \.number, descending: true).first?.number ?? 0
    let invoice = Invoice()
    invoice.number = try nextNumber(after: last)
    invoice.lines = [InvoiceLine()]
    try store.insert(invoice)
    do {
        try store.update(invoice) { invoice, db in
            let id = Int64(invoice.persistentID ?? 0)
            let taken = try db.scalar("SELECT count(*) FROM Invoice WHERE number = ? AND id <> ?",
                                      [.integer(Int64(invoice.number)), .integer(id)], as: Int.self) ?? 0
            guard taken > 0 else { return }
            invoice.number = try nextNumber(after: try db.scalar("SELECT max(number) FROM Invoice", as: Int.self) ?? 0)
        }
    } catch {
        try? store.delete(invoice)
        throw error
    }
    return invoice
}

/// The number after `number`, or `InvoiceNumberError.exhausted`.
func nextNumber(after number: Int) throws(InvoiceNumberError) -> Int {
    let (next, overflow) = number.addingReportingOverflow(1)
    guard !overflow else { throw .exhausted(largest: number) }
    return next
}

/// Why no invoice number could be given.
public enum InvoiceNumberError: Error, Equatable, CustomStringConvertible {
    /// The largest number in use is the largest there is.
    case exhausted(largest: Int)

    public var description: String {
        switch self {
        case .exhausted(let largest): return "no invoice number is left: the largest in use is \(largest)"
        }
    }
}

/// Deletes `invoice` and its lines from `store`.
///
/// ```swift
/// try deleteInvoice(invoice, from: store)
/// ```
public func deleteInvoice(_ invoice: Invoice, from store: Store) throws(StoreError) {
    try store.delete(invoice)
}

/// Adds a blank line at the end of `invoice` (written through with the next commit) and
/// returns it.
///
/// ```swift
/// let line = addLine(to: invoice)
/// line.text = "Ink"
/// ```
@discardableResult
public func addLine(to invoice: Invoice) -> InvoiceLine {
    let line = InvoiceLine(position: (invoice.lines.map(\.position).max() ?? -1) + 1)
    invoice.lines.append(line)
    return line
}

/// Deletes `line` from its invoice and from `store`.
///
/// ```swift
/// try deleteLine(invoice.lines[1], from: store)
/// ```
public func deleteLine(_ line: InvoiceLine, from store: Store) throws(StoreError) {
    if line.persistentID == nil {
        line.invoice?.lines.removeAll { $0 === line }
    } else {
        try store.delete(line)
    }
}

/// The customer of `store` named `name` (exactly, ignoring case and the spaces around it), or
/// a new one with that name, inserted. Nil for an empty name.
///
/// ```swift
/// invoice.customer = try customer(named: "ada lovelace", in: store)   // Ada Lovelace
/// ```
public func customer(named name: String, in store: Store) throws -> Customer? {
    let wanted = name.trimmingCharacters(in: .whitespaces)
    guard !wanted.isEmpty else { return nil }
    let folded = wanted.lowercased()
    if let existing = try store.fetch(Customer.self, orderBy: \.name).first(where: {
        $0.name.trimmingCharacters(in: .whitespaces).lowercased() == folded
    }) {
        return existing
    }
    let customer = Customer(name: wanted)
    try store.insert(customer)
    return customer
}

/// Deletes `customer` from `store`; a customer who has invoices is refused with
/// `StoreError.deleteDenied`, which names them.
///
/// ```swift
/// try deleteCustomer(ada, from: store)
/// ```
public func deleteCustomer(_ customer: Customer, from store: Store) throws(StoreError) {
    try store.delete(customer)
}

/// Adds invoices numbered from 4 up to `last` to the invoice file at `path` (made by
/// `openInvoiceStore`, holding the examples), in one transaction of plain SQL, as another program
/// would: first 100 customers, "Customer 1" to "Customer 100", then the invoices, each for one
/// of them, with the note "Invoice N", a tax of 20 % and two lines. For trying, testing and
/// measuring the app on a large file.
///
/// ```swift
/// try openInvoiceStore(path: path).close()
/// try addGeneratedInvoices(upTo: 1_000_000, toFileAt: path)    // about 4 s
/// ```
public func addGeneratedInvoices(upTo last: Int, toFileAt path: String) throws {
    try Connection(path: path).execute("""
        BEGIN;
        WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 100)
        INSERT INTO Customer (name) SELECT 'Customer ' || k FROM n;
        WITH RECURSIVE n(k) AS (SELECT 4 UNION ALL SELECT k + 1 FROM n WHERE k < \(last))
        INSERT INTO Invoice (number, customer_id, note, tax)
        SELECT k, (SELECT max(id) FROM Customer) - k % 100, 'Invoice ' || k, 20 FROM n;
        INSERT INTO InvoiceLine (invoice_id, position, text, quantity, unitPrice)
        SELECT id, 0, 'Gears', 1 + number % 7, 2.5 FROM Invoice WHERE number > 3;
        INSERT INTO InvoiceLine (invoice_id, position, text, quantity, unitPrice)
        SELECT id, 1, 'Levers', 2, 0.75 FROM Invoice WHERE number > 3;
        COMMIT;
        """)
}

/// The invoices a new database starts with, numbered from 1, each with its customer and
/// lines (one for a Chinese customer).
///
/// ```swift
/// exampleInvoices().map(\.customerName)   // ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper"]
/// ```
public func exampleInvoices() -> [Invoice] {
    func invoice(
        _ number: Int, _ customer: String, _ note: String, discount: Double?, tax: Double,
        _ lines: [(String, Int, String)]
    ) -> Invoice {
        let invoice = Invoice()
        invoice.number = number
        invoice.customer = Customer(name: customer)
        invoice.note = note
        invoice.discount = discount
        invoice.tax = tax
        invoice.lines = lines.enumerated().map { position, line in
            InvoiceLine(text: line.0, quantity: line.1, unitPrice: Money(line.2)!, position: position)
        }
        return invoice
    }
    return [
        invoice(1, "Ada Lovelace", "Analytical engine", discount: 10, tax: 20,
                [("Punched cards, box of 500", 2, "1250"), ("Brass gears", 12, "4.75")]),
        invoice(2, "张伟 (Zhang Wei)", "办公用品", discount: nil, tax: 13,
                [("打印纸 20 箱", 20, "32.5")]),
        invoice(3, "Grace Hopper", "Compiler consulting", discount: 5, tax: 0,
                [("Consulting, days", 3, "800"), ("Travel", 1, "212.40")]),
    ]
}
