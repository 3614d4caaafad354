// swift-tools-version: 6.1
// Tether's benchmarks: a package of their own, so that benchmark-only dependencies
// (package-benchmark, OpenCombine) never reach users of Tether.
//
// Run from this folder:   ./run.sh      (or: swift package --disable-sandbox benchmark)
import PackageDescription

// A package depended on by path is identified by its folder's name, which differs between
// checkouts (tether, main, a worktree...): read it from the parent folder's name.
let tether = Context.packageDirectory
    .split(separator: "/", omittingEmptySubsequences: true)
    .dropLast().last.map(String.init) ?? "tether"

let package = Package(
    name: "TetherBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // P1-P3b (persistence) compare Tether's Store with GRDB and with the raw C API.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "TetherBenchmarks",
            dependencies: [
                .product(name: "TetherSignals", package: tether),
                .product(name: "Tether", package: tether),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "TetherSQLite", package: tether),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteBench",
                // T1/T2 (a keystroke in a 20-field form, rendered to a byte sink).
                .product(name: "TetherTerminal", package: tether),
                // S2 (the invoice app's first screen as the file grows).
                .product(name: "InvoiceKit", package: tether),
            ],
            path: "Benchmarks/TetherBenchmarks",
            plugins: [
                .plugin(name: "BenchmarkPlugin", package: "benchmark"),
            ]
        ),
        // W6 (memory per live subscription): a plain executable, without package-benchmark's
        // malloc interposer, which would add a header to every allocation.
        .executableTarget(
            name: "TetherMemory",
            dependencies: [
                .product(name: "TetherSignals", package: tether),
                .product(name: "OpenCombine", package: "OpenCombine"),
                "CMallocInfo",
                // M1-M3 (memory per model): Tether's store, GRDB and the raw C API.
                .product(name: "Tether", package: tether),
                .product(name: "TetherSQLite", package: tether),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteBench",
            ],
            path: "Sources/TetherMemory"
        ),
        .target(name: "CMallocInfo", path: "Sources/CMallocInfo"),
        // P4-P6 and the idle watcher: latencies across threads and processes, CPU time over
        // seconds; a plain executable, like TetherMemory.
        .executableTarget(
            name: "TetherLatency",
            dependencies: [
                .product(name: "TetherSQLite", package: tether),
                .product(name: "GRDB", package: "GRDB.swift"),
                "CSQLiteBench",
            ],
            path: "Sources/TetherLatency"
        ),
        // The raw sqlite3 C API for the hand-written persistence baselines (Tether's own
        // `CSQLite` module is not a product of the Tether package).
        .systemLibrary(
            name: "CSQLiteBench",
            path: "Sources/CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
