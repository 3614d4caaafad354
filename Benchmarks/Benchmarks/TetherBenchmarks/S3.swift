// S3 (issue 35): live aggregates over 1,000,000 rows, one row changes: the commit, then the new
// value. On P3's kind of rows (quantity = id - 1), no index made by the app.
//
// - Tether: `store.observeSum(\StoreInvoice.quantity)` (kept from the changed rows), and
//   `store.observeMax(\StoreInvoice.quantity)` (the row holding it known; the store makes the
//   index the look-up needs when the row holding it changes), subscribed once; another
//   connection commits a new quantity for one row, and `refresh()` returns once the new value
//   is sent.
// - Raw: the same commit, then `SELECT sum(quantity)` (what re-running the aggregate costs).
import Benchmark
import CSQLiteBench
import TetherSQLite

func registerS3() {
    let rows = 1_000_000
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one,
                                                maxDuration: .seconds(5), maxIterations: 200)
    for function in ["sum", "max"] {
        persistenceBenchmark("S3 live \(function), one row of 1M changes — Tether", configuration: configuration) { files in
            var state: (store: Store, other: RawDatabase, subscription: any Disposable, results: Totals)?
            var n = 0
            return { benchmark in
                if state == nil {
                    let path = files.fresh("s3-\(function)")
                    seedDatabase(path: path, table: tetherTable, rows: rows)
                    let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
                    let results = Totals()
                    let signal = function == "sum" ? store.observeSum(\StoreInvoice.quantity) : store.observeMax(\StoreInvoice.quantity)
                    let subscription = signal.subscribe(next: { value in results.record(value ?? 0) })
                    state = (store, RawDatabase(path: path), subscription, results)
                }
                let (store, other, _, results) = state!
                n += 1
                let before = results.count
                let id = (n &* 7_919) % rows + 1
                benchmark.startMeasurement()
                other.execute("UPDATE \(tetherTable) SET quantity = \(rows + n) WHERE id = \(id)")
                try store.refresh()
                benchmark.stopMeasurement()
                precondition(results.count == before + 1, "S3 \(function): no new value")
            }
        }
    }
    persistenceBenchmark("S3 live sum, one row of 1M changes — Raw sum query", configuration: configuration) { files in
        var state: (database: RawDatabase, query: OpaquePointer)?
        var n = 0
        return { benchmark in
            if state == nil {
                let path = files.fresh("s3-raw")
                seedDatabase(path: path, table: tetherTable, rows: rows)
                let database = RawDatabase(path: path)
                state = (database, database.prepare("SELECT sum(quantity) FROM \(tetherTable)"))
            }
            let (database, query) = state!
            n += 1
            let id = (n &* 7_919) % rows + 1
            benchmark.startMeasurement()
            database.execute("UPDATE \(tetherTable) SET quantity = \(rows + n) WHERE id = \(id)")
            precondition(sqlite3_step(query) == SQLITE_ROW)
            let sum = sqlite3_column_int64(query, 0)
            sqlite3_reset(query)
            benchmark.stopMeasurement()
            precondition(sum > 0, "S3 raw: no sum")
        }
    }
}
