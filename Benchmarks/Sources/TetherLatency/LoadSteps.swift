// `load-steps [rounds] [tether-only]`: P3's work (100,000 rows of P3's shape loaded as objects)
// by raw sqlite3 and by Tether, alternately in one process, every result freed before the next
// load. For comparing versions of the load path quickly; the tables come from the Benchmarks
// package's P3.
import CSQLiteBench
import Foundation
import Tether
import TetherSQLite

@Model
final class LoadInvoice {
    var customer = ""
    var quantity = 1
    var unitPrice = 0.0
    var discount: Double? = nil
}
extension LoadInvoice: PersistentModel {}

final class RawLoadInvoice {
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

@inline(never)
func rawLoadInvoices(_ database: OpaquePointer) -> [RawLoadInvoice] {
    var select: OpaquePointer?
    precondition(sqlite3_prepare_v2(database, "SELECT id, customer, quantity, unitPrice, discount FROM LoadInvoice ORDER BY id", -1, &select, nil) == SQLITE_OK)
    var invoices: [RawLoadInvoice] = []
    while sqlite3_step(select) == SQLITE_ROW {
        let count = Int(sqlite3_column_bytes(select, 1))
        let customer = sqlite3_column_text(select, 1).map {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        } ?? ""
        let invoice = RawLoadInvoice(
            customer: customer,
            quantity: Int(sqlite3_column_int64(select, 2)),
            unitPrice: sqlite3_column_double(select, 3),
            discount: sqlite3_column_type(select, 4) == SQLITE_NULL ? nil : sqlite3_column_double(select, 4))
        invoice.id = sqlite3_column_int64(select, 0)
        invoices.append(invoice)
    }
    sqlite3_finalize(select)
    return invoices
}

func loadSteps(rounds: Int, tetherOnly: Bool) {
    let path = temporaryDatabase("load-steps")
    let count = 100_000
    // The table as P3 seeds it: by raw SQL (the store adds its triggers when it first opens it).
    var seeding: OpaquePointer?
    precondition(sqlite3_open(path, &seeding) == SQLITE_OK)
    precondition(sqlite3_exec(seeding, """
        PRAGMA journal_mode = WAL;
        CREATE TABLE LoadInvoice (id INTEGER PRIMARY KEY, customer TEXT NOT NULL DEFAULT '', quantity INTEGER NOT NULL DEFAULT 1, unitPrice REAL NOT NULL DEFAULT 0, discount REAL);
        WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r WHERE n < \(count - 1))
        INSERT INTO LoadInvoice (customer, quantity, unitPrice, discount)
            SELECT 'Customer ' || n, n, (n % 1000) * 0.25, CASE WHEN n % 4 = 0 THEN NULL ELSE (n % 10) / 100.0 END FROM r;
        """, nil, nil, nil) == SQLITE_OK)
    sqlite3_close(seeding)
    var raw: [Double] = []
    var tether: [Double] = []
    var firsts: [Double] = []
    // Tether only (for profilers): every result is kept, so that the profile shows loading.
    let skipRaw = tetherOnly
    var kept: [[LoadInvoice]] = []
    for _ in 0..<rounds {
        if skipRaw { raw.append(1) } else {
        var database: OpaquePointer?
        precondition(sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK)
        let rawStart = monotonicNanoseconds()
        let rawRows = rawLoadInvoices(database!)
        raw.append(Double(monotonicNanoseconds() - rawStart) / 1e6)
        precondition(rawRows.count == count)
        withExtendedLifetime(rawRows) {}
        sqlite3_close(database)
        }

        let store = try! Store(path: path, scheduler: TestScheduler())
        let first = monotonicNanoseconds()
        _ = try! store.fetch(LoadInvoice.self, where: "id < 0")
        firsts.append(Double(monotonicNanoseconds() - first) / 1e6)
        let start = monotonicNanoseconds()
        let rows = try! store.fetch(LoadInvoice.self)
        tether.append(Double(monotonicNanoseconds() - start) / 1e6)
        precondition(rows.count == count && rows[7].customer == "Customer 7")
        if skipRaw { kept.append(rows) }
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    let ratios = zip(tether, raw).map { $0 / $1 }
    print(String(format: "load 100,000: raw %.1f ms (%.1f-%.1f), Tether %.1f ms (%.1f-%.1f); per-round ratio median %.2fx",
                 median(raw), raw.min()!, raw.max()!, median(tether), tether.min()!, tether.max()!, median(ratios)))
    print(String(format: "the table's first use in a store (a fetch of no rows): %.2f ms (%.2f-%.2f)", median(firsts), firsts.min()!, firsts.max()!))
}

