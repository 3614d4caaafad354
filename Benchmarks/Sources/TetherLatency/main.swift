// P4, P5, P6 and the idle watcher: how fast a committed change reaches a live model, and what
// watching costs when nothing happens. A plain executable (latencies across threads and
// processes, and CPU time over 10 s, are not package-benchmark's per-iteration timings):
//
//   swift run -c release TetherLatency            every table (markdown)
//
// Models live on the main thread (the store's scheduler is `MainScheduler`, the main queue runs
// `dispatchMain()`), as in an app; a driver thread makes the commits and waits for the model's
// signal. Times are CLOCK_MONOTONIC, which is one clock for every process of the machine, so a
// child process's commit time and this process's signal time can be subtracted.
//
// - P4: another connection in this process commits `UPDATE ... SET points = i` (timed after
//   COMMIT returns) -> the model's `observe(row, \.points)` fires with i. Peer: GRDB 7
//   `ValueObservation` of the same value, a write through the same `DatabasePool` (GRDB only
//   sees its own writes) -> its callback on the main queue.
// - P5: a child process (this executable, `child-writer`) commits `points = i` every 5 ms and
//   prints the time of each commit -> this process's model signal fires with i. Peer: a
//   hand-written watcher polling `PRAGMA data_version` every millisecond on a connection of its
//   own, then reading the value (the cheapest way to notice another process without Tether's
//   change log).
// - Idle: CPU time (user + system, getrusage) of this process over 10 s while a store watches a
//   file nobody writes, with a live query subscribed; the same for the 1 ms poller; and for
//   nothing at all (the process asleep).
// - P6: a live query over 10,000 rows; another connection changes one row; the time
//   `store.refresh()` takes to read the change and send the new result. Peers: re-running the
//   query and rebuilding all 10,000 objects (`fetch` into a fresh store), the raw query alone
//   (10,000 rows read with the C API, no objects), and GRDB `ValueObservation` of the 10,000
//   records (from the start of the write, which it includes, to the callback: GRDB starts
//   fetching before `write` returns).
import Foundation
import Glibc
import Synchronization
import TetherSQLite

@Model
final class LatencyRow {
    var title = ""
    var points = 0
}
extension LatencyRow: PersistentModel {}

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func cpuNanoseconds() -> UInt64 {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1_000
    let system = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1_000
    return user + system
}

func temporaryDatabase(_ name: String) -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-latency-\(UUID().uuidString)").path
    try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory + "/\(name).sqlite"
}

/// Median, p90, p99 and max of nanosecond samples, in microseconds.
struct Summary: CustomStringConvertible {
    let count: Int
    let p50, p90, p99, max: Double

    init(_ samples: [UInt64]) {
        let sorted = samples.sorted()
        func at(_ q: Double) -> Double {
            guard !sorted.isEmpty else { return .nan }
            return Double(sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * q))]) / 1_000
        }
        count = sorted.count
        p50 = at(0.5); p90 = at(0.9); p99 = at(0.99); max = at(1.0)
    }

    var description: String {
        String(format: "%.1f | %.1f | %.1f | %.1f | %d", p50, p90, p99, max, count)
    }
}

/// Receives "value i fired at t" from the main queue.
final class Arrivals: Sendable {
    private let times = Mutex<[Int: UInt64]>([:])
    private let semaphore = DispatchSemaphore(value: 0)
    private let awaited = Atomic<Int>(-1)

    func arrived(_ value: Int) {
        let now = monotonicNanoseconds()
        times.withLock { if $0[value] == nil { $0[value] = now } }
        if awaited.load(ordering: .acquiring) == value { semaphore.signal() }
    }

    /// Waits (up to 1 s) for `value`; returns when it arrived, or nil.
    func wait(for value: Int) -> UInt64? {
        awaited.store(value, ordering: .releasing)
        if let time = times.withLock({ $0[value] }) { return time }
        while true {
            if semaphore.wait(timeout: .now() + 1) == .timedOut { return times.withLock { $0[value] } }
            if let time = times.withLock({ $0[value] }) { return time }
        }
    }

