// S2 (issue 18): the invoice app's first screen as the file grows: 3 invoices (the examples a
// new file gets), 100,000 and 1,000,000 (each with two lines, 100 customers).
//
// One sample opens the file (`openInvoiceStore`), makes the app (`InvoiceApp(store:)`), renders
// the first 80x24 screen and closes the store (nothing is pending: a close stops the watcher
// and the live queries). The app counts the invoices when the turn that drew the first screen
// ends; "with the count" also ends that turn and renders again (the screen then says `1/1000000`
// instead of `1/…`). Reported: the time, the allocations, and the peak resident memory's
// growth. Goal: at 100,000 and 1,000,000 invoices, within 1.5x of the 3-invoice figures.
import Benchmark
import Foundation
import InvoiceKit
import TetherSQLite
import TetherTerminal

let s2Sizes = [3, 100_000, 1_000_000]

/// A file with `invoices` invoices: the three examples, then invoices 4... made by
/// `addGeneratedInvoices` (the change log emptied after).
func makeS2File(_ files: BenchmarkFiles, invoices: Int) throws -> String {
    let path = files.fresh("s2-\(invoices)")
    try openInvoiceStore(path: path, scheduler: TestScheduler()).close()
    guard invoices > 3 else { return path }
    try addGeneratedInvoices(upTo: invoices, toFileAt: path)
    RawDatabase(path: path).execute("DELETE FROM tether_changes")
    return path
}

func registerS2() {
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResidentDelta],
        timeUnits: .microseconds, warmupIterations: 1, scalingFactor: .one, maxDuration: .seconds(10), maxIterations: 20)
    for invoices in s2Sizes {
        let label = invoices >= 1_000_000 ? "\(invoices / 1_000_000)M" : invoices >= 1_000 ? "\(invoices / 1_000)k" : "\(invoices)"
        for counted in [false, true] {
            let name = counted ? "S2 invoices screen with the count, \(label) invoices" : "S2 invoices first screen, \(label) invoices"
            persistenceBenchmark(name, configuration: configuration) { files in
                var path: String?
                return { benchmark in
                    if path == nil { path = try makeS2File(files, invoices: invoices) }
                    // The app belongs to the main actor: the sample runs on the main queue (which the
                    // runner's main thread serves while samples run on another thread).
                    let path = path!
                    benchmark.startMeasurement()
                    let text = try DispatchQueue.main.sync { try MainActor.assumeIsolated {
                        let scheduler = TestScheduler()
                        let store = try openInvoiceStore(path: path, scheduler: scheduler)
                        let app = InvoiceApp(store: store, title: "s2")
                        var screen = app.render(Size(width: 80, height: 24))
                        if counted {
                            scheduler.advance()
                            screen = app.render(Size(width: 80, height: 24))
                        }
                        try withExtendedLifetime(app) { try store.close() }
                        return screen.lines.joined(separator: "\n")
                    } }
                    benchmark.stopMeasurement()
                    precondition(text.contains("Invoice #1"), "S2: the first invoice is shown")
                    precondition(text.contains(counted ? "1/\(invoices)" : "1/…"), "S2: the count is shown once counted")
                }
            }
        }
    }
}
