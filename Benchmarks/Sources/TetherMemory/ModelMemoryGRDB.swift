// M1 for GRDB (this file alone imports GRDB: its `DatabaseQueue`... would clash with Tether's).
import GRDB

/// The row as a GRDB Codable record class, as GRDB's documentation shows.
final class GRDBMemoryInvoice: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "MemoryInvoice"
    var id: Int64?
    var customer: String
    var quantity: Int
    var unitPrice: Double
    var discount: Double?
}

/// M1 for GRDB: bytes per record fetched with `fetchAll`, kept in an array.
func grdbModels(_ path: String, count: Int) throws -> Int {
    let queue = try DatabaseQueue(path: path)
    var models: [GRDBMemoryInvoice] = []
    models.reserveCapacity(count)
    let bytes = try queue.read { db in
        let before = liveBytes()
        models += try GRDBMemoryInvoice.fetchAll(db)
        return liveBytes() - before
    }
    precondition(models.count == count, "M1 GRDB: every row loaded")
    return bytes
}

/// Every row as a GRDB record (for the peak-memory run).
func grdbRecords(_ path: String) throws -> [GRDBMemoryInvoice] {
    try DatabaseQueue(path: path).read { db in try GRDBMemoryInvoice.fetchAll(db) }
}
