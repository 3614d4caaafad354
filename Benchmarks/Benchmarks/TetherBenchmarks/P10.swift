// P10: a paged live query over 1,000,000 rows: the 50 rows with the largest quantity
// (`store.observe(StoreInvoice.self, where: .always(true), orderBy: \.quantity, descending: true,
// limit: 50)`), on P3's kind of rows (quantity = id - 1) with an index on quantity.
//
// - P10 first page: subscribe, receive the first result, dispose; next to the raw page query
//   (prepared once) into plain objects. ms per page.
// - P10 one-row change: another connection commits a new customer for a row of the page; for
//   Tether, `refresh()` then returns once the live query has sent its new result (the same 50
//   objects, the row's model updated in place); by hand, the same commit, then the page query
//   run again into new objects. ms per change.
import Benchmark
import TetherSQLite

let p10Rows = 1_000_000

/// A file with 1,000,000 rows and an index on quantity (made once per benchmark).
func makeP10File(_ files: BenchmarkFiles) -> String {
    let path = files.fresh("p10")
    seedDatabase(path: path, table: tetherTable, rows: p10Rows)
    RawDatabase(path: path).execute("CREATE INDEX StoreInvoice_quantity ON \(tetherTable)(quantity)")
    return path
}

/// The page must be the rows 999,950...999,999 (ids 999,951...1,000,000), largest first.
func checkP10(_ what: String, _ ids: [Int64]) {
    precondition(ids == (0..<50).map { Int64(p10Rows - $0) }, "P10 \(what): wrong page")
}

func p10Page(_ store: Store) -> Signal<QueryResult<StoreInvoice>, StoreError> {
    store.observe(StoreInvoice.self, where: .always(true), orderBy: \.quantity, descending: true, limit: 50)
}

func registerP10() {
    let configuration = Benchmark.Configuration(timeUnits: .microseconds, warmupIterations: 2, scalingFactor: .one,
                                                maxDuration: .seconds(4), maxIterations: 300)
    persistenceBenchmark("P10 first page of 50 over 1M rows — Tether", configuration: configuration) { files in
        var store: Store?
        return { benchmark in
            if store == nil { store = try openStore(path: makeP10File(files), scheduler: TestScheduler()) }
            let first = FirstPage()
            benchmark.startMeasurement()
            let subscription = p10Page(store!).subscribe(next: { page in first.keep(page) })
            subscription.dispose()
            benchmark.stopMeasurement()
            checkP10("first page, Tether", first.ids)
        }
    }
    persistenceBenchmark("P10 first page of 50 over 1M rows — Raw", configuration: configuration) { files in
        var pager: RawPager?
        return { benchmark in
            if pager == nil { pager = RawPager(RawDatabase(path: makeP10File(files)), table: tetherTable) }
            benchmark.startMeasurement()
            let page = pager!.load()
            benchmark.stopMeasurement()
            checkP10("first page, raw", page.map(\.id))
        }
    }
    persistenceBenchmark("P10 one-row change of the page — Tether", configuration: configuration) { files in
        var state: (store: Store, other: RawPager, subscription: any Disposable, pages: Totals)?
        var n = 0
        return { benchmark in
            if state == nil {
                let path = makeP10File(files)
                let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
                let pages = Totals()
                let subscription = p10Page(store).subscribe(next: { page in
                    checkP10("change, Tether", page.compactMap(\.persistentID))
                    pages.record(page.count)
                })
                state = (store, RawPager(RawDatabase(path: path), table: tetherTable), subscription, pages)
            }
            let (store, other, _, pages) = state!
            n += 1
            let id = Int64(p10Rows - n % 50)
            let before = pages.count
            benchmark.startMeasurement()
            other.setCustomer("changed \(n)", id: id)
            try store.refresh()
            benchmark.stopMeasurement()
            precondition(pages.count == before + 1, "P10 change, Tether: no new page")
            let customer = try store.load(StoreInvoice.self, id: id)?.customer
            precondition(customer == "changed \(n)", "P10 change, Tether: the row's model was not updated")
        }
    }
    persistenceBenchmark("P10 one-row change of the page — Raw", configuration: configuration) { files in
        var pager: RawPager?
        var n = 0
        return { benchmark in
            if pager == nil { pager = RawPager(RawDatabase(path: makeP10File(files)), table: tetherTable) }
            n += 1
            let id = Int64(p10Rows - n % 50)
            benchmark.startMeasurement()
            pager!.setCustomer("changed \(n)", id: id)
            let page = pager!.load()
            benchmark.stopMeasurement()
            checkP10("change, raw", page.map(\.id))
            precondition(page.first { $0.id == id }?.customer == "changed \(n)", "P10 change, raw: the row was not read again")
        }
    }
}

/// The ids of the first page a live query sent. Why `@unchecked Sendable` is safe: the store
/// sends the first result on the subscribing thread, inside `subscribe`, which is the benchmark's
/// one thread.
final class FirstPage: @unchecked Sendable {
    private(set) var ids: [Int64] = []
    func keep(_ page: QueryResult<StoreInvoice>) {
        if ids.isEmpty { ids = page.compactMap(\.persistentID) }
    }
}
