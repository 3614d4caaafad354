import Foundation
import Testing
import TetherSQLite
import TetherTerminal
@testable import InvoiceKit

/// The list over many invoices: only the rows on screen are read, the keys move a window over
/// the whole list, and the window follows the selected invoice when others change the file.
@MainActor
@Suite("InvoiceApp: the list as a window over many invoices")
struct WindowedListTests {
    /// The numbers of the invoices the list holds.
    private func numbers(_ h: Harness) -> [Int] { h.app.list.items.map(\.number) }

    /// The position shown after the list's title (`12/1000`, `1/11 of 1000`).
    private func position(_ h: Harness) -> String {
        let title = h.lines()[2]
        guard let found = title.firstMatch(of: /[0-9]+\/[0-9]+( of [0-9]+)?/) else { return "" }
        return String(found.output.0)
    }

    @Test func aThousandInvoicesLoadOnlyTheRowsOnScreen() throws {
        let h = try Harness(invoices: 1000)
        let lines = h.lines()
        #expect(numbers(h) == Array(1...36), "the 36 rows a 40-row window shows")
        #expect(lines[2].contains("1/1000"))
        #expect(lines[3].hasPrefix(" #1   Ada Lovelace"))
        #expect(lines[38].hasPrefix(" #36  Customer"))
        #expect(h.app.current.invoice?.number == 1)
    }

    /// The first screen does not wait for the count: it says "…" until the turn that drew it
    /// ends; a key that needs the count (End) counts at once.
    @Test func theFirstScreenIsDrawnBeforeTheInvoicesAreCounted() throws {
        let h = try Harness(invoices: 1000)
        let app = InvoiceApp(store: h.store)
        let first = app.render(Size(width: 120, height: 40)).lines[2]
        #expect(first.contains("1/…  │") && app.list.items.count == 36)
        h.scheduler.advance()
        #expect(app.render(Size(width: 120, height: 40)).lines[2].contains("1/1000  │"))
        let other = InvoiceApp(store: h.store)
        _ = other.handle(.end)
        #expect(other.current.invoice?.number == 1000)
    }

    @Test func keysMoveTheWindowOverTheWholeList() throws {
        let h = try Harness(invoices: 1000)
        _ = h.screen()
        h.press(.end)
        #expect(h.app.current.invoice?.number == 1000 && position(h) == "1000/1000")
        #expect(numbers(h) == Array(965...1000))
        h.press(.home)
        #expect(h.app.current.invoice?.number == 1 && numbers(h) == Array(1...36))
        h.press(.pageDown)
        #expect(h.app.current.invoice?.number == 37 && position(h) == "37/1000")
        #expect(numbers(h) == Array(2...37), "the window scrolls just enough to show it")
        h.press(.up)
        #expect(h.app.current.invoice?.number == 36 && numbers(h) == Array(2...37))
        for _ in 0..<35 { h.press(.up) }
        #expect(h.app.current.invoice?.number == 1 && numbers(h) == Array(1...36), "up past the window's top scrolls back")
        h.press(.pageUp)
        #expect(h.app.current.invoice?.number == 1, "the first stays the first")
        h.press(.end, .down)
        #expect(h.app.current.invoice?.number == 1000, "and the last the last")
        // The selected invoice is edited like any other: the fields show invoice #1000.
        h.press(.tab, .tab)
        h.type("!")
        try h.store.flush()
        #expect(try h.database.rows("SELECT note FROM Invoice WHERE number = 1000") == [[.text("Invoice 1000!")]])
    }

    @Test func theFilterIsCountedOverTheWholeList() throws {
        let h = try Harness(invoices: 1000)
        h.press(.character("/"))
        h.type("customer 7")
        let expected = try h.store.count(Invoice.self, where: .related(\.customer, .contains(\.name, "Customer 7")))
        #expect(expected > 36)
        #expect(position(h) == "1/\(expected) of 1000")
        #expect(h.app.list.items.allSatisfy { $0.customerName.hasPrefix("Customer 7") })
        h.press(.end)
        #expect(position(h) == "\(expected)/\(expected) of 1000")
        h.press(.enter, .character("/"), .escape)
        let number = try #require(h.app.current.invoice?.number)
        #expect(position(h) == "\(number)/1000", "without the filter, the selected invoice stays selected")
        #expect(h.app.list.items.contains { $0 === h.app.current.invoice })
        h.press(.character("/"))
        h.type("#500")
        #expect(numbers(h) == [500] && position(h) == "1/1 of 1000", "a number finds its invoice")
    }

