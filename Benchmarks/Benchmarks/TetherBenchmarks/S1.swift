// S1 (issue 18): a live query ordered by a column over N rows, one row changes: the commit, then
// the new result. N = 10,000, 100,000 and 1,000,000, on P3's kind of rows (quantity = id - 1)
// with an index on quantity.
//
// - Tether: `store.observe(StoreInvoice.self, orderBy: \.quantity)` is subscribed once; another
//   connection commits a new quantity for one row (which moves it in the order), and
//   `refresh()` returns once the live query has sent its new result (N live models, in order).
// - Raw: the same commit, then the id query the result comes from, `SELECT id … ORDER BY
//   quantity, id`, stepped into an array of ids (prepared once): the cost of re-running the
//   query, which a live query that looks only at the changed row would not pay.
import Benchmark
import CSQLiteBench
import TetherSQLite

let s1Sizes = [10_000, 100_000, 1_000_000]

/// A file with `rows` rows and an index on quantity.
func makeS1File(_ files: BenchmarkFiles, rows: Int) -> String {
    let path = files.fresh("s1-\(rows)")
    seedDatabase(path: path, table: tetherTable, rows: rows)
    RawDatabase(path: path).execute("CREATE INDEX StoreInvoice_quantity ON \(tetherTable)(quantity)")
    return path
}

/// The row changed at iteration `n` and its new quantity: spread over the table, moved to the
/// end of the order (the largest quantity yet).
func s1Change(_ n: Int, rows: Int) -> (id: Int64, quantity: Int64) {
    (Int64((n &* 7_919) % rows + 1), Int64(rows + n))
}

func s1Label(_ rows: Int) -> String {
    rows >= 1_000_000 ? "\(rows / 1_000_000)M" : "\(rows / 1_000)k"
}

/// S1 by text, with no index the app made: ordered by customer (`Customer 17`, so text order
/// differs from id order), over 1,000,000 rows. The store makes the index its order needs when
/// the query is subscribed (in the setup, not measured). The change is either a column that is
/// not the order (quantity: the row keeps its place) or the order itself (the row moves).
func registerS1WithoutAnIndex() {
    let rows = 1_000_000
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
                                                maxDuration: .seconds(5), maxIterations: 200)
    for movesTheRow in [false, true] {
        let what = movesTheRow ? "its order column changes" : "another column changes"
        persistenceBenchmark("S1 by text, no index made by the app, one row of 1M: \(what) — Tether", configuration: configuration) { files in
            var state: (store: Store, other: RawDatabase, subscription: any Disposable, results: Totals)?
            var n = 0
            return { benchmark in
                if state == nil {
                    let path = files.fresh("s1-text-\(movesTheRow)")
                    seedDatabase(path: path, table: tetherTable, rows: rows)
                    let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
                    let results = Totals()
                    let subscription = store.observe(StoreInvoice.self, orderBy: \.customer).subscribe(next: { result in
                        results.record(result.count)
                    })
                    state = (store, RawDatabase(path: path), subscription, results)
                }
                let (store, other, _, results) = state!
                n += 1
                let id = (n &* 7_919) % rows + 1
                let before = results.count
                let sql = movesTheRow
                    ? "UPDATE \(tetherTable) SET customer = 'Customer \(rows + n)' WHERE id = \(id)"
                    : "UPDATE \(tetherTable) SET quantity = quantity + 1 WHERE id = \(id)"
                benchmark.startMeasurement()
                other.execute(sql)
                try store.refresh()
                benchmark.stopMeasurement()
                precondition(results.count == before + 1, "S1 by text: no new result")
                precondition(results.last == rows, "S1 by text: \(results.last) rows, expected \(rows)")
            }
        }
    }
    persistenceBenchmark("S1 by text, no index made by the app, one row of 1M: its order column changes — Raw id query", configuration: configuration) { files in
        var state: (database: RawDatabase, query: OpaquePointer)?
        var n = 0
        return { benchmark in
            if state == nil {
                let path = files.fresh("s1-text-raw")
                seedDatabase(path: path, table: tetherTable, rows: rows)
                let database = RawDatabase(path: path)
                state = (database, database.prepare("SELECT id FROM \(tetherTable) ORDER BY customer, id"))
            }
            let (database, query) = state!
            n += 1
            let id = (n &* 7_919) % rows + 1
            var ids: [Int64] = []
            benchmark.startMeasurement()
            database.execute("UPDATE \(tetherTable) SET customer = 'Customer \(rows + n)' WHERE id = \(id)")
            ids.reserveCapacity(rows)
            while sqlite3_step(query) == SQLITE_ROW { ids.append(sqlite3_column_int64(query, 0)) }
            sqlite3_reset(query)
            benchmark.stopMeasurement()
            precondition(ids.count == rows, "S1 by text raw: wrong result")
        }
    }
}

func registerS1() {
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
                                                maxDuration: .seconds(5), maxIterations: 200)
    for rows in s1Sizes {
        persistenceBenchmark("S1 live query, one row of \(s1Label(rows)) changes — Tether", configuration: configuration) { files in
            var state: (store: Store, other: RawDatabase, subscription: any Disposable, results: Totals)?
            var n = 0
            return { benchmark in
                if state == nil {
                    let path = makeS1File(files, rows: rows)
                    let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
                    let results = Totals()
                    let subscription = store.observe(StoreInvoice.self, orderBy: \.quantity).subscribe(next: { result in
                        results.record(result.count)
                    })
                    state = (store, RawDatabase(path: path), subscription, results)
                }
                let (store, other, _, results) = state!
                n += 1
                let change = s1Change(n, rows: rows)
                let before = results.count
                benchmark.startMeasurement()
                other.execute("UPDATE \(tetherTable) SET quantity = \(change.quantity) WHERE id = \(change.id)")
                try store.refresh()
                benchmark.stopMeasurement()
                precondition(results.count == before + 1, "S1 Tether: no new result")
                precondition(results.last == rows, "S1 Tether: \(results.last) rows, expected \(rows)")
            }
        }
        persistenceBenchmark("S1 live query, one row of \(s1Label(rows)) changes — Raw id query", configuration: configuration) { files in
            var state: (database: RawDatabase, query: OpaquePointer)?
            var n = 0
            return { benchmark in
                if state == nil {
                    let database = RawDatabase(path: makeS1File(files, rows: rows))
                    state = (database, database.prepare("SELECT id FROM \(tetherTable) ORDER BY quantity, id"))
                }
                let (database, query) = state!
                n += 1
                let change = s1Change(n, rows: rows)
                var ids: [Int64] = []
                benchmark.startMeasurement()
                database.execute("UPDATE \(tetherTable) SET quantity = \(change.quantity) WHERE id = \(change.id)")
                ids.reserveCapacity(rows)
                while sqlite3_step(query) == SQLITE_ROW { ids.append(sqlite3_column_int64(query, 0)) }
                sqlite3_reset(query)
                benchmark.stopMeasurement()
                precondition(ids.count == rows && ids.last == change.id, "S1 raw: wrong result")
            }
        }
    }
}
