import Foundation
import Testing
@testable import TetherSQLite

/// Runs the `store-child` executable built next to the test bundle.
final class Child {
    let process = Process()
    let output = Pipe()
    let input = Pipe()

    /// Starts `store-child` with `arguments`; its standard error goes to `errors` if given
    /// (else to the test's).
    init(_ arguments: [String], errors: FileHandle? = nil) throws {
        let directory = Bundle.main.bundleURL.deletingLastPathComponent()
        var executable = directory.appendingPathComponent("store-child")
        if !FileManager.default.fileExists(atPath: executable.path) {
            executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("store-child")
        }
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = output
        if let errors { process.standardError = errors }
        process.standardInput = input
        try process.run()
    }

    /// Writes `line` and a newline to the child's standard input.
    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Reads lines until `stop` returns true (or the child ends); returns the lines read.
    func readLines(until stop: ([String]) -> Bool) -> [String] {
        var buffer = Data()
        var lines: [String] = []
        let handle = output.fileHandleForReading
        while !stop(lines) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: 0x0A) {
                lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
        return lines
    }
}

@Suite("Store: crash safety and exit")
struct CrashTests {
    @Test func killedMidBurstTheDatabaseIsIntactAndHoldsEveryFlushedChange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-crash-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/crash.sqlite"

        let child = try Child(["burst", path])
        let lines = child.readLines { $0.count >= 30 }
        kill(child.process.processIdentifier, SIGKILL)     // in the middle of the burst
        child.process.waitUntilExit()
        #expect(child.process.terminationReason == .uncaughtSignal)

        let lastFlushed = try #require(lines.last.flatMap { Int($0.split(separator: " ").last ?? "") })
        #expect(lastFlushed >= 300)
        let connection = try Connection(path: path)
        #expect(try connection.rows("PRAGMA integrity_check").first?[0] == .text("ok"))
        let rows = try connection.rows("SELECT points, title FROM Ticket")
        #expect(rows.count == 50)
        for row in rows {
            guard case .integer(let points) = row[0], case .text(let title) = row[1] else {
                Issue.record("unexpected row \(row)")
                continue
            }
            #expect(points >= Int64(lastFlushed), "every change whose flush() returned is there")
            #expect(title == "v\(points)", "each row is consistent: both columns from one commit")
        }
    }

    @Test func pendingChangesAreFlushedOnNormalExit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-exit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/exit.sqlite"

        let child = try Child(["exit", path])
        _ = child.readLines { _ in false }
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)
        let connection = try Connection(path: path)
        let rows = try connection.rows("SELECT DISTINCT points FROM Ticket")
        #expect(rows.map { $0[0] } == [.integer(777)])
    }
}
