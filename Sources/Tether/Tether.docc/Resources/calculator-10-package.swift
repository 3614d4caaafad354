// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Calculator",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Tether, checked out next to this package.
        .package(path: "../tether"),
        // `calculator --help`, and errors for arguments it does not take.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .executableTarget(
            name: "calculator",
            dependencies: [
                .product(name: "Tether", package: "tether"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
)
