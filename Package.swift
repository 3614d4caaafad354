// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Tether",
    platforms: [.macOS(.v15)],
    products: [
        // The reactive core on its own: no swift-syntax, no SQLite.
        .library(name: "TetherSignals", targets: ["TetherSignals"]),
    ],
    targets: [
        .target(name: "TetherSignals"),
        .testTarget(name: "TetherSignalsTests", dependencies: ["TetherSignals"]),
    ],
    swiftLanguageModes: [.v6]
)
