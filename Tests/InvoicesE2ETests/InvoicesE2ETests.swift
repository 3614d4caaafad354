import Foundation
import Testing
import TetherSQLite

/// The real `invoices` binary, driven in tmux: keys in with `send-keys`, the screen out with
/// `capture-pane`, the database read with a `Connection` of the test's own. Each test has its
/// own tmux server and database, and kills the server at its end.
@Suite("invoices in tmux (end to end)", .serialized)
struct InvoicesE2ETests {
    /// A computed field's row as shown: the label in the form's 10 columns, a space, the
    /// amount right-aligned in 22 columns.
    func amount(_ label: String, _ value: String) -> String {
        label + String(repeating: " ", count: 11 - label.count) + String(repeating: " ", count: 22 - value.count) + value
    }

    /// A list row as shown: number (5 columns), customer (22 columns: ASCII here, or two
    /// columns per Chinese character), total right-aligned in 12 columns.
    func listRow(_ number: Int, _ customer: String, columns: Int? = nil, _ total: String) -> String {
        let tag = "#\(number)"
        return tag + String(repeating: " ", count: 5 - tag.count) + customer
            + String(repeating: " ", count: 22 - (columns ?? customer.count)) + String(repeating: " ", count: 12 - total.count) + total
    }

    /// A line of the invoice as shown: description (28 columns), quantity (9), unit price (14),
    /// amount right-aligned in 19, a space between each.
    func lineRow(_ text: String, columns: Int? = nil, _ quantity: String, _ unitPrice: String, _ amount: String) -> String {
        text + String(repeating: " ", count: 29 - (columns ?? text.count)) + quantity + String(repeating: " ", count: 10 - quantity.count)
            + unitPrice + String(repeating: " ", count: 15 - unitPrice.count) + String(repeating: " ", count: 19 - amount.count) + amount
    }

    /// One row of the database, read by a separate connection: the invoice numbered `number`
    /// joined with its customer (`name`) and its first line (`text`, `InvoiceLine.quantity`...).
    func row(_ database: String, number: Int, _ columns: String) throws -> [SQLiteValue] {
        try Connection(path: database).rows("""
            SELECT \(columns) FROM Invoice LEFT JOIN Customer ON Customer.id = customer_id
            LEFT JOIN InvoiceLine ON InvoiceLine.id = (SELECT id FROM InvoiceLine WHERE invoice_id = Invoice.id ORDER BY position LIMIT 1)
            WHERE number = ?
            """, [.integer(Int64(number))]).first?.values ?? []
    }

    /// Reads the database every 50 ms until `expected` is there, for at most 10 s (the app
    /// commits at the end of the turn that made a change).
    func waitForRow(
        _ database: String, number: Int, _ columns: String, _ expected: [SQLiteValue],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        var found = try row(database, number: number, columns)
        while found != expected, ContinuousClock.now < deadline {
            usleep(50_000)
            found = try row(database, number: number, columns)
        }
        #expect(found == expected, sourceLocation: sourceLocation)
    }

    @Test func typingUpdatesTheComputedFieldsOnScreen() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.waitFor("the first invoice", showing: [
            amount("Total", "2761.56"), listRow(2, "张伟 (Zhang Wei)", columns: 16, "734.50"), InvoiceHelp.text,
            lineRow("Punched cards, box of 500", "2", "1250", "2500.00"), lineRow("Brass gears", "12", "4.75", "57.00"),
        ])

        try pane.keys("Tab", "Tab", "Tab", "Tab", "BSpace")    // line 1's quantity: "2" -> ""
        try pane.type("5")
        try pane.waitFor("the amounts for 5 units, in the line, the form and the list", showing: [
            lineRow("Punched cards, box of 500", "5", "1250", "6250.00"),
            amount("Subtotal", "6307.00"), amount("Total", "6811.56"), listRow(1, "Ada Lovelace", "6811.56"),
        ])

        try pane.keys("Tab", "C-u")                             // unit price: cleared
        try pane.type("2.5")
        try pane.waitFor("the amounts for 5 x 2.5", showing: [
            amount("Subtotal", "69.50"), amount("Discount", "6.95"), amount("Tax", "12.51"), amount("Total", "75.06"),
        ])

