import Foundation
import Testing

/// The calculator sample, fed lines on standard input in the pane's shell.
extension InvoicesE2ETests {
    @Test func theCalculatorAddsDecimalsExactlyAndReportsMalformedNumbers() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        let calculator = URL(fileURLWithPath: TmuxPane.binary).deletingLastPathComponent().appendingPathComponent("calculator").path
        try pane.line("printf 'a 0.1\\nb 0.2\\nc nan\\nc -inf\\nc 0x10\\nc 1e400\\nc 1e3\\nc +1.5\\n' | '\(calculator)'")
        let screen = try pane.waitFor("the sums and the reports") { $0.contains("y = 1.8") && lastLine($0) == TmuxPane.prompt }
        #expect(screen.contains("model:          y = 0.3"), "0.1 + 0.2 is 0.3, not 0.30000000000000004")
        #expect(!screen.contains("0.30000000000000004"))
        for text in ["nan", "-inf", "0x10", "1e400", "1e3"] {
            #expect(screen.contains("! cannot read \"c \(text)\""), "\(text) is reported")
        }
    }
}
