// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Calculator",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Tether, checked out next to this package.
        .package(path: "../tether"),
    ],
    targets: [
        .executableTarget(
            name: "calculator",
            dependencies: [.product(name: "Tether", package: "tether")]
        ),
    ]
)
