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
    ],
    targets: [
        .executableTarget(
            name: "TetherBenchmarks",
            dependencies: [
                .product(name: "TetherSignals", package: tether),
                .product(name: "Tether", package: tether),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
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
            ],
            path: "Sources/TetherMemory"
        ),
        .target(name: "CMallocInfo", path: "Sources/CMallocInfo"),
    ],
    swiftLanguageModes: [.v6]
)