    func time(of value: Int) -> UInt64? { times.withLock { $0[value] } }
}

/// Runs `body` on the main thread (where the models live) and returns its result.
func onMain<T: Sendable>(_ body: @escaping @MainActor @Sendable () throws -> T) -> T {
    DispatchQueue.main.sync { MainActor.assumeIsolated { try! body() } }
}

/// Runs `body` now, on the calling (main) thread, before `dispatchMain()`.
func onMainThreadNow<T>(_ body: () -> T) -> T { body() }

/// What the main thread holds for the benchmarks (main actor only).
@MainActor
enum Live {
    static var stores: [Store] = []
    static var rows: [LatencyRow] = []
    static var subscriptions: [any Disposable] = []
    static func reset() {
        for subscription in subscriptions { subscription.dispose() }
        subscriptions = []
        rows = []
        stores = []
    }
}

/// A file with one LatencyRow (id 1), created through a store (so its table and triggers exist).
func makeRowFile(_ name: String, rows: Int = 1) -> String {
    let path = temporaryDatabase(name)
    onMain {
        let store = try Store(path: path, scheduler: MainScheduler.shared, watchesExternalChanges: false)
        try store.insert(contentsOf: (0..<rows).map { r in let row = LatencyRow(); row.title = "row \(r)"; return row })
        try store.flush()
    }
    return path
}

/// A store on `path` watching for external changes, with row 1 loaded and its points observed.
func watchRow(path: String, arrivals: Arrivals) {
    onMain {
        let store = try Store(path: path, scheduler: MainScheduler.shared)
        let row = try store.load(LatencyRow.self, id: 1)!
        Live.stores.append(store)
        Live.rows.append(row)
        Live.subscriptions.append(observe(row, \.points).subscribe(next: { arrivals.arrived($0) }))
    }
}

// MARK: P4

func p4Tether(iterations: Int) -> [UInt64] {
    let path = makeRowFile("p4")
    let arrivals = Arrivals()
    watchRow(path: path, arrivals: arrivals)
    let writer = try! Connection(path: path)
    var samples: [UInt64] = []
    for i in 1...iterations {
        try! writer.execute("UPDATE LatencyRow SET points = ? WHERE id = 1", [.integer(Int64(i))])
        let committed = monotonicNanoseconds()
        guard let fired = arrivals.wait(for: i) else { preconditionFailure("P4 Tether: value \(i) never arrived") }
        samples.append(fired > committed ? fired - committed : 0)   // the signal can beat the return from COMMIT
        usleep(UInt32.random(in: 500...1_500))
    }
    onMain { Live.reset() }
    return samples
}

// MARK: P5

/// The child process of P5: commits points = 1...n, one every 5 ms, printing "i time" after each.
func childWriter(path: String, count: Int) {
    let connection = try! Connection(path: path)
    var output = ""
    for i in 1...count {
        try! connection.execute("UPDATE LatencyRow SET points = ? WHERE id = 1", [.integer(Int64(i))])
        output += "\(i) \(monotonicNanoseconds())\n"
        usleep(5_000)
    }
    FileHandle.standardOutput.write(Data(output.utf8))
}

/// Starts the child writer and returns each value's commit time.
func runChildWriter(path: String, count: Int) -> [Int: UInt64] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["child-writer", path, "\(count)"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try! process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    precondition(process.terminationStatus == 0, "P5 child failed")
    var commits: [Int: UInt64] = [:]
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let parts = line.split(separator: " ")
        commits[Int(parts[0])!] = UInt64(parts[1])!
    }
    return commits
}

func latencies(commits: [Int: UInt64], arrivals: Arrivals, count: Int) -> (samples: [UInt64], missed: Int) {
    _ = arrivals.wait(for: count)
    var samples: [UInt64] = []
    var missed = 0
    for i in 1...count {
        guard let fired = arrivals.time(of: i), let committed = commits[i] else { missed += 1; continue }
        samples.append(fired > committed ? fired - committed : 0)
    }
    return (samples, missed)
}

