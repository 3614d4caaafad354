import Foundation
import Testing
import TetherSQLite

/// Where keys land when what the focus is in goes away, and what quitting asks.
extension InvoicesE2ETests {
    @Test func aLineDeletedInTheOtherCopyTakesTheFocusToTheListAndTypingGoesNowhere() throws {
        let (first, second) = try TmuxPane.twoCopies()
        defer { first.close(); second.close() }
        for _ in 0..<6 { try first.keys("Tab") }              // #1's line 2, its description
        try first.type("!")
        try first.waitFor("the edit in line 2", showing: [lineRow("Brass gears!", "12", "4.75", "57.00")])
        for _ in 0..<6 { try second.keys("Tab") }
        try second.keys("C-k")
        try second.waitFor("the question", showing: ["Delete line 2 (Brass gears!)? y/n"])
        try second.type("y")
        try first.waitFor("the notice", showing: ["Line 2 of invoice #1 was deleted by another program."])
        try first.type("typed on, and q")                    // nothing is edited, and q does not quit
        try first.keys("C-c")
        try first.waitForPrompt()
        try second.keys("C-c")
        try second.waitForPrompt()
        #expect(try Connection(path: first.database).rows("SELECT text FROM InvoiceLine WHERE invoice_id = 1 ORDER BY position").map(\.values)
            == [["Punched cards, box of 500"]])
        #expect(try row(first.database, number: 1, "note") == ["Analytical engine"])
    }

    @Test func deletingTheInvoiceBeingEditedLeavesTheFocusInTheList() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Down", "Tab", "Tab")                    // #2's note
        try pane.waitFor("invoice #2", showing: ["Invoice #2"])
        try pane.keys("C-d")
        try pane.type("y")
        try pane.waitFor("invoice #3 shown", showing: ["Deleted invoice #2.", "Invoice #3"])
        try pane.type("abc")                                   // in the list: edits nothing
        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 3, "note") == ["Compiler consulting"])
    }

    @Test func quittingWithChangesNotWrittenSaysWhatWouldBeLostAndTheAnswerIsNotTyped() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        // A line with a price but no description: the app keeps it back.
        try pane.keys("C-l")
        try pane.waitFor("the new line", showing: ["Added line 3."])
        try pane.keys("Tab", "Tab", "C-u")
        try pane.type("5")
        try pane.waitFor("the rule", showing: ["! line 3 description: describe what was sold"])
        try pane.keys("C-c")
        try pane.waitFor("the question", showing: [
            "Quit? These changes are not saved and would be lost:", "· line 3 of invoice #1 (description: describe what was sold)",
            "Ctrl-C or q quits anyway; any other key goes back to the form.",
        ])
        try pane.type("7")                                     // goes back, and is not typed
        try pane.waitFor("the form again", showing: [lineRow("", columns: 0, "1", "5", "5.00")])
        try pane.keys("BTab", "BTab")                          // its description
        try pane.type("Ink")
        try pane.waitFor("the line valid", showing: [lineRow("Ink", "1", "5", "5.00")])
        try pane.keys("C-c")                                   // nothing to lose: quits at once
        try pane.waitForPrompt()
        #expect(try Connection(path: pane.database).rows("SELECT text, unitPrice FROM InvoiceLine WHERE invoice_id = 1 ORDER BY position").map(\.values)
            == [["Punched cards, box of 500", 1250.0], ["Brass gears", 4.75], ["Ink", 5.0]])

        // Another program holds the lock: the change cannot be written; quitting says so.
        try pane.launch()
        let locker = try Connection(path: pane.database)
        try locker.execute("BEGIN IMMEDIATE")
        try pane.keys("Tab", "Tab")
        try pane.type("?")
        try pane.keys("C-c")
        try pane.waitFor("the question", showing: ["· invoice #1 (another program is writing to the file (trying again))"], timeout: .seconds(20))
        try pane.keys("C-c")                                   // quit anyway: asked, and answered
        try pane.waitForPrompt()
        try locker.execute("ROLLBACK")
        #expect(try row(pane.database, number: 1, "note") == ["Analytical engine"])
    }
}

extension InvoicesE2ETests {
    @Test func twoCopiesTypingInTheSameFieldAtOnceSayWhenTheOtherReplacedTheText() throws {
        let (first, second) = try TmuxPane.twoCopies()
        defer { first.close(); second.close() }
        try first.keys("Tab", "Tab")                            // #1's note in both
        try second.keys("Tab", "Tab")
        for round in 0..<20 {
            try first.type("a")
            try second.type("b")
            if round % 4 == 0 { usleep(30_000) }                // let commits cross
        }
        let notice = "Note was changed by another program while you typed; it shows the new value."
        // Last writer wins: both copies end on what the file holds, and a copy whose text was
        // replaced says so while its focus stays in the field.
        let deadline = ContinuousClock.now + .seconds(10)
        var note = ""
        var screens = ("", "")
        repeat {
            usleep(100_000)
            guard case .text(let text)? = try row(first.database, number: 1, "note").first else { continue }
            note = text
            screens = (try first.capture(), try second.capture())
        } while !(screens.0.contains("Note       \(note)") && screens.1.contains("Note       \(note)")) && ContinuousClock.now < deadline
        #expect(screens.0.contains("Note       \(note)") && screens.1.contains("Note       \(note)"), "both copies show the file's note \(note)")
        #expect(screens.0.contains(notice) || screens.1.contains(notice), "the copy whose typing was replaced says so:\n\(screens.0)\n\(screens.1)")
        try first.keys("C-c")
        try second.keys("C-c")
        try first.waitForPrompt()
        try second.waitForPrompt()
    }
}
