// P1-P3b: persistence. The same workloads written three ways, in the same run: the raw sqlite3
// C API (HandWrittenSQLite.swift), GRDB 7 Codable records (GRDBRecords.swift) and Tether's
// `Store` (this file), with the Observation bridge on (Tether as shipped) and off.
//
// - P1: insert 100,000 new models (one transaction); ms per 100,000.
// - P2: 100,000 property changes over 10,000 stored models, written through and flushed.
// - P3: load 100,000 rows as models (class instances; Tether: a fresh store, so its identity map
//   is empty).
// - P3b: load one model by id, not in memory (Tether: the model loaded before was dropped, so its
//   weak identity-map entry is gone); ns per load, 1,000 loads per sample.
//
// All three use the same table (the DDL Tether generates, checked), WAL and synchronous=NORMAL
// (checked on each library's own connection), and a fresh database file per benchmark in a
// directory of its own under the temporary directory (P1 and P3: a fresh file or connection per
// sample). What is measured is the work on objects that already exist (P1: the objects are made
// before the measurement starts; P3: the connection or store is opened before). Every sample is
// checked after its measurement: the rows in the file, read back through a separate raw
// connection (P1, P2), or the loaded objects' values (P3, P3b). A check that fails stops the run.
import Benchmark
import Foundation
import TetherSQLite

// MARK: The model and its rows

@Model
final class StoreInvoice {
    var customer = ""
    var quantity = 1
    var unitPrice = 0.0
    var discount: Double? = nil
}

extension StoreInvoice: PersistentModel {}

/// The values of row `r` (0-based; its id is r + 1) in every benchmark database.
enum InvoiceRow {
    static func customer(_ r: Int) -> String { "Customer \(r)" }
    static func quantity(_ r: Int) -> Int { r }
    static func unitPrice(_ r: Int) -> Double { Double(r % 1000) * 0.25 }
    static func discount(_ r: Int) -> Double? { r % 4 == 0 ? nil : Double(r % 10) / 100 }
}

/// The table of the raw and GRDB versions: what Tether generates for `StoreInvoice`
/// (`checkTetherTable` compares them), under another name.
func invoiceTableSQL(_ table: String) -> String {
    """
    CREATE TABLE \(table) (
        id INTEGER PRIMARY KEY,
        customer TEXT NOT NULL DEFAULT '',
        quantity INTEGER NOT NULL DEFAULT 1,
        unitPrice REAL NOT NULL DEFAULT 0,
        discount REAL
    )
    """
}

let rawTable = "Invoice"       // GRDBInvoice.databaseTableName too
let tetherTable = "StoreInvoice"

/// P1, P3: rows per sample. P2: models and changes.
let bulkRows = 100_000
let p2Models = 10_000
let p2Changes = 100_000

@inline(never)
func makeRawInvoices(_ count: Int) -> [RawInvoice] {
    (0..<count).map { r in
        RawInvoice(customer: InvoiceRow.customer(r), quantity: InvoiceRow.quantity(r),
                   unitPrice: InvoiceRow.unitPrice(r), discount: InvoiceRow.discount(r))
    }
}

@inline(never)
func makeGRDBInvoices(_ count: Int) -> [GRDBInvoice] {
    (0..<count).map { r in
        GRDBInvoice(customer: InvoiceRow.customer(r), quantity: InvoiceRow.quantity(r),
                    unitPrice: InvoiceRow.unitPrice(r), discount: InvoiceRow.discount(r))
    }
}

@inline(never)
func makeStoreInvoices(_ count: Int) -> [StoreInvoice] {
    (0..<count).map { r in
        let invoice = StoreInvoice()
        invoice.customer = InvoiceRow.customer(r)
        invoice.quantity = InvoiceRow.quantity(r)
        invoice.unitPrice = InvoiceRow.unitPrice(r)
        invoice.discount = InvoiceRow.discount(r)
        return invoice
    }
}

