// P9: a typed condition (`Condition`, rendered to SQL by the store) next to the same query
// written as an SQL string, on the rows of P3 (100,000 `StoreInvoice` rows, quantity = id - 1),
// with an index on quantity, in one store whose models live on the benchmark's thread.
//
// - P9: `quantity >= 50_000 AND customer <> 'x'`, ordered by quantity: 50,000 models made per
//   fetch; ms per fetch, one fetch per sample. The models are dropped after the measurement.
// - P9b: `quantity = 12_345`: one row (found through the index), so building and rendering the
//   condition is not hidden behind loading rows; µs per fetch, 1,000 fetches per sample, each
//   model dropped before the next fetch.
//
// The condition (or the SQL string and its arguments) is built inside the loop, as an app
// builds it per query. Before measuring, each benchmark checks that the typed query and the SQL
// string return the same models (by id); every sample's result is checked after its measurement.
import Benchmark
import TetherSQLite

/// P9's rows: quantity >= 50,000 are the rows 50,000..<100,000 (ids 50,001...100,000).
let p9Threshold = 50_000
/// P9b's row: quantity 12,345 is row 12,345 (id 12,346).
let p9bQuantity = 12_345

@inline(never)
func p9Typed(_ store: Store, _ threshold: Int) throws -> [StoreInvoice] {
    try store.fetch(StoreInvoice.self, where: \.quantity >= threshold && \.customer != "x", orderBy: \.quantity)
}

@inline(never)
func p9SQL(_ store: Store, _ threshold: Int) throws -> [StoreInvoice] {
    try store.fetch(StoreInvoice.self, where: "quantity >= ? AND customer <> ?", [.integer(Int64(threshold)), "x"],
                    orderBy: \.quantity)
}

@inline(never)
func p9bTyped(_ store: Store, _ quantity: Int) throws -> [StoreInvoice] {
    try store.fetch(StoreInvoice.self, where: \.quantity == quantity)
}

@inline(never)
func p9bSQL(_ store: Store, _ quantity: Int) throws -> [StoreInvoice] {
    try store.fetch(StoreInvoice.self, where: "quantity = ?", [.integer(Int64(quantity))])
}

/// P9: the 50,000 models of rows 50,000..<100,000, in order.
func checkP9(_ what: String, _ invoices: [StoreInvoice]) {
    precondition(invoices.count == bulkRows - p9Threshold, "\(what): \(invoices.count) models")
    for (k, invoice) in invoices.enumerated() {
        let r = p9Threshold + k
        checkLoaded(what, r: r, id: invoice.persistentID, customer: invoice.customer, quantity: invoice.quantity,
                    unitPrice: invoice.unitPrice, discount: invoice.discount)
    }
}

/// P9b: the one model of row 12,345.
func checkP9b(_ what: String, _ invoices: [StoreInvoice]) {
    precondition(invoices.count == 1, "\(what): \(invoices.count) models")
    let invoice = invoices[0]
    checkLoaded(what, r: p9bQuantity, id: invoice.persistentID, customer: invoice.customer, quantity: invoice.quantity,
                unitPrice: invoice.unitPrice, discount: invoice.discount)
}

/// A store on a file with P3's 100,000 rows and an index on quantity, after checking that the
/// typed query and the SQL string return the same models, by id.
func openP9Store(_ files: BenchmarkFiles) throws -> Store {
    let path = files.fresh("p9")
    seedDatabase(path: path, table: tetherTable, rows: bulkRows)
    RawDatabase(path: path).execute("CREATE INDEX StoreInvoice_quantity ON \(tetherTable)(quantity)")
    checkTetherTable(path: path)
    let store = try openStore(path: path, scheduler: TestScheduler())
    try checkSettings("P9 Tether", store)
    let typed = try p9Typed(store, p9Threshold), sql = try p9SQL(store, p9Threshold)
    checkP9("P9 typed", typed)
    checkP9("P9 SQL string", sql)
    precondition(typed.map(\.persistentID) == sql.map(\.persistentID), "P9: the typed query and the SQL string differ")
    let typedOne = try p9bTyped(store, p9bQuantity), sqlOne = try p9bSQL(store, p9bQuantity)
    checkP9b("P9b typed", typedOne)
    checkP9b("P9b SQL string", sqlOne)
    precondition(typedOne.map(\.persistentID) == sqlOne.map(\.persistentID), "P9b: the typed query and the SQL string differ")
    return store
}

func registerP9() {
    // P9: one fetch of 50,000 models per sample.
    let bulk = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .one,
                                       maxDuration: .seconds(5), maxIterations: 100)
    // P9b: 1,000 fetches of one model per sample.
    let perFetch = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .kilo,
                                           maxDuration: .seconds(3), maxIterations: 200)
    let versions: [(String, (Store, Int) throws -> [StoreInvoice], (Store, Int) throws -> [StoreInvoice])] = [
        ("Typed condition", p9Typed, p9bTyped),
        ("SQL string", p9SQL, p9bSQL),
    ]
    for (version, fetch, _) in versions {
        persistenceBenchmark("P9 fetch 50k by condition — \(version)", configuration: bulk) { files in
            var store: Store?
            return { benchmark in
                if store == nil { store = try openP9Store(files) }
                benchmark.startMeasurement()
                let invoices = try fetch(store!, p9Threshold)
                benchmark.stopMeasurement()
                checkP9("P9 \(version)", invoices)
            }
        }
    }
    for (version, _, fetchOne) in versions {
        persistenceBenchmark("P9b fetch one by condition — \(version)", configuration: perFetch) { files in
            var store: Store?
            return { benchmark in
                if store == nil { store = try openP9Store(files) }
                var sum = 0
                benchmark.startMeasurement()
                for _ in benchmark.scaledIterations {
                    sum &+= try fetchOne(store!, p9bQuantity)[0].quantity
                }
                benchmark.stopMeasurement()
                precondition(sum == p9bQuantity &* benchmark.scaledIterations.count, "P9b \(version): wrong values loaded")
            }
        }
    }
}
