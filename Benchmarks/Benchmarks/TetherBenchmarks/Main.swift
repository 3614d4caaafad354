// Tether's benchmarks, run by package-benchmark: `./run.sh` (or
// `swift package --disable-sandbox benchmark`) in the Benchmarks folder.
//
// Each workload is measured three ways in the same run: Tether, OpenCombine, and hand-written
// closures (see HandWritten.swift). Names are "W<n> <what> — <Tether|OpenCombine|Hand>";
// Benchmarks/summarize.py turns the results into the tables of docs/PERFORMANCE.md.
//
// The model workloads (W5a-W5d, W8: W5.swift, W8.swift, HandWrittenModels.swift) have more
// versions: Tether with the Observation bridge on and off ("Tether (bridge on)", "Tether
// (bridge off)"), hand-written, OpenCombine's CurrentValueSubject and @Published, and Swift's
// Observation.
//
// The persistence workloads (P1-P3b: P1P3.swift) compare Tether's Store with GRDB 7 Codable
// records (GRDBRecords.swift) and the raw sqlite3 C API (HandWrittenSQLite.swift); P9 (P9.swift)
// compares a typed condition with the same query written as an SQL string.
//
// The terminal workloads (T1/T2: T1.swift) type into a 20-field TetherTerminal form rendered to
// a byte sink, next to hand-written versions of the same form (HandWrittenTerminal.swift).
import Benchmark

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        units: [.mallocCountTotal: .count],
        warmupIterations: 3,
        // Every row is measured for 2 s (or its own duration), not for a number of samples:
        // 1,000 samples of a few-ns operation took tens of milliseconds, one slice of this
        // machine's slow and fast phases, so a row and its peer, measured seconds apart, could
        // land in different ones.
        maxDuration: .seconds(2),
        maxIterations: 10_000_000
    )
    registerW1()
    registerW2()
    registerW3()
    registerW4()
    registerW7()
    registerW5()
    registerW8()
    registerW9()
    registerPersistence()
    registerP9()
    registerP7P8()
    registerP10()
    registerS1()
    registerS1WithoutAnIndex()
    registerS3()
    registerS2()
    registerT1()
    registerTetherOperatorBenchmarks()
    registerCalibration()
}
