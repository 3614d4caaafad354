// The GRDB 7 versions of the persistence workloads (P1-P3b), written the way GRDB's
// documentation shows: a Codable record class (`FetchableRecord` + `PersistableRecord`, the id
// taken in `didInsert`), a `DatabaseQueue` (one connection on its own serial queue, as Tether's
// store has), `write { }` for a transaction, `read { }` for a read, `fetchAll`, `fetchOne(key:)`,
// `insert` and `update`. The connection is set to WAL and synchronous=NORMAL in
// `prepareDatabase`, like the other two versions.
//
// This file alone imports GRDB (its `DatabaseQueue`, `Statement`... would clash with Tether's).
import GRDB

/// A row as a GRDB Codable record (a class, as P3 asks for class instances).
final class GRDBInvoice: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "Invoice"

    var id: Int64?
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

    func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}

/// A GRDB database queue on `path` with WAL and synchronous=NORMAL. Wraps GRDB's
/// `DatabaseQueue` so that the other files need not import GRDB.
final class GRDBDatabase {
    let queue: DatabaseQueue

    init(path: String) {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            preconditionFailure("GRDB: cannot open \(path): \(error)")
        }
    }

    /// `PRAGMA journal_mode` and `PRAGMA synchronous` as the connection has them (for checks).
    func settings() -> (journalMode: String, synchronous: Int) {
        do {
            return try queue.read { db in
                (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
                 try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
            }
        } catch {
            preconditionFailure("GRDB: \(error)")
        }
    }
}

/// P1 with GRDB: `insert` of each record in one `write { }` (one transaction).
@inline(never)
func grdbInsert(_ database: GRDBDatabase, _ invoices: [GRDBInvoice]) {
    do {
        try database.queue.write { db in
            for invoice in invoices { try invoice.insert(db) }
        }
    } catch {
        preconditionFailure("GRDB insert: \(error)")
    }
}

/// P2 with GRDB: change k sets `quantity = stamp + k` on record `k % invoices.count` and
/// `update`s it; all in one `write { }`.
@inline(never)
func grdbUpdate(_ database: GRDBDatabase, _ invoices: [GRDBInvoice], changes: Int, stamp: Int) {
    do {
        try database.queue.write { db in
            for k in 0..<changes {
                let invoice = invoices[k % invoices.count]
                invoice.quantity = stamp + k
                try invoice.update(db)
            }
        }
    } catch {
        preconditionFailure("GRDB update: \(error)")
    }
}

/// P3 with GRDB: every row as a record, in id order.
@inline(never)
func grdbLoadAll(_ database: GRDBDatabase) -> [GRDBInvoice] {
    do {
        return try database.queue.read { db in
            try GRDBInvoice.order(Column("id")).fetchAll(db)
        }
    } catch {
        preconditionFailure("GRDB fetchAll: \(error)")
    }
}

/// P3b with GRDB: one record by primary key, in its own `read { }`.
@inline(never)
func grdbLoadOne(_ database: GRDBDatabase, id: Int64) -> GRDBInvoice? {
    do {
        return try database.queue.read { db in
            try GRDBInvoice.fetchOne(db, key: id)
        }
    } catch {
        preconditionFailure("GRDB fetchOne: \(error)")
    }
}

// MARK: P7: associations

/// P7 with GRDB: records for the three tables Tether made, and the associations between them
/// (GRDB finds the foreign keys in the schema).
struct GRDBP7Customer: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "P7Customer"
    var id: Int64
    var name: String
}

struct GRDBP7Line: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "P7Line"
    var id: Int64
    var invoice_id: Int64?
    var position: Int
    var text: String
    var quantity: Int
    var unitPrice: Int
}

struct GRDBP7Invoice: Codable, FetchableRecord, TableRecord {
    static let databaseTableName = "P7Invoice"
    static let customer = belongsTo(GRDBP7Customer.self)
    static let lines = hasMany(GRDBP7Line.self)
    var id: Int64
    var number: Int
    var customer_id: Int64?
}

/// An invoice with its customer and lines, decoded from one GRDB request.
struct GRDBP7InvoiceInfo: Decodable, FetchableRecord {
    var invoice: GRDBP7Invoice
    var customer: GRDBP7Customer?
    var lines: [GRDBP7Line]

    enum CodingKeys: String, CodingKey {
        case invoice = "P7Invoice", customer = "P7Customer", lines = "P7Lines"
    }
}

@inline(never)
func p7GRDB(_ database: GRDBDatabase, id: Int64) -> Int {
    do {
        let request = GRDBP7Invoice
            .filter(key: id)
            .including(optional: GRDBP7Invoice.customer.forKey("P7Customer"))
            .including(all: GRDBP7Invoice.lines.order(Column("position"), Column("id")).forKey("P7Lines"))
            .asRequest(of: GRDBP7InvoiceInfo.self)
        guard let info = try database.queue.read({ db in try request.fetchOne(db) }) else {
            preconditionFailure("P7 GRDB: no invoice \(id)")
        }
        if id % 7 == 0 {
            checkP7("P7 GRDB", number: info.invoice.number, customer: info.customer?.name, positions: info.lines.map(\.position),
                    total: info.lines.reduce(0) { $0 + $1.quantity * $1.unitPrice })
        }
        return info.invoice.number + info.lines.count + (info.customer == nil ? 0 : 1)
    } catch {
        preconditionFailure("P7 GRDB: \(error)")
    }
}