    @Test func rowsInsertedBeforeTheWindowElsewhereKeepTheSelection() throws {
        let h = try Harness(invoices: 1000)
        _ = h.screen()
        h.press(.end, .up)
        let selected = try #require(h.app.current.invoice)
        let other = try Connection(path: h.database.path)
        try other.execute("WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 10) INSERT INTO Invoice (number) SELECT -k FROM n")
        try h.store.refresh()
        #expect(h.app.current.invoice === selected)
        #expect(position(h) == "1009/1010")
        #expect(h.app.list.selectedItem === selected && numbers(h).last == 1000)
        // Its number changed elsewhere, to the start of the list: followed there.
        try other.execute("UPDATE Invoice SET number = -100 WHERE number = 999")
        try h.store.refresh()
        #expect(h.app.current.invoice === selected && position(h) == "1/1010")
        #expect(h.app.list.selectedItem === selected)
    }

    @Test func deletingAtTheEndKeepsTheWindowFull() throws {
        let h = try Harness(invoices: 1000)
        _ = h.screen()
        h.press(.end, .control("d"), .character("y"))
        #expect(h.app.current.invoice?.number == 999 && position(h) == "999/999")
        #expect(numbers(h) == Array(964...999))
        // Half the list deleted by another program, the selected invoice with it.
        try Connection(path: h.database.path).execute("DELETE FROM Invoice WHERE number > 500")
        try h.store.refresh()
        #expect(numbers(h) == Array(465...500), "the window moved back to the end of the list")
        #expect(h.app.current.invoice?.number == 500 && position(h) == "500/500")
        #expect(h.app.status.currentMessage == "Invoice #999 was deleted by another program.")
    }

    @Test func aSmallerWindowKeepsTheSelectionOnScreen() throws {
        let h = try Harness(invoices: 1000)
        _ = h.screen()
        h.press(.pageDown)
        #expect(h.app.current.invoice?.number == 37)
        let screen = h.app.render(Size(width: 80, height: 24))
        #expect(numbers(h) == Array(18...37), "20 rows, the selected one last")
        #expect(screen.lines[22].hasPrefix(" #37 "))
        _ = h.screen()
        #expect(numbers(h) == Array(18...53), "taller again: the rows after it fill the list")
        #expect(h.app.list.selectedItem?.number == 37)
    }

    @Test func anInvoiceAddedAtTheEndIsShownAndSelected() throws {
        let h = try Harness(invoices: 1000)
        _ = h.screen()
        h.press(.control("n"))
        #expect(h.app.current.invoice?.number == 1001 && position(h) == "1001/1001")
        #expect(h.app.list.selectedItem === h.app.current.invoice)
        #expect(h.app.form.isFocused(h.app.customer))
    }

    /// An invoice added under a filter that does not let it through stays selected though not
    /// listed; deleted by another program, it is said, and the list's selection takes its place.
    @Test func ctrlNWithAFilterThatWouldHideTheNewInvoiceClearsItAndShowsTheInvoice() throws {
        let h = try Harness()
        h.press(.character("/"))
        h.type("zzz")
        h.press(.enter)
        #expect(h.app.list.items.isEmpty && h.app.filter == "zzz")
        h.press(.control("n"))
        let added = try #require(h.app.current.invoice)
        #expect(h.app.filter == nil, "the filter is cleared")
        #expect(added.number == 4 && h.app.list.selectedItem === added, "listed, and selected")
        try Connection(path: h.database.path).execute("DELETE FROM Invoice WHERE number = 4")
        try h.store.refresh()
        #expect(h.app.current.invoice?.number == 3, "the invoice now at its place")
        #expect(h.app.status.currentMessage == "Invoice #4 was deleted by another program.")
        #expect(h.app.form.isFocused(h.app.list))
    }

    @Test func aFilterThatMatchesNothingIsClearedWithEscOrRetypedWithSlash() throws {
        let h = try Harness()
        h.press(.character("/"))
        h.type("zzz")
        h.press(.enter)
        #expect(h.app.list.items.isEmpty && h.app.current.invoice == nil)
        h.press(.character("/"))                     // typed on from what it is
        #expect(h.app.isTypingFilter && h.app.filter == "zzz")
        h.press(.backspace, .backspace, .backspace)
        h.type("Ada")
        h.press(.enter)
        #expect(h.app.list.items.map(\.number) == [1])
        h.press(.escape)                             // after Enter, Esc clears it, as the hint says
        #expect(h.app.filter == nil && h.app.list.items.map(\.number) == [1, 2, 3])
        h.press(.character("/"))
        h.type("zzz")
        h.press(.enter, .escape)
        #expect(h.app.filter == nil && h.app.list.items.count == 3 && h.app.current.invoice != nil)
    }
}
