// The hand-written baselines of the persistence workloads (P1-P3b): the sqlite3 C API as a
// careful developer uses it without a library. One connection opened on the benchmark's thread
// (WAL, synchronous=NORMAL, like the other two), statements prepared once per job and reused
// (`sqlite3_reset`), values bound by index, text bound with SQLITE_TRANSIENT and read with
// `sqlite3_column_bytes` (no strlen), rows read into instances of a plain final class. Errors
// stop the program (`precondition`): a benchmark that fails must not produce figures.
//
// This file alone imports the C API (the `CSQLiteBench` module map: Tether's own `CSQLite` is not
// a product of the Tether package); the other files see only the functions below.
import CSQLiteBench

/// A row as a class instance, written by hand: what the raw versions read into and write from.
final class RawInvoice {
    var id: Int64 = 0
    var customer: String
    var quantity: Int
    var unitPrice: Double
    var discount: Double?

    init(customer: String, quantity: Int, unitPrice: Double, discount: Double?) {
        self.customer = customer
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.discount = discount
    }
}

/// One `sqlite3*` connection, closed in deinit.
final class RawDatabase {
    let handle: OpaquePointer

    /// Opens (creating if needed) the file with WAL and synchronous=NORMAL.
    init(path: String) {
        var handle: OpaquePointer?
        let code = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        precondition(code == SQLITE_OK && handle != nil, "sqlite3_open_v2(\(path)) failed: \(code)")
        self.handle = handle!
        execute("PRAGMA journal_mode = WAL")
        execute("PRAGMA synchronous = NORMAL")
        execute("PRAGMA foreign_keys = ON")
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Runs SQL without arguments, ignoring rows.
    func execute(_ sql: String) {
        var error: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &error)
        precondition(code == SQLITE_OK, "\(sql): \(error.map { String(cString: $0) } ?? "\(code)")")
    }

    func prepare(_ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil)
        precondition(code == SQLITE_OK && statement != nil, "\(sql): \(message)")
        return statement!
    }

    var message: String { String(cString: sqlite3_errmsg(handle)) }

    /// The first column of the first row, as an integer (for checks).
    func integer(_ sql: String) -> Int64 {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        precondition(sqlite3_step(statement) == SQLITE_ROW, "\(sql): no row")
        return sqlite3_column_int64(statement, 0)
    }

    /// The first column of the first row, as text (for checks).
    func text(_ sql: String) -> String {
        let statement = prepare(sql)
        defer { sqlite3_finalize(statement) }
        precondition(sqlite3_step(statement) == SQLITE_ROW, "\(sql): no row")
        return String(cString: sqlite3_column_text(statement, 0))
    }
}

private let transient = bench_sqlite3_transient()

@inline(__always)
private func bind(_ statement: OpaquePointer, _ invoice: RawInvoice) {
    var code = sqlite3_bind_text(statement, 1, invoice.customer, -1, transient)
    code |= sqlite3_bind_int64(statement, 2, Int64(invoice.quantity))
    code |= sqlite3_bind_double(statement, 3, invoice.unitPrice)
    if let discount = invoice.discount {
        code |= sqlite3_bind_double(statement, 4, discount)
    } else {
        code |= sqlite3_bind_null(statement, 4)
    }
    precondition(code == SQLITE_OK, "bind failed")
}

/// Reads columns `first`... (customer, quantity, unitPrice, discount) of the current row.
@inline(__always)
private func readInvoice(_ statement: OpaquePointer, id: Int64, first: Int32) -> RawInvoice {
    let count = Int(sqlite3_column_bytes(statement, first))
    let customer = sqlite3_column_text(statement, first).map {
        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
    } ?? ""
    let invoice = RawInvoice(
        customer: customer,
        quantity: Int(sqlite3_column_int64(statement, first + 1)),
        unitPrice: sqlite3_column_double(statement, first + 2),
        discount: sqlite3_column_type(statement, first + 3) == SQLITE_NULL ? nil : sqlite3_column_double(statement, first + 3)
    )
    invoice.id = id
    return invoice
}

