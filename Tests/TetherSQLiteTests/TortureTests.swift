import Foundation
import Testing

/// The torture test (Sources/TetherSQLite/TetherSQLite.docc/Persistence.md, "The torture
/// test"), short: a few seeds of several worker processes writing one file through stores, with
/// the sqlite3 shell as one more writer, another program holding the write lock past the busy
/// timeout, a full disk for a moment, and workers killed with SIGKILL; then the checker's
/// invariants. The long soak runs the same executable with more seeds and operations
/// (scripts/torture-soak.sh).
@Suite("Store: the torture test")
struct TortureTests {
    /// Seed 4 runs over 100 cells: a worker writing every cell at once makes commits of more
    /// than 64 rows, which log runs of ids instead of one entry per row.
    @Test("seeded multi-process runs with faults and kills keep every invariant", arguments: [(1, 12), (2, 12), (3, 12), (4, 100)] as [(UInt64, Int)])
    func seededRun(seed: UInt64, cells: Int) throws {
        let process = Process()
        process.executableURL = executableNextToTheTests("tether-torture")
        let arguments = ["--seed", "\(seed)", "--workers", "3", "--operations", "600", "--rows", "\(cells)"]
        process.arguments = ["run"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(text.contains("torture seed \(seed):"), "every run names its seed")
        #expect(process.terminationStatus == 0, "seed \(seed) failed (replay: tether-torture run \(arguments.joined(separator: " "))):\n\(text)")
    }
}

/// An executable of this package, built next to the test bundle.
func executableNextToTheTests(_ name: String) -> URL {
    let directory = Bundle.main.bundleURL.deletingLastPathComponent()
    let executable = directory.appendingPathComponent(name)
    if FileManager.default.fileExists(atPath: executable.path) { return executable }
    return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
}
