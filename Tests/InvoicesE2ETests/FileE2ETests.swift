import Foundation
import Testing
import TetherSQLite

/// The file: another program's, a folder that is not there, the file deleted while the app runs.
extension InvoicesE2ETests {
    /// The bytes of a file, or nil if there is none.
    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test func anotherProgramsFileIsLeftByteForByteAsItWas() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        // The sqlite3 shell's file, in its own (rollback) journal mode.
        try shell(pane.database, "CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO Notes (text) VALUES ('keep me');")
        let before = try #require(bytes(pane.database))
        try pane.line("XDG_STATE_HOME='\(pane.directory)/state' '\(TmuxPane.binary)' --database '\(pane.database)'")
        try pane.waitFor("the refusal") { $0.contains("holds tables of another program (Notes); it was left unchanged.") && lastLine($0) == TmuxPane.prompt }
        #expect(bytes(pane.database) == before, "not one byte changed")
        #expect(!FileManager.default.fileExists(atPath: pane.database + "-wal"))
        // A file with an Invoice table of another program: refused, and unchanged too.
        let other = pane.directory + "/other.sqlite"
        try shell(other, "CREATE TABLE Invoice (id INTEGER PRIMARY KEY, total REAL);")
        let otherBefore = try #require(bytes(other))
        try pane.line("XDG_STATE_HOME='\(pane.directory)/state' '\(TmuxPane.binary)' --database '\(other)'")
        try pane.waitFor("the refusal") { $0.contains("has an Invoice table that is not the invoice app's") && lastLine($0) == TmuxPane.prompt }
        #expect(bytes(other) == otherBefore)
    }

    @Test func aFolderThatDoesNotExistIsSaidAndNothingIsMade() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        let missing = pane.directory + "/no/such/folder"
        try pane.line("XDG_STATE_HOME='\(pane.directory)/state' '\(TmuxPane.binary)' --database '\(missing)/x.sqlite'")
        try pane.waitFor("the message") { $0.contains("the folder \(missing) does not exist") && lastLine($0) == TmuxPane.prompt }
        #expect(!FileManager.default.fileExists(atPath: pane.directory + "/no"), "no folders made")
    }

    @Test func theFileDeletedWhileTheAppRunsIsSaidAtOnceNotSavingForever() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.waitFor("saved", showing: ["Saved"])
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: pane.database + suffix) }
        try pane.keys("Tab", "Tab")
        try pane.type("lost?")
        try pane.waitFor("the title row says why") { $0.contains("Not saved: the file was deleted or replaced") && !$0.contains("Saving…") }
        try pane.keys("C-c")
        try pane.waitFor("the question", showing: ["· invoice #1 (the file was deleted or replaced"])
        try pane.keys("C-c")
        try pane.waitFor("one line about the log, with its path") { screen in
            screen.contains("logged to \(pane.directory)/state/tether/invoices.log") && lastLine(screen) == TmuxPane.prompt
        }
        let log = try String(contentsOfFile: pane.directory + "/state/tether/invoices.log", encoding: .utf8)
        #expect(log.contains("was deleted or replaced while open"))
    }
}