        // Esc reverts the field being edited, on screen and in the model.
        try pane.keys("BTab", "BTab", "BTab")                   // the note
        try pane.type(" 和 Co")
        try pane.waitFor("the edited note", showing: ["Note       Analytical engine 和 Co"])
        try pane.keys("Escape")
        try pane.waitFor("the note reverted") { $0.contains("Note       Analytical engine") && !$0.contains("和 Co") }

        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 1, "note, InvoiceLine.quantity, InvoiceLine.unitPrice") == ["Analytical engine", 5, 2.5])
    }

    @Test func quitWithQOrCtrlCThenRelaunchAndEverythingIsThere() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("C-n")
        try pane.waitFor("a new invoice") { $0.contains("Invoice #4") }
        try pane.type("李四 & Co")                               // the customer picker opens
        try pane.waitFor("the picker's offer", showing: ["New customer \"李四 & Co\""])
        try pane.keys("Enter", "Tab")                           // a new customer; the note
        try pane.type("E2E 备注")
        try pane.keys("Tab")                                    // the blank line's description
        try pane.type("Tea")
        try pane.keys("Tab", "BSpace")
        try pane.type("3")
        try pane.keys("Tab", "BSpace")
        try pane.type("7.5")
        try pane.keys("Tab")
        try pane.type("10")
        try pane.keys("Tab", "C-u")
        try pane.type("20")
        try pane.waitFor("the new invoice's total") { $0.contains(amount("Total", "24.30")) }
        // q quits from the list (in a field it would be text).
        for _ in 0..<7 { try pane.keys("BTab") }
        try pane.type("q")
        try pane.waitForPrompt()
        // Quitting closed the store: the database is one file, with no -wal or -shm beside it.
        #expect(!FileManager.default.fileExists(atPath: pane.database + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: pane.database + "-shm"))

        try pane.launch()
        try pane.waitFor("the saved invoice in the list", showing: [listRow(4, "李四 & Co", columns: 9, "24.30")])
        try pane.keys("End")
        try pane.waitFor("the saved invoice in the form", showing: [
            "Invoice #4", "Customer   李四 & Co", "Note       E2E 备注", lineRow("Tea", "3", "7.5", "22.50"), "Discount % 10",
            "Tax %      20", amount("Subtotal", "22.50"), amount("Total", "24.30"),
        ])
        // An edit, then Ctrl-C.
        try pane.keys("Enter", "Tab", "Tab", "Tab", "BSpace")   // the form, the line's quantity
        try pane.type("4")
        try pane.waitFor("the new total") { $0.contains(amount("Total", "32.40")) }
        try pane.keys("C-c")
        try pane.waitForPrompt()

        try pane.launch()
        try pane.keys("End")
        try pane.waitFor("the edit made before Ctrl-C", showing: ["Invoice #4", lineRow("Tea", "4", "7.5", "30.00"), amount("Total", "32.40")])
        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 4, "name, note, text, InvoiceLine.quantity, InvoiceLine.unitPrice, discount, tax")
            == ["李四 & Co", "E2E 备注", "Tea", 4, 7.5, 10.0, 20.0])
    }

    @Test func invalidTextLeavesTheValueFromBeforeTheEditAndQuittingAsks() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Tab", "Tab", "Tab", "Tab")               // line 1's quantity: "2"
        try pane.type("4")
        try pane.waitFor("the total for 24 units") { $0.contains(amount("Total", "32461.56")) }
        try waitForRow(pane.database, number: 1, "InvoiceLine.quantity", [24])

        try pane.type("x")
        // The error under the lines; the invoice back at its quantity from before the edit (2),
        // on screen and in the database: "24" was a prefix of what was typed, never meant.
        try pane.waitFor("the error", showing: ["! line 1 quantity: not a whole number", amount("Total", "2761.56")])
        try waitForRow(pane.database, number: 1, "InvoiceLine.quantity", [2])

        // A later, valid edit of another field is written; the typed text stays, with its error.
        try pane.keys("Tab", "C-u")                             // unit price
        try pane.type("1000")
        try pane.waitFor("the new price's total", showing: [amount("Total", "2221.56"), "! line 1 quantity: not a whole number"])
        try waitForRow(pane.database, number: 1, "InvoiceLine.unitPrice", [1000.0])

        // Quitting says what was not saved, and asks.
        try pane.keys("C-c")
        try pane.waitFor("the question", showing: ["Not saved: line 1 quantity \"24x\". Ctrl-C again quits"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 1, "InvoiceLine.quantity, InvoiceLine.unitPrice") == [2, 1000.0])
    }

    @Test func aPercentOutOfRangeIsNeverStoredAsItsPrefix() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        for _ in 0..<9 { try pane.keys("Tab") }                // the discount: "10"
        try pane.keys("BSpace", "BSpace")
        try pane.type("150")
        try pane.waitFor("the error", showing: ["Discount % 150", "! must be between 0 and 100", amount("Total", "2761.56")])
        try waitForRow(pane.database, number: 1, "discount", [10.0])
        try pane.keys("C-c")
        try pane.waitFor("the question", showing: ["Not saved: Discount % \"150\"."])
        try pane.keys("Escape")                                 // back to the form, and nothing else
        try pane.waitFor("the form again") { $0.contains("Discount % 150") && !$0.contains("Not saved") }
        try pane.keys("Escape")                                 // Esc reverts the field
        try pane.waitFor("the field reverted") { $0.contains("Discount % 10") && !$0.contains("Discount % 150") }
        try pane.keys("C-c")                                    // nothing invalid now: quits at once
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 1, "discount") == [10.0])
    }

    @Test func afterSIGTERMTheTerminalIsRestored() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        let tty = try pane.paneValue("#{pane_tty}")
        let shell = try #require(Int32(try pane.paneValue("#{pane_pid}")))
        try pane.launch()
        let app = try #require(childProcesses(of: shell, named: "invoices").first)

        // While the app runs, its terminal is in raw mode (read from outside the pane).
        let raw = sttyWords(try stty(tty))
        #expect(raw.isSuperset(of: ["-icanon", "-echo", "-isig"]), "\(raw.sorted())")

        kill(app, SIGTERM)
        var screen = try pane.waitForPrompt()
        #expect(!screen.contains("Invoice #"), "the alternate screen is gone")
        #expect(childProcesses(of: shell, named: "invoices").isEmpty)

        try pane.line("stty -a")
        screen = try pane.waitFor("stty's settings") { $0.contains("icanon") && lastLine($0) == TmuxPane.prompt }
        let words = sttyWords(screen)
        #expect(words.isSuperset(of: ["icanon", "echo", "isig", "icrnl", "opost"]), "\(words.sorted())")
        #expect(words.isDisjoint(with: ["-icanon", "-echo", "-isig", "-icrnl", "-opost"]), "\(words.sorted())")
    }

    @Test func twoCopiesOnOneFileSeeEachOthersEdits() throws {
        let (first, second) = try TmuxPane.twoCopies()
        defer { first.close(); second.close() }

        // A number typed in the first copy: the second shows it, and its computed fields follow.
        try first.keys("Tab", "Tab", "Tab", "Tab", "BSpace")    // line 1's quantity: "2" -> ""
        try first.type("7")
        try second.waitFor("the first copy's quantity", showing: [
            lineRow("Punched cards, box of 500", "7", "1250", "8750.00"), amount("Total", "9511.56"), listRow(1, "Ada Lovelace", "9511.56"),
        ])
        // A line added in the second copy, with Chinese text, shows in the first, totals and all.
        try second.keys("C-l")
        try second.type("墨水")
        try second.keys("Tab", "Tab", "BSpace")
        try second.type("10")
        try first.waitFor("the second copy's line", showing: [
            lineRow("墨水", columns: 4, "1", "10", "10.00"), amount("Subtotal", "8817.00"), amount("Total", "9522.36"),
        ])
        // A customer chosen in the second copy reaches the first.
        for _ in 0..<10 { try second.keys("BTab") }            // from line 3's unit price to the customer
        try second.type("王五")
        try second.keys("Enter")
        try first.waitFor("the second copy's customer", showing: ["Customer   王五", listRow(1, "王五", columns: 4, "9522.36")])
        // Deleting a customer who has an invoice is refused, with the invoice named.
        try first.keys("BTab", "BTab", "BTab", "Enter", "C-d")  // from line 1's quantity to the customer
        try first.waitFor("the question", showing: ["Delete customer 王五? y/n"])
        try first.type("y")
        try first.waitFor("the refusal", showing: ["Cannot delete 王五: invoice #1 is billed to them."])
        try first.keys("Escape")
        // An invoice added in one copy appears in the other's list; deleted, it goes.
        try first.keys("C-n")
        try second.waitFor("the new invoice", showing: [listRow(4, "(no customer)", "0.00")])
        try first.keys("C-d")
        try first.type("y")
        try second.waitFor("the invoice gone") { !$0.contains("#4   ") && $0.contains(listRow(3, "Grace Hopper", "2481.78")) }

        try first.keys("C-c")
        try second.keys("C-c")
        try first.waitForPrompt()
        try second.waitForPrompt()
        #expect(try row(first.database, number: 1, "name, InvoiceLine.quantity") == ["王五", 7])
        #expect(try Connection(path: first.database).rows("SELECT number FROM Invoice ORDER BY number").map(\.values) == [[1], [2], [3]])
        #expect(try Connection(path: first.database).rows("SELECT text, unitPrice FROM InvoiceLine WHERE text = '墨水'").map(\.values) == [["墨水", 10.0]])
    }

    @Test func anInvoiceDeletedInOneCopyWhileTheOtherEditsItIsSaidAndTypingGoesNowhere() throws {
        let (first, second) = try TmuxPane.twoCopies()
        defer { first.close(); second.close() }
        try second.keys("Down", "Tab", "Tab")                   // #2's note
        try second.waitFor("invoice #2 in the second copy", showing: ["Invoice #2", "Note       办公用品"])
        try first.keys("Down", "C-d")
        try first.type("y")
        try second.waitFor("the notice", showing: ["Invoice #2 was deleted by another program.", "Invoice #3"])
        try second.type("xyz")                                  // the focus is in the list: nothing is edited
        try second.waitFor("the notice still there", showing: ["Invoice #2 was deleted by another program.", "Note       Compiler consulting"])
        try first.keys("C-c")
        try second.keys("C-c")
        try first.waitForPrompt()
        try second.waitForPrompt()
        #expect(try row(first.database, number: 3, "note") == ["Compiler consulting"])
        #expect(try Connection(path: first.database).rows("SELECT number FROM Invoice ORDER BY number").map(\.values) == [[1], [3]])
    }

    @Test func aFailedSaveStaysOnScreenUntilTheWriteSucceeds() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.waitFor("saved at the start", showing: ["Saved"])
        let locker = try Connection(path: pane.database)
        try locker.execute("BEGIN IMMEDIATE")                   // another program holds the lock
        try pane.keys("Tab", "Tab")                             // the note
        try pane.type("!")
        try pane.waitFor("the failure, in words") {
            $0.contains("Not saved: another program is writing to the file (trying again)") && !$0.contains("SQL")
        }
        try pane.keys("Tab", "Tab")                             // keys do not wipe it
        try pane.waitFor("still there", showing: ["Not saved: another program is writing to the file (trying again)"])
        try locker.execute("ROLLBACK")
        try pane.waitFor("saved once the lock is gone") { $0.contains("Saved") && !$0.contains("Not saved") }
        try waitForRow(pane.database, number: 1, "note", ["Analytical engine!"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }

    @Test func amountsTooWideShowAsHashesOnlyWithoutRoomAndLongTextShowsItsStart() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Tab", "Tab")                             // the note
        try pane.type(" — with a note far longer than its box can show at once")
        try pane.keys("Tab", "Tab", "C-u")                      // line 1's quantity
        try pane.type("1000000")
        try pane.keys("Tab", "C-u")
        try pane.type("1000000000")
        try pane.keys("Tab")
        try pane.waitFor("the exact amounts, and hashes where a total does not fit", showing: [
            lineRow("Punched cards, box of 500", "1000000", "1000000000", "1000000000000000.00"),
            amount("Total", "1080000000000061.56"),
            "#1   Ada Lovelace   1080000000000061.56",   // the name gives the total its room
            "Note       Analytical engine — with a note far longer than i…",
            "Saved",
        ])
        try pane.resize(width: 80, height: 24)                  // no room left: hashes
        try pane.waitFor("hashes in the narrow list", showing: ["#1   Ada Lov… #########"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }

    @Test func ctrlNWithTheLargestNumberTakenSaysSoAndGoesOn() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.waitFor("the list", showing: ["#3   Grace Hopper"])
        // Another program gives an invoice the largest number there is.
        try Connection(path: pane.database).execute("UPDATE Invoice SET number = 9223372036854775807 WHERE number = 3")
        try pane.waitFor("the new number in the list", showing: ["#9223372036854775807 Grace Hop… 2481.78"])
        try pane.keys("C-n")
        try pane.waitFor("the error", showing: ["Cannot add an invoice: no invoice number is left: the largest in use is 9223372036854775807"])
        try pane.keys("Down")                                   // still running, still answering keys
        try pane.waitFor("the selection moved", showing: ["Invoice #2"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try Connection(path: pane.database).rows("SELECT count(*) FROM Invoice").map(\.values) == [[3]])
    }

    @Test func twoCopiesTypingInTheSameFieldSeeThatTheOtherChangedIt() throws {
        let (first, second) = try TmuxPane.twoCopies()
        defer { first.close(); second.close() }
        try first.keys("Tab", "Tab", "End")                     // both in #1's note
        try second.keys("Tab", "Tab", "End")
        // Each copy's text is replaced by the other's, and the field says so, by name.
        let notice = "Note was changed by another program while you typed; it shows the new value."
        /// Whether the note shown ends with `letter`.
        func noteEnds(with letter: Character) -> (String) -> Bool {
            { screen in
                screen.split(separator: "\n").contains { $0.contains("Note       ") && $0.trimmingCharacters(in: .whitespaces).last == letter }
            }
        }
        for round in 0..<5 {
            try first.type("a")
            try second.waitFor("the first copy's letter (round \(round))", noteEnds(with: "a"))
            if round > 0 { try second.waitFor("the notice in the second copy", showing: [notice]) }
            try second.type("b")
            try first.waitFor("the second copy's letter (round \(round))", noteEnds(with: "b"))
            try first.waitFor("the notice in the first copy", showing: [notice])
        }
        // Last writer wins per field: both show the database's note once they are quiet.
        try first.keys("C-c")
        try first.waitForPrompt()
        let note = try #require(try row(first.database, number: 1, "note").first)
        guard case .text(let text) = note else { Issue.record("note: \(note)"); return }
        #expect(text.hasPrefix("Analytical engine") && text.hasSuffix("b"), "\(text)")
        try second.waitFor("the note as stored", showing: ["Note       \(text)"])
        try second.keys("C-c")
        try second.waitForPrompt()
    }

    @Test func aPasteIsTextInOneFieldAndAltKeysMoveByWord() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Tab", "Tab", "C-u")                      // the note, cleared
        // A paste with a Tab and newlines: text in the note, never keys that move the focus.
        try pane.paste("Order 42\tsee attached\nthanks")
        try pane.waitFor("the paste in the note", showing: ["Note       Order 42 see attached thanks"])
        try waitForRow(pane.database, number: 1, "note", ["Order 42 see attached thanks"])
        // Still in the note: M-b moves a word left; typing goes there.
        try pane.keys("M-b")
        try pane.type("many ")
        try pane.waitFor("the word typed before the last one", showing: ["Note       Order 42 see attached many thanks"])
        try pane.keys("C-Left", "C-Left")
        try pane.type("(")
        try pane.keys("M-f")
        try pane.type(")")
        try pane.waitFor("a word put in brackets", showing: ["Note       Order 42 see (attached) many thanks"])
        try waitForRow(pane.database, number: 1, "note", ["Order 42 see (attached) many thanks"])
        // The lines and the list were not touched by the paste.
        try pane.waitFor("the rest as it was", showing: [lineRow("Punched cards, box of 500", "2", "1250", "2500.00"), listRow(1, "Ada Lovelace", "2761.56")])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }

    @Test func ctrlZSuspendsAndFgBringsTheFormBack() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.keys("Tab", "Tab")                             // the note
        try pane.type("!")
        try pane.keys("C-z")
        var screen = try pane.waitForPrompt()
        #expect(screen.contains("Stopped"), "the shell says the job stopped")
        #expect(!screen.contains("Invoice #"), "the normal screen is back")
        try waitForRow(pane.database, number: 1, "note", ["Analytical engine!"])
        try pane.line("fg")
        screen = try pane.waitFor("the form again", showing: ["Invoice #1", "Note       Analytical engine!", InvoiceHelp.text])
        try pane.type("?")                                      // still in the note: the focus kept
        try pane.waitFor("typing goes on", showing: ["Note       Analytical engine!?"])
        try pane.keys("C-c")
        try pane.waitForPrompt()
        try waitForRow(pane.database, number: 1, "note", ["Analytical engine!?"])
    }

    @Test func sigquitEndsTheAppLikeSigtermWithoutACrashReport() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        let shell = try #require(Int32(try pane.paneValue("#{pane_pid}")))
        try pane.launch()
        let app = try #require(childProcesses(of: shell, named: "invoices").first)
        kill(app, SIGQUIT)
        let screen = try pane.waitForPrompt()
        #expect(!screen.contains("Invoice #"), "the alternate screen is gone")
        #expect(!screen.contains("Crash") && !screen.contains("Backtrace") && !screen.contains("Thread"), "\(screen)")
        #expect(childProcesses(of: shell, named: "invoices").isEmpty, "ended, not running on")
    }

    @Test func theCommandLineAndTheTerminalItNeeds() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        let binary = TmuxPane.binary
        /// Runs `command` in the pane's shell and waits until its output shows `text` and the
        /// shell's prompt is back.
        func run(_ command: String, shows text: String) throws {
            try pane.line(command)
            try pane.waitFor("\(text)") { $0.contains(text) && lastLine($0) == TmuxPane.prompt }
        }
        // --help, by swift-argument-parser.
        try run("'\(binary)' --help", shows: "USAGE: invoices [--database <path>] [--adopt]")
        // Refused before any file is touched: no terminal for the output, TERM=dumb, LC_ALL=C.
        try run("'\(binary)' --database '\(pane.database)' > '\(pane.directory)/out.txt'",
                shows: "invoices: standard output is not a terminal")
        try run("TERM=dumb '\(binary)' --database '\(pane.database)'", shows: "invoices: TERM=dumb cannot show the form")
        try run("LC_ALL=C '\(binary)' --database '\(pane.database)'", shows: "invoices: the locale C is not UTF-8")
        #expect(!FileManager.default.fileExists(atPath: pane.database), "no file made")
        try run("'\(binary)' --database=", shows: "Missing value for '--database <path>'")
        // The calculator sample has a --help too (it used to read standard input instead).
        let calculator = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent("calculator").path
        try run("'\(calculator)' --help", shows: "OVERVIEW: y = a + b + c from standard input")
    }

    @Test func anotherProgramsDatabaseIsRefusedUnlessAdopted() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try Connection(path: pane.database).execute("CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO Notes (text) VALUES ('keep me')")
        try pane.line("XDG_STATE_HOME='\(pane.directory)/state' '\(TmuxPane.binary)' --database '\(pane.database)'")
        try pane.waitFor("the refusal") { $0.contains("holds tables of another program (Notes); it was left unchanged.") && lastLine($0) == TmuxPane.prompt }
        #expect(try Connection(path: pane.database).rows("SELECT name FROM sqlite_master WHERE type = 'table'").map(\.values) == [["Notes"]])
        try pane.line("XDG_STATE_HOME='\(pane.directory)/state' '\(TmuxPane.binary)' --database '\(pane.database)' --adopt")
        try pane.waitFor("an empty form", showing: ["No invoice. Ctrl-N adds one."])
        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try Connection(path: pane.database).rows("SELECT text FROM Notes").map(\.values) == [["keep me"]])
    }

    @Test func at80x24EverythingFitsAndBelowTheMinimumNothingIsEdited() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.resize(width: 80, height: 24)
        try pane.launch()
        // The list, the fields, the lines, the totals and the whole short help, with its quit key.
        try pane.waitFor("the form at 80x24", showing: [
            "Invoice #1", "Customer   Ada Lovelace", "Punched cards, …", "Total", "2761.56",
            "Tab/↑↓ move · ^L/^K line · ^N new · ^D delete · F1 help · ^C quit",
        ])
        // An error beside a field is shown whole.
        for _ in 0..<9 { try pane.keys("Tab") }                // the discount: "10"
        try pane.type("00")                                     // 1000
        try pane.waitFor("the whole error", showing: ["Discount % 1000       ! must be between 0 and 100"])
        try pane.keys("Escape")
        // (A lone Escape is a key 50 ms later: it reverts before the window shrinks.)
        let reverted = { (screen: String) in screen.split(separator: "\n").contains { $0.hasSuffix("Discount % 10") } }
        try pane.waitFor("the field reverted", reverted)
        // Too small: said, and keys edit nothing.
        try pane.resize(width: 40, height: 12)
        try pane.waitFor("the notice", showing: ["Window too small: 40x12."])
        try pane.type("123")
        try pane.keys("Tab")
        try pane.type("x")
        try pane.resize(width: 80, height: 24)
        try pane.waitFor("the form again") { reverted($0) && $0.contains("Invoice #1") }
        try pane.keys("C-c")
        try pane.waitForPrompt()
        #expect(try row(pane.database, number: 1, "discount, note") == [10.0, "Analytical engine"])
    }

    @Test func theListFiltersByCustomerShowsWhereTheSelectionIsAndF1ListsEveryKey() throws {
        let pane = try TmuxPane()
        defer { pane.close() }
        try pane.launch()
        try pane.waitFor("the position in the list", showing: [" Invoices" + String(repeating: " ", count: 28) + "1/3  │"])
        try pane.type("/gr")
        try pane.waitFor("the filtered list") { screen in
            ["Invoices /gr▏", "1/1 of 3", "Invoice #3", listRow(3, "Grace Hopper", "2481.78")].allSatisfy(screen.contains)
                && !screen.contains("Ada Lovelace")
        }
        try pane.keys("Enter")                                  // kept; the list has the keys again
        try pane.keys("F1")
        try pane.waitFor("the help", showing: ["Keys (any key closes this help)", "Ctrl-Z                        suspend (fg comes back)"])
        try pane.keys("Escape")                                 // closes the help, does nothing else
        try pane.waitFor("the help closed, the filter kept") { !$0.contains("Keys (any key") && $0.contains("Invoices /gr") }
        try pane.type("/")
        try pane.keys("Escape")                                 // clears the filter
        try pane.waitFor("every invoice again", showing: ["3/3", listRow(1, "Ada Lovelace", "2761.56")])
        try pane.keys("C-c")
        try pane.waitForPrompt()
    }

    /// A file of 100,000 invoices, two copies of the app on it: each opens at once on the first
    /// invoices, End goes to the last, an invoice added in one copy is counted and reached in
    /// the other, and a note typed there is saved.
    @Test func aHundredThousandInvoicesInTwoCopies() throws {
        let first = try TmuxPane()
        defer { first.close() }
        try first.launch()                                      // makes the file
        try first.keys("C-c")
        try first.waitForPrompt()
        try Connection(path: first.database).execute("""
            BEGIN;
            WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 100)
            INSERT INTO Customer (name) SELECT 'Customer ' || k FROM n;
            WITH RECURSIVE n(k) AS (SELECT 4 UNION ALL SELECT k + 1 FROM n WHERE k < 100000)
            INSERT INTO Invoice (number, customer_id, note, tax)
            SELECT k, (SELECT max(id) FROM Customer) - k % 100, 'Invoice ' || k, 20 FROM n;
            INSERT INTO InvoiceLine (invoice_id, position, text, quantity, unitPrice)
            SELECT id, 0, 'Gears', 2, 2.5 FROM Invoice WHERE number > 3;
            COMMIT;
            """)
        let second = try TmuxPane(database: first.database)
        defer { second.close() }
        try first.launch()
        try second.launch()
        try first.waitFor("the first invoices and the count", showing: ["1/100000  │", listRow(1, "Ada Lovelace", "2761.56")])
        try first.keys("End")
        try first.waitFor("the last invoice", showing: ["100000/100000  │", "Invoice #100000", "#100000 Customer"])
        try second.keys("C-n")
        try second.waitFor("the invoice added", showing: ["100001/100001  │", "Invoice #100001"])
        try first.waitFor("the other copy's invoice counted", showing: ["100000/100001  │"])
        try first.keys("Down")
        try first.waitFor("the other copy's invoice reached", showing: ["100001/100001  │", "Invoice #100001"])
        try first.keys("Tab", "Tab")                            // its note
        try first.type("from the first copy")
        try second.waitFor("the note typed in the first copy", showing: ["from the first copy"])
        try first.keys("C-c")
        try second.keys("C-c")
        try first.waitForPrompt()
        try second.waitForPrompt()
        #expect(try row(first.database, number: 100001, "note") == ["from the first copy"])
    }

    /// `stty -a` for another terminal.
    private func stty(_ tty: String) throws -> String {
        try runCommand(["stty", "-a", "-F", tty]).output
    }
}

/// The help line the app shows (InvoiceApp.help; the E2E tests do not link InvoiceKit).
enum InvoiceHelp {
    static let text = "Tab/↑↓ move · Enter confirm · Esc revert · ^L add line · ^K delete line · ^N new invoice · ^D delete · ^C quit · F1 help"
}
