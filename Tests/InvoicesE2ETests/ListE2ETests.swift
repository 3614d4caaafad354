import Foundation
import Testing
import TetherSQLite

/// The list: its filter, and its totals when another program changes lines.
extension InvoicesE2ETests {
    @Test func aFilterThatMatchesNothingCanBeClearedAndCtrlNShowsTheNewInvoiceInTheList() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.type("/zzz")
        try pane.keys("Enter")
        try pane.waitFor("an empty list", showing: ["/zzz", "(none: Ctrl-N adds one)"])
        try pane.keys("Escape")                                // clears it, as the hint says
        try pane.waitFor("every invoice again") { $0.contains(self.listRow(3, "Grace Hopper", "2481.78")) && !$0.contains("/zzz") }
        try pane.type("/Ada")
        try pane.keys("Enter")
        try pane.waitFor("one match") { !$0.contains("#2 ") && $0.contains(self.listRow(1, "Ada Lovelace", "2761.56")) }
        try pane.keys("Escape")
        try pane.waitFor("every invoice again") { $0.contains("#2 ") && !$0.contains("/Ada") }
        try pane.type("/zzz")
        try pane.keys("Enter", "C-n")                          // the new invoice is listed
        try pane.waitFor("the new invoice in the list", showing: ["Invoice #4", "Added invoice #4.", "4/4"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }

    @Test func theListsTotalsFollowLinesChangedByAnotherProgramWithoutAKey() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.waitFor("the list", showing: [listRow(2, "张伟 (Zhang Wei)", columns: 16, "734.50")])
        try shell(pane.database, "UPDATE InvoiceLine SET quantity = 9 WHERE invoice_id = (SELECT id FROM Invoice WHERE number = 2)")
        try pane.waitFor("#2's new total, with no key pressed", showing: [listRow(2, "张伟 (Zhang Wei)", columns: 16, "330.53")])
        // An invoice the shell adds, with a line: its total, not 0.00, before it is selected.
        try shell(pane.database, """
            BEGIN;
            INSERT INTO Invoice (number, tax) VALUES (4, 0);
            INSERT INTO InvoiceLine (invoice_id, position, text, quantity, unitPrice) VALUES (last_insert_rowid(), 0, 'Shell', 2, 10.25);
            COMMIT;
            """)
        try pane.waitFor("#4 with its total", showing: [listRow(4, "(no customer)", "20.50")])
        try shell(pane.database, "INSERT INTO InvoiceLine (invoice_id, position, text, quantity, unitPrice) SELECT id, 1, 'More', 1, 1 FROM Invoice WHERE number = 4")
        try pane.waitFor("#4's total after a second line", showing: [listRow(4, "(no customer)", "21.50")])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }

    @Test func aFocusedNumberWiderThanItsBoxIsMarkedWhereItIsCut() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        for _ in 0..<9 { try pane.keys("Tab") }                // Discount %: "10", a 10-column box
        try pane.keys("C-u")
        try pane.type("12.3456789012")
        try pane.waitFor("the start marked as hidden", showing: ["Discount % …56789012"])
        try pane.keys("Home")
        try pane.waitFor("the end marked as hidden", showing: ["Discount % 12.345678…"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }
}

extension InvoicesE2ETests {
    @Test func everyNumberFieldTakesTheSameGrammarWithTheSameMessages() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Tab", "Tab", "Tab", "Tab", "Tab", "C-u")   // line 1's unit price
        for (text, message) in [("1e3", "not a number"), ("1,5", "use a dot for decimals, as in 12.5"), ("", "enter a number")] {
            try pane.keys("C-u")
            if !text.isEmpty { try pane.type(text) }
            try pane.waitFor("the unit price's message for \(text.debugDescription)", showing: ["! line 1 unit price: \(message)"])
        }
        try pane.keys("Escape")
        for _ in 0..<5 { try pane.keys("Tab") }                    // Tax %
        for (text, message) in [("1e2", "not a number"), ("1,5", "use a dot for decimals, as in 12.5"), ("", "enter a number")] {
            try pane.keys("C-u")
            if !text.isEmpty { try pane.type(text) }
            try pane.waitFor("the tax's message for \(text.debugDescription)", showing: ["Tax %      \(text)", "! \(message)"])
        }
        try pane.keys("Escape", "C-c")
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 1, "tax, InvoiceLine.unitPrice") == [20.0, 1250.0])
    }
}