func p5Tether(count: Int) -> (samples: [UInt64], missed: Int) {
    let path = makeRowFile("p5")
    let arrivals = Arrivals()
    watchRow(path: path, arrivals: arrivals)
    let commits = runChildWriter(path: path, count: count)
    let result = latencies(commits: commits, arrivals: arrivals, count: count)
    onMain { Live.reset() }
    return result
}

/// The hand-written peer: a thread polling `PRAGMA data_version` every `interval`, reading the
/// value when it changed and handing it to the main queue.
final class DataVersionPoller: Sendable {
    private let stop = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(path: String, interval: useconds_t, arrivals: Arrivals) {
        let thread = Thread { [self] in
            let connection = try! Connection(path: path)
            var version = try! connection.dataVersion()
            while !self.stop.load(ordering: .relaxed) {
                usleep(interval)
                let now = try! connection.dataVersion()
                guard now != version else { continue }
                version = now
                let points = try! connection.scalar("SELECT points FROM LatencyRow WHERE id = 1", as: Int.self) ?? 0
                DispatchQueue.main.async { arrivals.arrived(points) }
            }
            self.done.signal()
        }
        thread.start()
    }

    func cancel() {
        stop.store(true, ordering: .relaxed)
        done.wait()
    }
}

func p5Poller(count: Int) -> (samples: [UInt64], missed: Int) {
    let path = makeRowFile("p5poll")
    let arrivals = Arrivals()
    let poller = DataVersionPoller(path: path, interval: 1_000, arrivals: arrivals)
    let commits = runChildWriter(path: path, count: count)
    let result = latencies(commits: commits, arrivals: arrivals, count: count)
    poller.cancel()
    return result
}

// MARK: Idle

func idleCPU(seconds: UInt32, _ setUp: () -> Void, _ tearDown: () -> Void) -> Double {
    setUp()
    sleep(1)                                  // let start-up work finish
    let before = cpuNanoseconds()
    let start = monotonicNanoseconds()
    sleep(seconds)
    let used = cpuNanoseconds() - before
    let elapsed = monotonicNanoseconds() - start
    tearDown()
    return Double(used) / Double(elapsed) * 100
}

func idleTether() -> Double {
    let path = makeRowFile("idle")
    return idleCPU(seconds: 10, {
        onMain {
            let store = try Store(path: path, scheduler: MainScheduler.shared)
            Live.stores.append(store)
            Live.subscriptions.append(store.observe(LatencyRow.self, orderBy: \.title).subscribe(next: { _ in }))
            let row = try store.load(LatencyRow.self, id: 1)!
            Live.rows.append(row)
            Live.subscriptions.append(observe(row, \.points).subscribe(next: { _ in }))
        }
    }, { onMain { Live.reset() } })
}

func idlePoller() -> Double {
    let path = makeRowFile("idlepoll")
    var poller: DataVersionPoller?
    return idleCPU(seconds: 10, { poller = DataVersionPoller(path: path, interval: 1_000, arrivals: Arrivals()) }, { poller?.cancel() })
}

func idleNothing() -> Double {
    idleCPU(seconds: 10, {}, {})
}

// MARK: P6

let p6Rows = 10_000

/// P6 with Tether: the time from an external commit of one changed row to the live query's new
/// result, measured as the `refresh()` that finds and applies it.
func p6Tether(iterations: Int) -> [UInt64] {
    let path = makeRowFile("p6", rows: p6Rows)
    let results = Atomic<Int>(0)
    onMain {
        let store = try Store(path: path, scheduler: MainScheduler.shared, watchesExternalChanges: false)
        Live.stores.append(store)
        Live.subscriptions.append(store.observe(LatencyRow.self, orderBy: \.title).subscribe(next: { rows in
            precondition(rows.count == p6Rows, "P6: \(rows.count) rows")
            results.add(1, ordering: .relaxed)
        }))
    }
    let writer = try! Connection(path: path)
    var samples: [UInt64] = []
    for i in 1...iterations {
        try! writer.execute("UPDATE LatencyRow SET points = ? WHERE id = ?", [.integer(Int64(i)), .integer(Int64(i % p6Rows + 1))])
        let before = results.load(ordering: .relaxed)
        let elapsed = onMain {
            let start = monotonicNanoseconds()
            try Live.stores[0].refresh()
            return monotonicNanoseconds() - start
        }
        precondition(results.load(ordering: .relaxed) == before + 1, "P6: no new result")
        samples.append(elapsed)
    }
    onMain { Live.reset() }
    return samples
}

