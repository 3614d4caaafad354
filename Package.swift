// swift-tools-version: 6.1
import CompilerPluginSupport
import PackageDescription

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
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
    ],
    targets: [
        .target(name: "TetherSignals"),
        .macro(
            name: "TetherMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ]
        ),
        .target(name: "Tether", dependencies: ["TetherSignals", "TetherMacros"]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "TetherSQLite", dependencies: ["Tether", "CSQLite"]),
        .target(name: "TetherTerminal", dependencies: ["Tether"]),
        .executableTarget(name: "calculator", dependencies: ["Tether"], path: "Samples/Calculator"),
        .testTarget(name: "TetherSignalsTests", dependencies: ["TetherSignals"]),
        .testTarget(
            name: "TetherMacrosTests",
            dependencies: [
                "TetherMacros",
                .product(name: "SwiftSyntaxMacrosTestSupport", package: "swift-syntax"),
            ]
        ),
        .testTarget(name: "TetherTests", dependencies: ["Tether"]),
        // A child process the persistence tests start, kill and watch.
        .executableTarget(name: "store-child", dependencies: ["TetherSQLite"], path: "Tests/StoreChild"),
        .testTarget(name: "TetherSQLiteTests", dependencies: ["TetherSQLite", "CSQLite", "store-child"]),
        .testTarget(name: "TetherTerminalTests", dependencies: ["TetherTerminal"]),
    ],
    swiftLanguageModes: [.v6]
)
