// M1-M3 (issue 18): bytes per model, with 100,000 loaded: a model loaded into a store (M1)
// beside a plain class loaded with the sqlite3 C API and a GRDB record class; what the first
// read of a property adds with the Observation bridge on (M2); and a model with 4 key-path
// observers (M3) beside a hand-written class with 4 callbacks set. Measured like W6
// (`mallinfo2`), by `swift run -c release TetherMemory models`.
import CSQLiteBench
import Foundation
import Synchronization
import Tether
import TetherSQLite

@Model
final class MemoryInvoice {
    var customer = ""
    var quantity = 0
    var unitPrice = 0.0
    var discount: Double? = nil
}
extension MemoryInvoice: PersistentModel {}

/// The same row as a plain class (the raw version).
final class RawMemoryInvoice {
    let id: Int64
    var customer: String
    var quantity: Int
    var unitPrice: Double
    var discount: Double?

    init(id: Int64, customer: String, quantity: Int, unitPrice: Double, discount: Double?) {
        self.id = id
        self.customer = customer
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.discount = discount
    }
}

/// The same row as a hand-written observable class: a callback per property, called on change.
final class HandObservableInvoice {
    var customer = "" { didSet { onCustomer?(customer) } }
    var quantity = 0 { didSet { onQuantity?(quantity) } }
    var unitPrice = 0.0 { didSet { onUnitPrice?(unitPrice) } }
    var discount: Double? = nil { didSet { onDiscount?(discount) } }
    var onCustomer: ((String) -> Void)?
    var onQuantity: ((Int) -> Void)?
    var onUnitPrice: ((Double) -> Void)?
    var onDiscount: ((Double?) -> Void)?
}

/// Counts what the callbacks receive (each callback captures it, as an observer captures what
/// it updates).
final class Received: Sendable {
    private let received = Atomic<Int>(0)
    var count: Int { received.load(ordering: .relaxed) }
    func add() { received.add(1, ordering: .relaxed) }
}

/// Removes the file `makeModelFile` made.
func removeModelFile(_ path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// A file with `count` invoices, written by a store.
func makeModelFile(count: Int) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tether-memory-\(getpid()).sqlite").path
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let store = try Store(path: path, scheduler: TestScheduler())
    let models = (0..<count).map { index in
        let invoice = MemoryInvoice()
        invoice.customer = "Customer \(index % 100)"
        invoice.quantity = index % 7
        invoice.unitPrice = 2.5
        invoice.discount = index % 3 == 0 ? nil : 0.1
        return invoice
    }
    try store.insert(contentsOf: models)
    try store.close()
    return path
}

/// M1 and M2 for Tether: bytes per model fetched (kept in an array), then what reading one
/// property of each adds with the Observation bridge on.
func tetherModels(_ path: String, count: Int) throws -> (loaded: Int, firstRead: Int) {
    ObservationBridge.isEnabled = true
    let store = try Store(path: path, scheduler: TestScheduler())
    var models: [MemoryInvoice] = []
    models.reserveCapacity(count)
    let before = liveBytes()
    models += try store.fetch(MemoryInvoice.self)
    let loaded = liveBytes() - before
    var total = 0
    let beforeRead = liveBytes()
    for model in models { total &+= model.quantity }
    let firstRead = liveBytes() - beforeRead
    sink(total)
    precondition(models.count == count, "M1: every row loaded")
    withExtendedLifetime(models) {}
    try store.close()
    return (loaded, firstRead)
}

/// Runs `body` with a statement that selects every invoice of `path` (the C API), on a
/// connection open until `body` returns.
func withRawInvoiceRows<T>(_ path: String, _ body: (OpaquePointer?) -> T) -> T {
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    var statement: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT id, customer, quantity, unitPrice, discount FROM MemoryInvoice ORDER BY id", -1, &statement, nil)
    defer {
        sqlite3_finalize(statement)
        sqlite3_close(db)
    }
    return body(statement)
}

/// Steps `statement` (see `withRawInvoiceRows`), a plain class instance per row.
func appendRawInvoices(_ statement: OpaquePointer?, to models: inout [RawMemoryInvoice]) {
    while sqlite3_step(statement) == SQLITE_ROW {
        models.append(RawMemoryInvoice(
            id: sqlite3_column_int64(statement, 0),
            customer: String(cString: sqlite3_column_text(statement, 1)),
            quantity: Int(sqlite3_column_int64(statement, 2)),
            unitPrice: sqlite3_column_double(statement, 3),
            discount: sqlite3_column_type(statement, 4) == SQLITE_NULL ? nil : sqlite3_column_double(statement, 4)))
    }
}

/// M1 for the raw version: a statement stepped, a class instance per row (the connection's own
/// memory for the rows stepped counted, as it is for Tether and GRDB).
func rawModels(_ path: String, count: Int) -> Int {
    var models: [RawMemoryInvoice] = []
    models.reserveCapacity(count)
    let bytes = withRawInvoiceRows(path) { statement in
        let before = liveBytes()
        appendRawInvoices(statement, to: &models)
        return liveBytes() - before
    }
    precondition(models.count == count, "M1 raw: every row loaded")
    return bytes
}

/// M3 for Tether: 4 key-path observers on each of `count` models (not stored: observers cost
/// the same on a stored model), the models included.
func tetherObservers(count: Int) -> Int {
    let received = Received()
    var models: [MemoryInvoice] = []
    var subscriptions: [any Disposable] = []
    models.reserveCapacity(count)
    subscriptions.reserveCapacity(4 * count)
    let before = liveBytes()
    for _ in 0..<count {
        let model = MemoryInvoice()
        subscriptions.append(observe(model, \.customer).subscribe(next: { _ in received.add() }))
        subscriptions.append(observe(model, \.quantity).subscribe(next: { _ in received.add() }))
        subscriptions.append(observe(model, \.unitPrice).subscribe(next: { _ in received.add() }))
        subscriptions.append(observe(model, \.discount).subscribe(next: { _ in received.add() }))
        models.append(model)
    }
    let bytes = liveBytes() - before
    models[0].quantity = 1   // the observers are live
    precondition(received.count == 4 * count + 1, "M3: every observer subscribed")
    for subscription in subscriptions { subscription.dispose() }
    return bytes
}

/// M3 for the hand-written class: 4 callbacks set on each of `count` objects, the objects
/// included.
func handObservers(count: Int) -> Int {
    let received = Received()
    var models: [HandObservableInvoice] = []
    models.reserveCapacity(count)
    let before = liveBytes()
    for _ in 0..<count {
        let model = HandObservableInvoice()
        model.onCustomer = { _ in received.add() }
        model.onQuantity = { _ in received.add() }
        model.onUnitPrice = { _ in received.add() }
        model.onDiscount = { _ in received.add() }
        models.append(model)
    }
    let bytes = liveBytes() - before
    models[0].quantity = 1
    precondition(received.count == 1, "M3 hand: the callbacks are set")
    return bytes
}