/// Re-running the query and rebuilding all objects: `fetch` of the 10,000 rows into a fresh store.
func p6Rebuild(iterations: Int) -> [UInt64] {
    let path = makeRowFile("p6rebuild", rows: p6Rows)
    var samples: [UInt64] = []
    for _ in 1...iterations {
        samples.append(onMain {
            let store = try Store(path: path, scheduler: MainScheduler.shared, watchesExternalChanges: false)
            _ = try store.fetch(LatencyRow.self, where: "id < 0")   // table set up, not measured
            let start = monotonicNanoseconds()
            let rows = try store.fetch(LatencyRow.self, orderBy: \.title)
            let elapsed = monotonicNanoseconds() - start
            precondition(rows.count == p6Rows)
            return elapsed
        })
    }
    return samples
}

/// The raw query alone: the 10,000 rows read with the C API (through Tether's Connection), no objects.
func p6RawQuery(iterations: Int) -> [UInt64] {
    let path = makeRowFile("p6raw", rows: p6Rows)
    let connection = try! Connection(path: path)
    var samples: [UInt64] = []
    for _ in 1...iterations {
        let start = monotonicNanoseconds()
        let statement = try! connection.cachedStatement("SELECT id, title, points FROM LatencyRow ORDER BY title, id")
        var count = 0
        while try! statement.step() {
            _ = try! statement.column(0, as: Int64.self)
            _ = try! statement.column(1, as: String.self)
            _ = try! statement.column(2, as: Int.self)
            count += 1
        }
        statement.reset()
        samples.append(monotonicNanoseconds() - start)
        precondition(count == p6Rows)
    }
    return samples
}

// MARK: Main

func row(_ name: String, _ summary: Summary, _ note: String = "") -> String {
    "| \(name) | \(summary) | \(note) |"
}