/// A file with `rows` rows in `table` (created), written with the raw API: the same data for
/// the three versions of P3 and P3b.
func seedDatabase(path: String, table: String, rows: Int) {
    let database = RawDatabase(path: path)
    database.execute(invoiceTableSQL(table))
    rawInsert(database, table: table, makeRawInvoices(rows))
}

// MARK: The Tether versions

@inline(never)
func tetherInsert(_ store: Store, _ invoices: [StoreInvoice]) throws {
    try store.insert(contentsOf: invoices)
}

/// P2 with Tether: the changes are made on the live models (the store records them as they
/// happen), then `flush()` commits them (coalesced: one UPDATE per changed row).
@inline(never)
func tetherUpdate(_ store: Store, _ invoices: [StoreInvoice], changes: Int, stamp: Int) throws {
    for k in 0..<changes {
        invoices[k % invoices.count].quantity = stamp + k
    }
    try store.flush()
}

@inline(never)
func tetherLoadAll(_ store: Store) throws -> [StoreInvoice] {
    try store.fetch(StoreInvoice.self)
}

@inline(never)
func tetherLoadOne(_ store: Store, id: Int64) throws -> StoreInvoice? {
    try store.load(StoreInvoice.self, id: id)
}

/// A store on `path` whose models live on the benchmark's thread; its end-of-turn commits run
/// when the benchmark advances `scheduler` (the benchmarks call `flush()`). The table mapping is
/// set up before it is returned (a one-time cost per store and model type, not measured).
func openStore(path: String, scheduler: TestScheduler) throws -> Store {
    let store = try Store(path: path, scheduler: scheduler)
    _ = try store.fetch(StoreInvoice.self, where: "id < 0")
    return store
}

// MARK: Checks

/// The connection settings every version must run with.
func checkSettings(_ what: String, journalMode: String, synchronous: Int) {
    precondition(journalMode.lowercased() == "wal" && synchronous == 1,
                 "\(what): journal_mode \(journalMode), synchronous \(synchronous); expected wal, 1 (NORMAL)")
}

func checkSettings(_ what: String, _ database: RawDatabase) {
    checkSettings(what, journalMode: database.text("PRAGMA journal_mode"), synchronous: Int(database.integer("PRAGMA synchronous")))
}

func checkSettings(_ what: String, _ database: GRDBDatabase) {
    let settings = database.settings()
    checkSettings(what, journalMode: settings.journalMode, synchronous: settings.synchronous)
}

func checkSettings(_ what: String, _ store: Store) throws {
    let (journalMode, synchronous) = try store.database.sync { connection in
        (try connection.scalar("PRAGMA journal_mode", as: String.self) ?? "",
         try connection.scalar("PRAGMA synchronous", as: Int.self) ?? -1)
    }
    checkSettings(what, journalMode: journalMode, synchronous: synchronous)
}

