import TetherSQLite

// What the app asks of its store: the list of invoices as a signal, adding, deleting, and the
// example invoices of a new database. Call them on the store's thread (the main thread in the
// app), like the store itself.

/// The invoices of `store`, ordered by number, as live models: the current list when
/// subscribed, then a new list after every committed change that affects it, made here or by
/// another process (another copy of the app on the same file). It is the store's live query.
///
/// ```swift
/// invoiceList(store).subscribe(next: { invoices in list.setItems(invoices) })
/// ```
///
/// Subscribe on the store's thread (the main thread in the app); the lists arrive there.
public func invoiceList(_ store: Store) -> Signal<[Invoice], StoreError> {
    store.observe(Invoice.self, orderBy: \.number)
}

/// Adds a blank invoice with the next free number (one more than the largest) and returns it.
///
/// Two copies of the app adding invoices at the same moment never keep the same number: the
/// number is checked again under the database's write lock (`Store.update`), and the invoice
/// that finds its number taken moves to the next free one. When the largest number is
/// `Int.max` there is no next one: this throws `InvoiceNumberError.exhausted` and adds nothing.
///
/// ```swift
/// let invoice = try addInvoice(to: store)
/// invoice.customer = "Ada"                 // written through
/// ```
@discardableResult
public func addInvoice(to store: Store) throws -> Invoice {
    let last = try store.fetch(Invoice.self, orderBy: \.number, descending: true).first?.number ?? 0
    let invoice = Invoice()
    invoice.number = try nextNumber(after: last)
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

/// Deletes `invoice` from `store`.
///
/// ```swift
/// try deleteInvoice(invoice, from: store)
/// ```
public func deleteInvoice(_ invoice: Invoice, from store: Store) throws(StoreError) {
    try store.delete(invoice)
}

/// Fills a new database with a few example invoices (one for a Chinese customer), so that a
/// first run shows something. "New" means that the database has no `Invoice` table yet: a
/// database whose invoices were all deleted stays empty. Call it first, before anything else
/// uses the store's invoices (the store creates the table on first use). Returns whether it
/// added them.
///
/// ```swift
/// let store = try Store(path: path)
/// try seedIfNew(store)
/// ```
@discardableResult
public func seedIfNew(_ store: Store) throws(StoreError) -> Bool {
    let exists: Bool
    do {
        exists = try store.database.sync { connection in try connection.tableExists("Invoice") }
    } catch let error as SQLiteError {
        throw .sqlite(error)
    } catch {
        throw .sqlite(SQLiteError(code: .error, message: "\(error)"))
    }
    guard !exists else { return false }
    let examples = exampleInvoices()
    try store.insert(contentsOf: examples)
    return true
}

/// The invoices `seedIfNew` adds, numbered from 1.
///
/// ```swift
/// exampleInvoices().map(\.customer)   // ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper"]
/// ```
public func exampleInvoices() -> [Invoice] {
    func invoice(
        _ number: Int, _ customer: String, _ note: String,
        quantity: Int, unitPrice: Double, discount: Double?, tax: Double
    ) -> Invoice {
        let invoice = Invoice()
        invoice.number = number
        invoice.customer = customer
        invoice.note = note
        invoice.quantity = quantity
        invoice.unitPrice = unitPrice
        invoice.discount = discount
        invoice.tax = tax
        return invoice
    }
    return [
        invoice(1, "Ada Lovelace", "Analytical engine: punched cards", quantity: 2, unitPrice: 1250, discount: 10, tax: 20),
        invoice(2, "张伟 (Zhang Wei)", "办公用品：打印纸 20 箱", quantity: 20, unitPrice: 32.5, discount: nil, tax: 13),
        invoice(3, "Grace Hopper", "Compiler consulting, 3 days", quantity: 3, unitPrice: 800, discount: 5, tax: 0),
    ]
}
