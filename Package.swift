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
    ],
    swiftLanguageModes: [.v6]
)
