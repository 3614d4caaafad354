import Foundation
import Testing
import TetherSQLite

/// Text of any Unicode content, typed or written by another program (the sqlite3 shell).
extension InvoicesE2ETests {
    /// Runs `sql` in the sqlite3 shell, another program writing to the file.
    func shell(_ database: String, _ sql: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try runCommand(["sqlite3", database, sql])
        #expect(result.status == 0, "sqlite3: \(result.errors)", sourceLocation: sourceLocation)
    }

    @Test func invisibleCharactersTypedOrWrittenByAnotherProgramAreShownAndNothingCrashes() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Tab", "Tab")                             // #1's note
        // Zero width space, left-to-right mark, word joiner, byte order mark: each shown as U+FFFD.
        try pane.type("\u{200B}a\u{200E}b\u{2060}c\u{FEFF}d")
        try pane.waitFor("the note with the invisible characters shown", showing: ["Note       Analytical engine\u{FFFD}a\u{FFFD}b\u{FFFD}c\u{FFFD}d"])
        try waitForRow(pane.database, number: 1, "note", ["Analytical engine\u{200B}a\u{200E}b\u{2060}c\u{FEFF}d"])

        // Another program writes an invisible character and controls into the customers' names.
        try shell(pane.database, "UPDATE Customer SET name = 'Grace' || char(8203) || 'Hopper' WHERE name = 'Grace Hopper'")
        try shell(pane.database, "UPDATE Customer SET name = 'Ada' || char(7) || char(27) || '[2J' || 'Love' WHERE name = 'Ada Lovelace'")
        let rows = [
            listRow(1, "Ada\u{FFFD}\u{FFFD}[2JLove", "2761.56"),   // every row as wide as the others,
            listRow(3, "Grace\u{FFFD}Hopper", "2481.78"),         // its total where it belongs
        ]
        try pane.waitFor("the names shown safely in the running app", showing: rows)
        try pane.keys("C-c")
        try pane.waitForPrompt()
        // And every later start shows them too.
        try pane.launch()
        try pane.waitFor("the names after a new start", showing: rows + ["Customer   Ada\u{FFFD}\u{FFFD}[2JLove"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }
}