/// P1 by hand: one transaction, one prepared INSERT stepped per object; each object gets its
/// row id back (as the libraries' inserts do).
@inline(never)
func rawInsert(_ database: RawDatabase, table: String, _ invoices: [RawInvoice]) {
    database.execute("BEGIN IMMEDIATE")
    let insert = database.prepare("INSERT INTO \(table) (customer, quantity, unitPrice, discount) VALUES (?, ?, ?, ?)")
    for invoice in invoices {
        bind(insert, invoice)
        precondition(sqlite3_step(insert) == SQLITE_DONE, "INSERT: \(database.message)")
        invoice.id = sqlite3_last_insert_rowid(database.handle)
        sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    database.execute("COMMIT")
}

/// Steps `update` (`UPDATE … SET quantity = ? WHERE id = ?`, prepared) for `invoice`.
@inline(__always)
func writeQuantity(_ update: OpaquePointer, _ invoice: RawInvoice, _ database: RawDatabase) {
    sqlite3_bind_int64(update, 1, Int64(invoice.quantity))
    sqlite3_bind_int64(update, 2, invoice.id)
    precondition(sqlite3_step(update) == SQLITE_DONE, "UPDATE: \(database.message)")
    sqlite3_reset(update)
}

/// P2 by hand: `changes` changes, change k setting `quantity = stamp + k` on object
/// `k % invoices.count`; each change is written at once (one single-column UPDATE per change),
/// all in one transaction.
@inline(never)
func rawUpdate(_ database: RawDatabase, table: String, _ invoices: [RawInvoice], changes: Int, stamp: Int) {
    database.execute("BEGIN IMMEDIATE")
    let update = database.prepare("UPDATE \(table) SET quantity = ? WHERE id = ?")
    for k in 0..<changes {
        let invoice = invoices[k % invoices.count]
        invoice.quantity = stamp + k
        writeQuantity(update, invoice, database)
    }
    sqlite3_finalize(update)
    database.execute("COMMIT")
}

/// P2 by hand, as write-through does it: each change sets the object's property and marks the
/// object changed (a flag per object, and the changed ones in order); then each changed row
/// is written once (one prepared UPDATE per row) in one transaction.
@inline(never)
func rawUpdateCoalesced(_ database: RawDatabase, table: String, _ invoices: [RawInvoice], changes: Int, stamp: Int) {
    var changed = [Bool](repeating: false, count: invoices.count)
    var order: [Int] = []
    for k in 0..<changes {
        let index = k % invoices.count
        invoices[index].quantity = stamp + k
        if !changed[index] {
            changed[index] = true
            order.append(index)
        }
    }
    database.execute("BEGIN IMMEDIATE")
    let update = database.prepare("UPDATE \(table) SET quantity = ? WHERE id = ?")
    for index in order {
        let invoice = invoices[index]
        writeQuantity(update, invoice, database)
    }
    sqlite3_finalize(update)
    database.execute("COMMIT")
}

/// P3 by hand: every row, in id order, as class instances.
@inline(never)
func rawLoadAll(_ database: RawDatabase, table: String) -> [RawInvoice] {
    let select = database.prepare("SELECT id, customer, quantity, unitPrice, discount FROM \(table) ORDER BY id")
    var invoices: [RawInvoice] = []
    var code = sqlite3_step(select)
    while code == SQLITE_ROW {
        invoices.append(readInvoice(select, id: sqlite3_column_int64(select, 0), first: 1))
        code = sqlite3_step(select)
    }
    precondition(code == SQLITE_DONE, "SELECT: \(database.message)")
    sqlite3_finalize(select)
    return invoices
}

/// P3b by hand: a SELECT by id, prepared once and reused for every load.
final class RawLoader {
    let database: RawDatabase
    let select: OpaquePointer

    init(_ database: RawDatabase, table: String) {
        self.database = database
        select = database.prepare("SELECT customer, quantity, unitPrice, discount FROM \(table) WHERE id = ?")
    }

    deinit {
        sqlite3_finalize(select)
    }

    @inline(never)
    func load(id: Int64) -> RawInvoice? {
        defer { sqlite3_reset(select) }
        sqlite3_bind_int64(select, 1, id)
        switch sqlite3_step(select) {
        case SQLITE_ROW: return readInvoice(select, id: id, first: 0)
        case SQLITE_DONE: return nil
        default: preconditionFailure("SELECT by id: \(database.message)")
        }
    }
}

// MARK: P7

/// P7 by hand: the invoice, its customer and its lines as plain objects, linked both ways (the
/// invoice holds its lines; a line refers back weakly).
final class RawRelatedInvoice {
    let id: Int64
    var number = 0
    var customer: RawRelatedCustomer?
    var lines: [RawRelatedLine] = []
    init(id: Int64) { self.id = id }
}

final class RawRelatedCustomer {
    let id: Int64
    var name = ""
    init(id: Int64) { self.id = id }
}

final class RawRelatedLine {
    let id: Int64
    weak var invoice: RawRelatedInvoice?
    var position = 0
    var text = ""
    var quantity = 0
    var unitPrice = 0
    init(id: Int64) { self.id = id }
}

/// P7 by hand: three statements prepared once and reused.
final class RawRelatedLoader {
    let database: RawDatabase
    let invoice: OpaquePointer
    let customer: OpaquePointer
    let lines: OpaquePointer

    init(_ database: RawDatabase) {
        self.database = database
        invoice = database.prepare("SELECT number, customer_id FROM P7Invoice WHERE id = ?")
        customer = database.prepare("SELECT name FROM P7Customer WHERE id = ?")
        lines = database.prepare("SELECT id, position, text, quantity, unitPrice FROM P7Line WHERE invoice_id = ? ORDER BY position, id")
    }

    deinit {
        sqlite3_finalize(invoice)
        sqlite3_finalize(customer)
        sqlite3_finalize(lines)
    }

    func text(_ statement: OpaquePointer, _ column: Int32) -> String {
        let count = Int(sqlite3_column_bytes(statement, column))
        return sqlite3_column_text(statement, column).map {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        } ?? ""
    }

    @inline(never)
    func load(id: Int64) -> RawRelatedInvoice {
        let loaded = RawRelatedInvoice(id: id)
        sqlite3_bind_int64(invoice, 1, id)
        precondition(sqlite3_step(invoice) == SQLITE_ROW, "P7 raw: no invoice \(id)")
        loaded.number = Int(sqlite3_column_int64(invoice, 0))
        let customerID: Int64? = sqlite3_column_type(invoice, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(invoice, 1)
        sqlite3_reset(invoice)
        if let customerID {
            sqlite3_bind_int64(customer, 1, customerID)
            if sqlite3_step(customer) == SQLITE_ROW {
                let found = RawRelatedCustomer(id: customerID)
                found.name = text(customer, 0)
                loaded.customer = found
            }
            sqlite3_reset(customer)
        }
        sqlite3_bind_int64(lines, 1, id)
        var code = sqlite3_step(lines)
        while code == SQLITE_ROW {
            let line = RawRelatedLine(id: sqlite3_column_int64(lines, 0))
            line.invoice = loaded
            line.position = Int(sqlite3_column_int64(lines, 1))
            line.text = text(lines, 2)
            line.quantity = Int(sqlite3_column_int64(lines, 3))
            line.unitPrice = Int(sqlite3_column_int64(lines, 4))
            loaded.lines.append(line)
            code = sqlite3_step(lines)
        }
        precondition(code == SQLITE_DONE, "P7 raw lines: \(database.message)")
        sqlite3_reset(lines)
        return loaded
    }
}

@inline(never)
func p7Raw(_ loader: RawRelatedLoader, id: Int64) -> Int {
    let invoice = loader.load(id: id)
    if id % 7 == 0 {
        checkP7("P7 raw", number: invoice.number, customer: invoice.customer?.name, positions: invoice.lines.map(\.position),
                total: invoice.lines.reduce(0) { $0 + $1.quantity * $1.unitPrice })
    }
    return invoice.number + invoice.lines.count + (invoice.customer == nil ? 0 : 1)
}

// MARK: P10

/// P10 by hand: the page (the 50 rows with the largest quantity) as class instances, with a
/// statement prepared once.
final class RawPager {
    let database: RawDatabase
    let page: OpaquePointer
    let update: OpaquePointer

    init(_ database: RawDatabase, table: String) {
        self.database = database
        page = database.prepare("SELECT id, customer, quantity, unitPrice, discount FROM \(table) ORDER BY quantity DESC, id LIMIT 50")
        update = database.prepare("UPDATE \(table) SET customer = ? WHERE id = ?")
    }

    deinit {
        sqlite3_finalize(page)
        sqlite3_finalize(update)
    }

    @inline(never)
    func load() -> [RawInvoice] {
        var invoices: [RawInvoice] = []
        var code = sqlite3_step(page)
        while code == SQLITE_ROW {
            invoices.append(readInvoice(page, id: sqlite3_column_int64(page, 0), first: 1))
            code = sqlite3_step(page)
        }
        precondition(code == SQLITE_DONE, "P10 page: \(database.message)")
        sqlite3_reset(page)
        return invoices
    }

    /// Another program's change: one row's customer, committed.
    @inline(never)
    func setCustomer(_ customer: String, id: Int64) {
        sqlite3_bind_text(update, 1, customer, -1, transient)
        sqlite3_bind_int64(update, 2, id)
        precondition(sqlite3_step(update) == SQLITE_DONE, "P10 update: \(database.message)")
        sqlite3_reset(update)
    }
}