/// Tether's table is the one the raw and GRDB versions create (`invoiceTableSQL`).
func checkTetherTable(path: String) {
    let squeeze = { (sql: String) in sql.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    let tether = RawDatabase(path: path).text("SELECT sql FROM sqlite_master WHERE name = '\(tetherTable)'")
    precondition(squeeze(tether) == squeeze(invoiceTableSQL(tetherTable)),
                 "Tether's table differs from the other versions': \(tether)")
}

/// P1: the file holds exactly the `bulkRows` rows with their values, and the objects got ids
/// 1...bulkRows in order. Read through a connection of its own.
func checkInserted(_ what: String, path: String, table: String, ids: [Int64?]) {
    let database = RawDatabase(path: path)
    let count = database.integer("SELECT count(*) FROM \(table)")
    let matching = database.integer("""
        SELECT count(*) FROM \(table) WHERE customer = 'Customer ' || (id - 1) AND quantity = id - 1
        AND unitPrice = ((id - 1) % 1000) * 0.25
        AND discount IS (CASE WHEN (id - 1) % 4 = 0 THEN NULL ELSE ((id - 1) % 10) / 100.0 END)
        """)
    precondition(count == bulkRows && matching == bulkRows, "\(what): \(count) rows, \(matching) with the right values")
    precondition(ids.elementsEqual((1...bulkRows).lazy.map { Int64($0) }), "\(what): the objects did not get ids 1...\(bulkRows)")
}

/// P2: after the changes of the sample stamped `stamp`, every row holds its last value
/// (change k set row k % models + 1 to stamp + k; the last change of row id is
/// k = changes - models + id - 1).
func checkUpdated(_ what: String, path: String, table: String, stamp: Int, models: Int = p2Models, changes: Int = p2Changes) {
    let database = RawDatabase(path: path)
    let last = changes - models
    let matching = database.integer("SELECT count(*) FROM \(table) WHERE quantity = \(stamp + last) + id - 1")
    let count = database.integer("SELECT count(*) FROM \(table)")
    precondition(count == models && matching == models, "\(what): \(matching) of \(count) rows hold their last value")
}

/// P3 and P3b: a loaded object holds row `r`'s values.
func checkLoaded(_ what: String, r: Int, id: Int64?, customer: String, quantity: Int, unitPrice: Double, discount: Double?) {
    precondition(id == Int64(r + 1) && customer == InvoiceRow.customer(r) && quantity == InvoiceRow.quantity(r)
                 && unitPrice == InvoiceRow.unitPrice(r) && discount == InvoiceRow.discount(r),
                 "\(what): object \(r) holds id \(String(describing: id)), \(customer), \(quantity), \(unitPrice), \(String(describing: discount))")
}

/// P3b: the id of the `n`th load (a walk through every id of the table, in a scattered order).
@inline(__always)
func p3bID(_ n: Int) -> Int64 {
    Int64((n &* 7_919) % bulkRows + 1)
}

/// P3b: the sum of the quantities of loads `first..<first + count` (quantity = id - 1).
func p3bExpectedSum(first: Int, count: Int) -> Int {
    (first..<first + count).reduce(0) { $0 &+ Int(p3bID($1)) - 1 }
}

// MARK: Files

/// The database files of one benchmark: a directory of its own under the temporary directory,
/// made by the benchmark's setup and removed by its teardown.
final class BenchmarkFiles: Sendable {
    let directory: String

    init(_ name: String) {
        let slug = String(name.map { $0.isLetter || $0.isNumber ? $0 : "-" })
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("tether-benchmarks-\(getpid())-\(slug)").path
    }

    func create() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The path of database `name`, after removing any earlier file of that name (and its WAL).
    func fresh(_ name: String) -> String {
        let path = directory + "/" + name + ".sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }
}

/// P2's file for the raw versions: `models` rows, inserted, and their objects.
func makeRawP2File(_ files: BenchmarkFiles, models: Int) -> (path: String, database: RawDatabase, invoices: [RawInvoice]) {
    let path = files.fresh("p2")
    let database = RawDatabase(path: path)
    checkSettings("P2 raw", database)
    database.execute(invoiceTableSQL(rawTable))
    let invoices = makeRawInvoices(models)
    rawInsert(database, table: rawTable, invoices)
    return (path, database, invoices)
}

/// Registers a persistence benchmark: `make` gets the benchmark's files and returns the
/// closure run for each sample (keeping its state between samples in what it captures).
func persistenceBenchmark(
    _ name: String, configuration: Benchmark.Configuration,
    _ make: (BenchmarkFiles) -> (Benchmark) throws -> Void
) {
    let files = BenchmarkFiles(name)
    Benchmark(name, configuration: configuration, closure: make(files),
              setup: { try files.create() }, teardown: { files.remove() })
}

// MARK: Benchmarks

func registerPersistence() {
    // P1-P3: one sample is one whole workload (100,000 rows or changes, 20-1,000 ms).
    // Microseconds: package-benchmark's markdown prints values of 10^7 and more with three
    // significant digits, and these samples run to 10^9 ns.
    let bulk = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
                                       maxDuration: .seconds(6), maxIterations: 12)
    // P3b: 1,000 loads per sample.
    let perLoad = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .kilo,
                                          maxDuration: .seconds(3), maxIterations: 200)
    let raw = "Raw C API", grdb = "GRDB"
    let bridges = [true, false]

    // P1: insert 100,000 new models, one transaction, into a fresh file per sample.
    persistenceBenchmark("P1 insert 100k models — \(raw)", configuration: bulk) { files in
        return { benchmark in
            let path = files.fresh("p1")
            let database = RawDatabase(path: path)
            checkSettings("P1 raw", database)
            database.execute(invoiceTableSQL(rawTable))
            let invoices = makeRawInvoices(bulkRows)
            benchmark.startMeasurement()
            rawInsert(database, table: rawTable, invoices)
            benchmark.stopMeasurement()
            checkInserted("P1 raw", path: path, table: rawTable, ids: invoices.map(\.id))
        }
    }
    persistenceBenchmark("P1 insert 100k models — \(grdb)", configuration: bulk) { files in
        return { benchmark in
            let path = files.fresh("p1")
            let database = GRDBDatabase(path: path)
            checkSettings("P1 GRDB", database)
            RawDatabase(path: path).execute(invoiceTableSQL(rawTable))
            let invoices = makeGRDBInvoices(bulkRows)
            benchmark.startMeasurement()
            grdbInsert(database, invoices)
            benchmark.stopMeasurement()
            checkInserted("P1 GRDB", path: path, table: rawTable, ids: invoices.map(\.id))
        }
    }
    for bridge in bridges {
        persistenceBenchmark("P1 insert 100k models — \(tetherLabel(bridge: bridge))", configuration: bulk) { files in
            return { benchmark in
                try withObservationBridge(bridge) {
                    let path = files.fresh("p1")
                    let store = try openStore(path: path, scheduler: TestScheduler())
                    try checkSettings("P1 Tether", store)
                    checkTetherTable(path: path)
                    let invoices = makeStoreInvoices(bulkRows)
                    benchmark.startMeasurement()
                    try tetherInsert(store, invoices)
                    benchmark.stopMeasurement()
                    checkInserted("P1 Tether", path: path, table: tetherTable, ids: invoices.map(\.persistentID))
                }
            }
        }
    }

    // P2: 100,000 changes over 10,000 stored models (10 each, round robin), written and
    // committed. The file and the models are made once per benchmark; each sample writes new
    // values (stamped with the sample's number).
    persistenceBenchmark("P2 100k changes over 10k models — \(raw)", configuration: bulk) { files in
        var state: (path: String, database: RawDatabase, invoices: [RawInvoice])?
        var sample = 0
        return { benchmark in
            if state == nil { state = makeRawP2File(files, models: p2Models) }
            let (path, database, invoices) = state!
            sample += 1
            let stamp = sample * 1_000_000
            benchmark.startMeasurement()
            rawUpdate(database, table: rawTable, invoices, changes: p2Changes, stamp: stamp)
            benchmark.stopMeasurement()
            checkUpdated("P2 raw", path: path, table: rawTable, stamp: stamp)
        }
    }
    // The same, and 1,000,000 changes over 100,000 models, against raw code that writes each
    // changed row once (what write-through does), and Tether with the bridge on.
    for (models, changes, name) in [(p2Models, p2Changes, "P2 100k changes over 10k models"),
                                    (100_000, 1_000_000, "P2 1M changes over 100k models")] {
        persistenceBenchmark("\(name) — \(raw), each changed row once", configuration: bulk) { files in
            var state: (path: String, database: RawDatabase, invoices: [RawInvoice])?
            var sample = 0
            return { benchmark in
                if state == nil { state = makeRawP2File(files, models: models) }
                let (path, database, invoices) = state!
                sample += 1
                let stamp = sample * 10_000_000
                benchmark.startMeasurement()
                rawUpdateCoalesced(database, table: rawTable, invoices, changes: changes, stamp: stamp)
                benchmark.stopMeasurement()
                checkUpdated("P2 raw, each changed row once", path: path, table: rawTable, stamp: stamp, models: models, changes: changes)
            }
        }
        guard models != p2Models else { continue }   // the 100k Tether rows are below
        persistenceBenchmark("\(name) — \(tetherLabel(bridge: true))", configuration: bulk) { files in
            var state: (path: String, scheduler: TestScheduler, store: Store, invoices: [StoreInvoice])?
            var sample = 0
            return { benchmark in
                if state == nil {
                    let path = files.fresh("p2")
                    let scheduler = TestScheduler()
                    let store = try openStore(path: path, scheduler: scheduler)
                    let invoices = makeStoreInvoices(models)
                    try store.insert(contentsOf: invoices)
                    state = (path, scheduler, store, invoices)
                }
                let (path, scheduler, store, invoices) = state!
                sample += 1
                let stamp = sample * 10_000_000
                benchmark.startMeasurement()
                try tetherUpdate(store, invoices, changes: changes, stamp: stamp)
                benchmark.stopMeasurement()
                precondition(store.pendingRowCount == 0, "P2 Tether: \(store.pendingRowCount) rows still pending after flush()")
                checkUpdated("P2 Tether", path: path, table: tetherTable, stamp: stamp, models: models, changes: changes)
                scheduler.advance()
            }
        }
    }
    persistenceBenchmark("P2 100k changes over 10k models — \(grdb)", configuration: bulk) { files in
        var state: (path: String, database: GRDBDatabase, invoices: [GRDBInvoice])?
        var sample = 0
        return { benchmark in
            if state == nil {
                let path = files.fresh("p2")
                let database = GRDBDatabase(path: path)
                checkSettings("P2 GRDB", database)
                RawDatabase(path: path).execute(invoiceTableSQL(rawTable))
                let invoices = makeGRDBInvoices(p2Models)
                grdbInsert(database, invoices)
                state = (path, database, invoices)
            }
            let (path, database, invoices) = state!
            sample += 1
            let stamp = sample * 1_000_000
            benchmark.startMeasurement()
            grdbUpdate(database, invoices, changes: p2Changes, stamp: stamp)
            benchmark.stopMeasurement()
            checkUpdated("P2 GRDB", path: path, table: rawTable, stamp: stamp)
        }
    }
    for bridge in bridges {
        persistenceBenchmark("P2 100k changes over 10k models — \(tetherLabel(bridge: bridge))", configuration: bulk) { files in
            var state: (path: String, scheduler: TestScheduler, store: Store, invoices: [StoreInvoice])?
            var sample = 0
            return { benchmark in
                try withObservationBridge(bridge) {
                    if state == nil {
                        let path = files.fresh("p2")
                        let scheduler = TestScheduler()
                        let store = try openStore(path: path, scheduler: scheduler)
                        try checkSettings("P2 Tether", store)
                        checkTetherTable(path: path)
                        let invoices = makeStoreInvoices(p2Models)
                        try store.insert(contentsOf: invoices)
                        state = (path, scheduler, store, invoices)
                    }
                    let (path, scheduler, store, invoices) = state!
                    sample += 1
                    let stamp = sample * 1_000_000
                    benchmark.startMeasurement()
                    try tetherUpdate(store, invoices, changes: p2Changes, stamp: stamp)
                    benchmark.stopMeasurement()
                    precondition(store.pendingRowCount == 0, "P2 Tether: \(store.pendingRowCount) rows still pending after flush()")
                    checkUpdated("P2 Tether", path: path, table: tetherTable, stamp: stamp)
                    // The end-of-turn commit the first change scheduled: flush() already
                    // committed everything, so it finds nothing to do.
                    scheduler.advance()
                    precondition(scheduler.pendingCount == 0, "P2 Tether: the scheduler still has work")
                }
            }
        }
    }

    // P3: load 100,000 rows as class instances, through a connection (store) opened for the
    // sample: Tether's identity map is empty, and no version starts with a warm page cache.
    persistenceBenchmark("P3 load 100k models — \(raw)", configuration: bulk) { files in
        var path: String?
        return { benchmark in
            if path == nil {
                path = files.fresh("p3")
                seedDatabase(path: path!, table: rawTable, rows: bulkRows)
            }
            let database = RawDatabase(path: path!)
            checkSettings("P3 raw", database)
            benchmark.startMeasurement()
            let invoices = rawLoadAll(database, table: rawTable)
            benchmark.stopMeasurement()
            precondition(invoices.count == bulkRows, "P3 raw: \(invoices.count) objects")
            for (r, invoice) in invoices.enumerated() {
                checkLoaded("P3 raw", r: r, id: invoice.id, customer: invoice.customer, quantity: invoice.quantity,
                            unitPrice: invoice.unitPrice, discount: invoice.discount)
            }
        }
    }
    persistenceBenchmark("P3 load 100k models — \(grdb)", configuration: bulk) { files in
        var path: String?
        return { benchmark in
            if path == nil {
                path = files.fresh("p3")
                seedDatabase(path: path!, table: rawTable, rows: bulkRows)
            }
            let database = GRDBDatabase(path: path!)
            checkSettings("P3 GRDB", database)
            benchmark.startMeasurement()
            let invoices = grdbLoadAll(database)
            benchmark.stopMeasurement()
            precondition(invoices.count == bulkRows, "P3 GRDB: \(invoices.count) objects")
            for (r, invoice) in invoices.enumerated() {
                checkLoaded("P3 GRDB", r: r, id: invoice.id, customer: invoice.customer, quantity: invoice.quantity,
                            unitPrice: invoice.unitPrice, discount: invoice.discount)
            }
        }
    }
    for bridge in bridges {
        persistenceBenchmark("P3 load 100k models — \(tetherLabel(bridge: bridge))", configuration: bulk) { files in
            var path: String?
            return { benchmark in
                try withObservationBridge(bridge) {
                    if path == nil {
                        path = files.fresh("p3")
                        seedDatabase(path: path!, table: tetherTable, rows: bulkRows)
                        checkTetherTable(path: path!)
                    }
                    let store = try openStore(path: path!, scheduler: TestScheduler())
                    try checkSettings("P3 Tether", store)
                    benchmark.startMeasurement()
                    let invoices = try tetherLoadAll(store)
                    benchmark.stopMeasurement()
                    precondition(invoices.count == bulkRows, "P3 Tether: \(invoices.count) objects")
                    for (r, invoice) in invoices.enumerated() {
                        checkLoaded("P3 Tether", r: r, id: invoice.persistentID, customer: invoice.customer,
                                    quantity: invoice.quantity, unitPrice: invoice.unitPrice, discount: invoice.discount)
                    }
                }
            }
        }
    }

    // P3b: load one model by id, 1,000 per sample, walking the 100,000 ids in a scattered
    // order; each loaded object is dropped before the next load. The sum of the loaded
    // quantities is checked after each sample.
    persistenceBenchmark("P3b load one model by id — \(raw)", configuration: perLoad) { files in
        var loader: RawLoader?
        var loads = 0
        return { benchmark in
            if loader == nil {
                let path = files.fresh("p3b")
                seedDatabase(path: path, table: rawTable, rows: bulkRows)
                let database = RawDatabase(path: path)
                checkSettings("P3b raw", database)
                loader = RawLoader(database, table: rawTable)
                let invoice = loader!.load(id: 43)!
                checkLoaded("P3b raw", r: 42, id: invoice.id, customer: invoice.customer, quantity: invoice.quantity,
                            unitPrice: invoice.unitPrice, discount: invoice.discount)
            }
            let first = loads
            var sum = 0
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                sum &+= loader!.load(id: p3bID(first + i))!.quantity
            }
            benchmark.stopMeasurement()
            loads += benchmark.scaledIterations.count
            precondition(sum == p3bExpectedSum(first: first, count: loads - first), "P3b raw: wrong values loaded")
        }
    }
    persistenceBenchmark("P3b load one model by id — \(grdb)", configuration: perLoad) { files in
        var database: GRDBDatabase?
        var loads = 0
        return { benchmark in
            if database == nil {
                let path = files.fresh("p3b")
                seedDatabase(path: path, table: rawTable, rows: bulkRows)
                database = GRDBDatabase(path: path)
                checkSettings("P3b GRDB", database!)
                let invoice = grdbLoadOne(database!, id: 43)!
                checkLoaded("P3b GRDB", r: 42, id: invoice.id, customer: invoice.customer, quantity: invoice.quantity,
                            unitPrice: invoice.unitPrice, discount: invoice.discount)
            }
            let first = loads
            var sum = 0
            benchmark.startMeasurement()
            for i in benchmark.scaledIterations {
                sum &+= grdbLoadOne(database!, id: p3bID(first + i))!.quantity
            }
            benchmark.stopMeasurement()
            loads += benchmark.scaledIterations.count
            precondition(sum == p3bExpectedSum(first: first, count: loads - first), "P3b GRDB: wrong values loaded")
        }
    }
    for bridge in bridges {
        persistenceBenchmark("P3b load one model by id — \(tetherLabel(bridge: bridge))", configuration: perLoad) { files in
            var store: Store?
            var loads = 0
            return { benchmark in
                try withObservationBridge(bridge) {
                    if store == nil {
                        let path = files.fresh("p3b")
                        seedDatabase(path: path, table: tetherTable, rows: bulkRows)
                        checkTetherTable(path: path)
                        store = try openStore(path: path, scheduler: TestScheduler())
                        try checkSettings("P3b Tether", store!)
                        try checkTetherLoadsFromTheFile(store!, path: path)
                    }
                    let first = loads
                    var sum = 0
                    benchmark.startMeasurement()
                    for i in benchmark.scaledIterations {
                        sum &+= try tetherLoadOne(store!, id: p3bID(first + i))!.quantity
                    }
                    benchmark.stopMeasurement()
                    loads += benchmark.scaledIterations.count
                    precondition(sum == p3bExpectedSum(first: first, count: loads - first), "P3b Tether: wrong values loaded")
                }
            }
        }
    }
}

/// P3b, Tether: a model dropped after `load` is freed (its identity-map entry is gone), and the
/// next `load` of its id reads the row from the file: a change made by another connection in
/// between is seen.
func checkTetherLoadsFromTheFile(_ store: Store, path: String) throws {
    weak var dropped: StoreInvoice?
    do {
        let invoice = try tetherLoadOne(store, id: 43)!
        checkLoaded("P3b Tether", r: 42, id: invoice.persistentID, customer: invoice.customer, quantity: invoice.quantity,
                    unitPrice: invoice.unitPrice, discount: invoice.discount)
        dropped = invoice
    }
    precondition(dropped == nil, "P3b Tether: a loaded model was not freed when dropped")
    let other = RawDatabase(path: path)
    other.execute("UPDATE \(tetherTable) SET quantity = -1 WHERE id = 43")
    let reloaded = try tetherLoadOne(store, id: 43)!
    precondition(reloaded.quantity == -1, "P3b Tether: load(id:) did not read the row again")
    other.execute("UPDATE \(tetherTable) SET quantity = 42 WHERE id = 43")
}
