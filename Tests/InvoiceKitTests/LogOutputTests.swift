import Foundation
import Logging
import Synchronization
import Testing
import InvoiceKit

/// What `LogOutput` wrote, line by line.
final class WrittenLines: Sendable {
    private let storage = Mutex<[String]>([])
    var lines: [String] { storage.withLock { $0 } }
    func write(_ line: String) { storage.withLock { $0.append(line) } }
}

@Suite("invoices: log messages while the form owns the terminal")
struct LogOutputTests {
    @Test func linesLoggedWhileHeldAreWrittenInOrderAtRelease() {
        let written = WrittenLines()
        let output = LogOutput(path: nil, holds: true, write: { written.write($0) })
        let binding = Logger(label: "tether.binding", factory: output.handler)
        let store = Logger(label: "tether.store", factory: output.handler)

        binding.warning("before the form")
        #expect(written.lines.count == 1, "written at once while nothing is held")

        output.hold()
        binding.warning("binding to Invoice.quantity ended")
        store.error("at exit, 1 changed row could not be written")
        binding.debug("below the default level: dropped")
        #expect(written.lines.count == 1, "nothing reaches the screen while the form is up")
        #expect(output.heldCount == 2)

        output.release()
        #expect(output.heldCount == 0)
        let lines = written.lines.map(Self.withoutTimestamp)
        #expect(lines == [
            "warning tether.binding: [InvoiceKitTests] before the form\n",
            "warning tether.binding: [InvoiceKitTests] binding to Invoice.quantity ended\n",
            "error tether.store: [InvoiceKitTests] at exit, 1 changed row could not be written\n",
        ])

        store.error("after the form")
        #expect(written.lines.count == 4, "written at once again")
    }

    @Test func nothingIsHeldWhenStandardErrorIsNotTheTerminal() {
        let written = WrittenLines()
        let output = LogOutput(path: nil, holds: false, write: { written.write($0) })
        let logger = Logger(label: "tether.store", factory: output.handler)
        output.hold()
        logger.error("written at once")
        #expect(written.lines.count == 1)
        #expect(output.heldCount == 0)
        output.release()
        #expect(written.lines.count == 1, "nothing twice")
    }

    /// The line without the timestamp swift-log's stream handler starts it with.
    static func withoutTimestamp(_ line: String) -> String {
        guard let space = line.firstIndex(of: " ") else { return line }
        return String(line[line.index(after: space)...])
    }
}

extension LogOutputTests {
    @Test func aLogFileUnderXDGStateHomeGetsEveryLineAndTheRunIsSummedUpInOneLine() throws {
        let database = try TemporaryDatabase()
        let path = try #require(LogOutput.defaultPath(environment: ["XDG_STATE_HOME": database.directory + "/state", "HOME": "/nowhere"]))
        #expect(path == database.directory + "/state/tether/invoices.log")
        #expect(LogOutput.defaultPath(environment: ["HOME": "/home/ada"]) == "/home/ada/.local/state/tether/invoices.log")
        #expect(LogOutput.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/ada"]) == "/home/ada/.local/state/tether/invoices.log")
        #expect(LogOutput.defaultPath(environment: [:]) == nil)

        let output = LogOutput(path: path, holds: true, write: { _ in Issue.record("written to standard error") })
        #expect(output.path == path)
        #expect(output.summary() == nil, "nothing logged yet")
        #expect(!FileManager.default.fileExists(atPath: path), "no file until a line is logged")
        let store = Logger(label: "tether.store", factory: output.handler)
        output.hold()
        store.error("a retry failed")
        store.error("at exit, 1 changed row could not be written")
        #expect(output.heldCount == 0, "a file is never held: it does not disturb the form")
        output.release()
        let written = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { Self.withoutTimestamp(String($0)) }
        #expect(written == [
            "error tether.store: [InvoiceKitTests] a retry failed",
            "error tether.store: [InvoiceKitTests] at exit, 1 changed row could not be written",
        ])
        #expect(output.summary() == "2 messages were logged to \(path); the last: error tether.store: [InvoiceKitTests] at exit, 1 changed row could not be written")
    }
}
