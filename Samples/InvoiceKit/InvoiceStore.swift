import TetherSQLite

// What the app asks of its store: the list of invoices as a signal, adding, deleting, and the
// example invoices of a new database. All of it runs on the store's thread (the main thread
// in the app).

/// The invoices of `store`, ordered by number, as live models: the current list when
/// subscribed, then the new list after each change.
///
/// ```swift
/// invoiceList(store).subscribe(next: { invoices in list.setItems(invoices) })
/// ```
///
/// Subscribe on the main thread (the store's thread).
@MainActor
public func invoiceList(_ store: Store) -> Signal<[Invoice], StoreError> {
    // TEMPORARY, until the store's live query lands (`store.observe`, being written on main):
    // this re-runs `store.fetch` after this process's own `addInvoice`/`deleteInvoice`, and
    // sees nothing another process does. It becomes:
    //
    //     store.observe(Invoice.self, orderBy: \.number)
    //
    // and `_LocalInvoiceChanges` goes away.
    let source = _FetchedInvoices(store: store)
    return Signal { observer in
        MainActor.assumeIsolated { source.start(observer) }
    }
}

/// Adds a blank invoice with the next free number (one more than the largest) and returns it.
///
/// ```swift
/// let invoice = try addInvoice(to: store)
/// invoice.customer = "Ada"                 // written through
/// ```
@MainActor
@discardableResult
public func addInvoice(to store: Store) throws(StoreError) -> Invoice {
    let last = try store.fetch(Invoice.self, orderBy: \.number, descending: true).first?.number ?? 0
    let invoice = Invoice()
    invoice.number = last + 1
    try store.insert(invoice)
    _LocalInvoiceChanges.changed()   // TEMPORARY (see invoiceList)
    return invoice
}

/// Deletes `invoice` from `store`.
///
/// ```swift
/// try deleteInvoice(invoice, from: store)
/// ```
@MainActor
public func deleteInvoice(_ invoice: Invoice, from store: Store) throws(StoreError) {
    try store.delete(invoice)
    _LocalInvoiceChanges.changed()   // TEMPORARY (see invoiceList)
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
@MainActor
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
    _LocalInvoiceChanges.changed()   // TEMPORARY (see invoiceList)
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

// MARK: - TEMPORARY: the list before the store's live query

/// This process's own additions and deletions, so that `invoiceList` can fetch again.
/// TEMPORARY (see `invoiceList`).
enum _LocalInvoiceChanges {
    static let subject = Subject<Void, Never>()

    static func changed() { subject.sendNext(()) }
}

/// One subscription's source for `invoiceList`: fetches now, and again after each local change.
/// TEMPORARY (see `invoiceList`). A main-actor class, so the signal's closures can carry it.
@MainActor
final class _FetchedInvoices {
    private let store: Store

    init(store: Store) {
        self.store = store
    }

    func start(_ observer: Observer<[Invoice], StoreError>) -> any Disposable {
        send(to: observer)
        return _LocalInvoiceChanges.subject.signal.subscribe(next: { [self] in
            MainActor.assumeIsolated { send(to: observer) }
        })
    }

    private func send(to observer: Observer<[Invoice], StoreError>) {
        do {
            observer.sendNext(try store.fetch(Invoice.self, orderBy: \.number))
        } catch {
            observer.sendError(error)
        }
    }
}