/// The 100,000 models the profiling modes insert.
func profileRows() -> [LatencyRow] {
    (0..<100_000).map { r in let row = LatencyRow(); row.title = "row \(r)"; row.points = r; return row }
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "profile-insert" {
    // For profilers: insert 100,000 models into a fresh store, 5 times (not part of the tables).
    // Every store and model is kept until exit, so that the profile shows inserting, not freeing.
    var kept: [Store] = []
    var keptRows: [[LatencyRow]] = []
    for _ in 0..<5 {
        let path = temporaryDatabase("profile")
        let elapsed = onMainThreadNow {
            let store = try! Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
            _ = try! store.fetch(LatencyRow.self, where: "id < 0")
            let rows = profileRows()
            let start = monotonicNanoseconds()
            try! store.insert(contentsOf: rows)
            let elapsed = monotonicNanoseconds() - start
            kept.append(store)
            keptRows.append(rows)
            return elapsed
        }
        print("insert 100,000:", elapsed / 1_000_000, "ms")
    }
    print("kept", kept.count, keptRows.count)
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "profile-p2" {
    // For profilers: P2's work, 100,000 changes over 10,000 stored models (10 each, round
    // robin), then `flush()`, 5 times (not part of the tables). Prints each round's time.
    // Optional arguments: the number of rounds, of models (10 changes each, at most 100,000),
    // and `watch`: the store watches for external changes, as by default.
    let rounds = CommandLine.arguments.count >= 3 ? Int(CommandLine.arguments[2])! : 5
    let models = CommandLine.arguments.count >= 4 ? Int(CommandLine.arguments[3])! : 10_000
    let path = temporaryDatabase("profile-p2")
    onMainThreadNow {
        let store = try! Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: CommandLine.arguments.count >= 5)
        let rows = Array(profileRows().prefix(models))
        try! store.insert(contentsOf: rows)
        for round in 1...rounds {
            let start = monotonicNanoseconds()
            for k in 0..<(models * 10) { rows[k % rows.count].points = round * 10_000_000 + k }
            let set = monotonicNanoseconds()
            try! store.flush()
            let end = monotonicNanoseconds()
            print("sets", (set - start) / 1_000, "µs, flush", (end - set) / 1_000, "µs")
        }
        withExtendedLifetime(rows) {}
    }
    exit(0)
}

@Model
final class ProfileTotals {
    var a = 0
    var b = 0
    var c = 0
    var total: Int { a + b + c }
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "profile-w5d" {
    // For instruction counters (callgrind): W5d's loop, `count` updates of an observed computed
    // total over three inputs. Run with two counts and subtract to get instructions per update.
    let count = Int(CommandLine.arguments[2])!
    let totals = ProfileTotals()
    let received = Atomic<Int>(0)
    let subscription = observe(totals, \.total).subscribe(next: { received.add($0, ordering: .relaxed) })
    for i in 0..<count {
        switch i % 3 {
        case 0: totals.a = i &+ 1
        case 1: totals.b = i &+ 1
        default: totals.c = i &+ 1
        }
    }
    subscription.dispose()
    print("updates", count, "sum", received.load(ordering: .relaxed))
    exit(0)
}

/// `profile-w5d-hand`: W5d's hand-written peer (each input's `didSet` recomputes the total and
/// calls back when it changed), for the same instruction count.
final class ProfileHandTotals {
    var a = 0 { didSet { recompute() } }
    var b = 0 { didSet { recompute() } }
    var c = 0 { didSet { recompute() } }
    private(set) var total = 0
    var onTotal: ((Int) -> Void)?

    private func recompute() {
        let total = a + b + c
        if total != self.total {
            self.total = total
            onTotal?(total)
        }
    }
}

@inline(never)
func makeProfileHandTotals(_ sink: @escaping (Int) -> Void) -> ProfileHandTotals {
    let totals = ProfileHandTotals()
    totals.onTotal = sink
    return totals
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "profile-w5d-hand" {
    let count = Int(CommandLine.arguments[2])!
    let received = Atomic<Int>(0)
    let totals = makeProfileHandTotals { received.add($0, ordering: .relaxed) }
    for i in 0..<count {
        switch i % 3 {
        case 0: totals.a = i &+ 1
        case 1: totals.b = i &+ 1
        default: totals.c = i &+ 1
        }
    }
    print("updates", count, "sum", received.load(ordering: .relaxed))
    exit(0)
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "profile-w5a" {
    // For instruction counters: W5a's loop, `count` sets of a property with one observer.
    let count = Int(CommandLine.arguments[2])!
    let totals = ProfileTotals()
    let received = Atomic<Int>(0)
    let subscription = observe(totals, \.a).subscribe(next: { received.add($0, ordering: .relaxed) })
    for i in 0..<count { totals.a = i &+ 1 }
    subscription.dispose()
    print("sets", count, "sum", received.load(ordering: .relaxed))
    exit(0)
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "profile-w5c-bridged" {
    // For instruction counters: W5c's "read once" row, `count` writes of a property that was
    // read once with the Observation bridge on (so each write is reported to Observation).
    let count = Int(CommandLine.arguments[2])!
    let totals = ProfileTotals()
    var sum = totals.a
    for i in 0..<count { totals.a = i &+ 1 }
    sum &+= totals.b
    print("sets", count, "sum", sum)
    exit(0)
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "time-w5a" {
    // W5a's loop, timed: ns per set over `count` sets, 5 times (for looking at run-to-run modes).
    let count = Int(CommandLine.arguments[2])!
    let totals = ProfileTotals()
    let received = Atomic<Int>(0)
    let subscription = observe(totals, \.a).subscribe(next: { received.add($0, ordering: .relaxed) })
    var line = ""
    for round in 0..<5 {
        let start = monotonicNanoseconds()
        for i in 0..<count { totals.a = i &+ round }
        let elapsed = monotonicNanoseconds() - start
        line += String(format: " %.2f", Double(elapsed) / Double(count))
    }
    subscription.dispose()
    print("ns per set:" + line)
    exit(0)
}

/// `profile-w5a-hand`: W5a's hand-written peer, `didSet { onChange?(x) }`.
final class ProfileHandCounter {
    var x = 0 { didSet { onChange?(x) } }
    var onChange: ((Int) -> Void)?
}

@inline(never)
func makeProfileHandCounter(_ sink: @escaping (Int) -> Void) -> ProfileHandCounter {
    let counter = ProfileHandCounter()
    counter.onChange = sink
    return counter
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "profile-w5a-hand" {
    let count = Int(CommandLine.arguments[2])!
    let received = Atomic<Int>(0)
    let counter = makeProfileHandCounter { received.add($0, ordering: .relaxed) }
    for i in 0..<count { counter.x = i &+ 1 }
    print("sets", count, "sum", received.load(ordering: .relaxed))
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "interleaved" {
    // W5d and W5a, Tether and hand-written, timed in alternation in one process: 40 rounds of
    // `count` updates (sets) each (default 1,000,000). This VM has slow phases of a few hundred
    // milliseconds in which every loop here slows down by about half; package-benchmark runs
    // each row in turn, seconds apart, so a row can land in a slow phase and its peer not.
    // Alternating short chunks puts both in the same phase; each round's ratio compares the
    // two chunks next to each other. The sinks store the value with a plain (relaxed) store.
    let count = CommandLine.arguments.count >= 3 ? Int(CommandLine.arguments[2])! : 1_000_000
    let received = Atomic<Int>(0)
    let totals = ProfileTotals()
    let totalSubscription = observe(totals, \.total).subscribe(next: { received.store($0, ordering: .relaxed) })
    let handTotals = makeProfileHandTotals { received.store($0, ordering: .relaxed) }
    let counter = ProfileTotals()
    let counterSubscription = observe(counter, \.a).subscribe(next: { received.store($0, ordering: .relaxed) })
    let handCounter = makeProfileHandCounter { received.store($0, ordering: .relaxed) }
    func timed(_ body: () -> Void) -> Double {
        let start = monotonicNanoseconds()
        body()
        return Double(monotonicNanoseconds() - start) / Double(count)
    }
    var rows: [(tether5d: Double, hand5d: Double, tether5a: Double, hand5a: Double)] = []
    for _ in 0..<40 {
        let tether5d = timed {
            for i in 0..<count {
                switch i % 3 {
                case 0: totals.a = i &+ 1
                case 1: totals.b = i &+ 1
                default: totals.c = i &+ 1
                }
            }
        }
        let hand5d = timed {
            for i in 0..<count {
                switch i % 3 {
                case 0: handTotals.a = i &+ 1
                case 1: handTotals.b = i &+ 1
                default: handTotals.c = i &+ 1
                }
            }
        }
        let tether5a = timed { for i in 0..<count { counter.a = i &+ 1 } }
        let hand5a = timed { for i in 0..<count { handCounter.x = i &+ 1 } }
        rows.append((tether5d, hand5d, tether5a, hand5a))
    }
    func summary(_ name: String, _ tether: [Double], _ hand: [Double]) {
        let ratios = zip(tether, hand).map { $0 / $1 }.sorted()
        let median = { (values: [Double]) in values.sorted()[values.count / 2] }
        print(String(
            format: "%@: Tether median %.1f ns (%.1f-%.1f), hand-written %.1f ns (%.1f-%.1f); per-round ratio median %.2fx, range %.2f-%.2fx",
            name, median(tether), tether.min()!, tether.max()!, median(hand), hand.min()!, hand.max()!,
            ratios[ratios.count / 2], ratios.first!, ratios.last!
        ))
    }
    summary("W5d", rows.map(\.tether5d), rows.map(\.hand5d))
    summary("W5a", rows.map(\.tether5a), rows.map(\.hand5a))
    withExtendedLifetime((totalSubscription, counterSubscription)) {}
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "load-steps" {
    // On a thread of its own, as package-benchmark runs P3 (off the main thread).
    let rounds = CommandLine.arguments.count >= 3 ? Int(CommandLine.arguments[2])! : 15
    let tetherOnly = CommandLine.arguments.count >= 4 && CommandLine.arguments[3] == "tether-only"
    let thread = Thread { loadSteps(rounds: rounds, tetherOnly: tetherOnly); exit(0) }
    thread.start()
    while true { sleep(1000) }
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "profile-fetch" {
    // For profilers: load 100,000 rows as models into a fresh store, 10 times (not part of the tables).
    let path = temporaryDatabase("profile-fetch")
    onMainThreadNow {
        let store = try! Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        try! store.insert(contentsOf: profileRows())
    }
    // Every store and result is kept until exit, so that the profile shows loading, not freeing.
    var kept: [Store] = []
    var keptRows: [[LatencyRow]] = []
    for _ in 0..<10 {
        let elapsed = onMainThreadNow {
            let store = try! Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
            _ = try! store.fetch(LatencyRow.self, where: "id < 0")
            let start = monotonicNanoseconds()
            let rows = try! store.fetch(LatencyRow.self)
            let elapsed = monotonicNanoseconds() - start
            precondition(rows.count == 100_000)
            kept.append(store)
            keptRows.append(rows)
            return elapsed
        }
        print("fetch 100,000:", elapsed / 1_000_000, "ms")
    }
    print("kept", kept.count, keptRows.count)
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "child-writer" {
    childWriter(path: CommandLine.arguments[2], count: Int(CommandLine.arguments[3])!)
    exit(0)
}

let driver = Thread {
    var lines: [String] = []
    lines.append("### P4: a commit by another connection in this process -> the model's signal (µs)")
    lines.append("")
    lines.append("| version | p50 | p90 | p99 | max | samples | |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    _ = p4Tether(iterations: 50)                                  // warm-up
    lines.append(row("Tether `Store` (watcher, MainScheduler)", Summary(p4Tether(iterations: 500))))
    _ = grdbP4(iterations: 50)
    lines.append(row("GRDB `ValueObservation` (write through its own pool)", Summary(grdbP4(iterations: 500))))
    lines.append("")

    lines.append("### P5: a commit by another process -> this process's model signal (µs)")
    lines.append("")
    lines.append("| version | p50 | p90 | p99 | max | samples | values never seen |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    let tether5 = p5Tether(count: 400)
    lines.append(row("Tether `Store` (inotify + change log)", Summary(tether5.samples), "\(tether5.missed)"))
    let poller5 = p5Poller(count: 400)
    lines.append(row("hand-written `PRAGMA data_version` poll every 1 ms", Summary(poller5.samples), "\(poller5.missed)"))
    lines.append("")

    lines.append("### Idle: CPU use over 10 s with nothing changing (% of one core)")
    lines.append("")
    lines.append("| what | CPU |")
    lines.append("| --- | --- |")
    lines.append(String(format: "| Tether `Store` watching, a live query and a key-path observer | %.3f %% |", idleTether()))
    lines.append(String(format: "| hand-written `PRAGMA data_version` poll every 1 ms | %.3f %% |", idlePoller()))
    lines.append(String(format: "| nothing (the process asleep) | %.3f %% |", idleNothing()))
    lines.append("")

    lines.append("### P6: a live query over 10,000 rows, one row changes (µs)")
    lines.append("")
    lines.append("| version | p50 | p90 | p99 | max | samples | |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    _ = p6Tether(iterations: 5)
    lines.append(row("Tether live query: `refresh()` finds the change, sends the new result", Summary(p6Tether(iterations: 100))))
    lines.append(row("re-run the query and rebuild all objects (`fetch` into a fresh store)", Summary(p6Rebuild(iterations: 20))))
    lines.append(row("the raw query alone (10,000 rows read, no objects)", Summary(p6RawQuery(iterations: 100))))
    _ = grdbP6(iterations: 5)
    lines.append(row("GRDB `ValueObservation` of the 10,000 records (start of the write -> callback)", Summary(grdbP6(iterations: 50))))
    print(lines.joined(separator: "\n"))
    exit(0)
}
driver.start()
dispatchMain()
