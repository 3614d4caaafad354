// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

/// `TETHER_FUZZ=<libFuzzer without main> swift build --product terminal-fuzz`
/// (scripts/fuzz-terminal.sh) builds the terminal toolkit instrumented for libFuzzer and
/// `terminal-fuzz` as a libFuzzer program that runs libFuzzer's driver from its own main; the
/// macro plugin is left alone.
let fuzzLibrary = Context.environment["TETHER_FUZZ"]
let fuzzed: [SwiftSetting] = fuzzLibrary != nil ? [.unsafeFlags(["-sanitize=fuzzer"]), .define("FUZZING")] : []

let package = Package(
    name: "Tether",
    platforms: [.macOS(.v15)],
    products: [
        // The reactive core on its own: no swift-syntax, no SQLite.
        .library(name: "TetherSignals", targets: ["TetherSignals"]),
        // Observable models, bindings and channels; re-exports TetherSignals.
        .library(name: "Tether", targets: ["Tether"]),
        // SQLite persistence for models (libsqlite3, Debian's libsqlite3-dev).
        .library(name: "TetherSQLite", targets: ["TetherSQLite"]),
        // A terminal front-end: raw-mode I/O, pure rendering, widgets bound to channels.
        .library(name: "TetherTerminal", targets: ["TetherTerminal"]),
        // The invoice sample's app, so that the benchmarks can measure its first screen (S2).
        .library(name: "InvoiceKit", targets: ["InvoiceKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // Diagnostics (a binding that ended, changes that could not be written) go through
        // swift-log, so an app routes them where it routes its own logs.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The samples' command lines (`invoices --help`, `calculator --help`).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation`: the DocC catalogs in Sources/*/*.docc.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .target(name: "TetherSignals", dependencies: ["CTetherThread"]),
        .macro(
            name: "TetherMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        // What C gives the Swift code about the calling thread (the thread-local words Tether's
        // dependency tracking finds each thread's state in, and which actor's executor runs it)
        // and about objects (references that neither keep them alive nor give them a side table).
        .target(name: "CTetherThread"),
        .target(
            name: "Tether",
            dependencies: ["TetherSignals", "TetherMacros", "CTetherThread", .product(name: "Logging", package: "swift-log")]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "TetherSQLite", dependencies: ["Tether", "CSQLite", "CTetherThread", .product(name: "Logging", package: "swift-log")]),
        .target(name: "TetherTerminal", dependencies: ["Tether"], swiftSettings: fuzzed),
        .executableTarget(
            name: "calculator", dependencies: ["Tether", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Samples/Calculator"),
        // The invoice form (the README's main command): the model, the app and its keys in a
        // library, so unit tests can drive them; the executable only parses flags and runs it.
        .target(
            name: "InvoiceKit",
            dependencies: [
                "TetherSQLite", "TetherTerminal", .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Samples/InvoiceKit"
        ),
        .executableTarget(name: "invoices", dependencies: ["InvoiceKit"], path: "Samples/Invoices"),
        .testTarget(name: "TetherSignalsTests", dependencies: ["TetherSignals", "TetherTestSupport"]),
        .testTarget(
            name: "TetherMacrosTests",
            dependencies: [
                "TetherMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "TetherTests",
            dependencies: ["Tether", "TetherTestSupport", .product(name: "InMemoryLogging", package: "swift-log")]
        ),
        // A child process the persistence tests start, kill and watch.
        .executableTarget(name: "store-child", dependencies: ["TetherSQLite"], path: "Tests/StoreChild"),
        // The torture test: seeded multi-process runs with faults and kills, and their checker.
        .executableTarget(name: "tether-torture", dependencies: ["TetherSQLite", "TetherTestSupport"], path: "Tests/Torture"),
        // What the tests and the torture executable share (a seeded random generator, an
        // executor that moves an actor between threads).
        .target(name: "TetherTestSupport", dependencies: ["TetherSignals"], path: "Tests/TestSupport"),
        // The key decoder, widgets and renderer under libFuzzer (scripts/fuzz-terminal builds it
        // with -sanitize=fuzzer); built plainly, it replays inputs.
        .target(name: "CTerminalFuzzDriver", path: "Tests/TerminalFuzzDriver"),
        .executableTarget(name: "terminal-fuzz", dependencies: ["TetherTerminal", "CTerminalFuzzDriver"], path: "Tests/TerminalFuzz", swiftSettings: fuzzed,
                          linkerSettings: fuzzLibrary.map { [.unsafeFlags([$0, "-lstdc++"])] } ?? []),
        // InvoiceKit: schema/003_invoice.sql is the sample's Invoice table, checked against it.
        .testTarget(
            name: "TetherSQLiteTests",
            dependencies: [
                "TetherSQLite", "CSQLite", "store-child", "tether-torture", "TetherTestSupport", "InvoiceKit",
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "TetherTerminalTests", dependencies: ["TetherTerminal", "TetherTestSupport"]),
        .testTarget(
            name: "InvoiceKitTests", dependencies: ["InvoiceKit", "TetherTestSupport", .product(name: "Logging", package: "swift-log")],
            exclude: ["Fixtures"]),
        // Drives the real `invoices` binary in tmux (a private tmux server per test).
        .testTarget(name: "InvoicesE2ETests", dependencies: ["invoices", "TetherSQLite"]),
    ],
    swiftLanguageModes: [.v6]
)
