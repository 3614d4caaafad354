import Testing
import TetherSQLite
import TetherTerminal
@testable import InvoiceKit

/// The app driven by keys, state -> screen, on a real store (no terminal).
@MainActor
@Suite("InvoiceApp: keys, screen, store")
struct InvoiceAppTests {
    // MARK: Screen

    @Test func rendersTheListTheFieldsAndTheComputedAmounts() throws {
        let h = try Harness()
        let screen = h.screen()
        let lines = h.lines()
        #expect(Array(lines[0...16]) == [
            " Invoices · test.sqlite",
            "",
            " Invoices                                 │ Invoice #1",
            " #1   Ada Lovelace               2700.00  │",
            " #2   张伟 (Zhang Wei)            734.50  │ Customer   Ada Lovelace",
            " #3   Grace Hopper               2280.00  │ Note       Analytical engine: punched cards",
            "                                          │ Quantity   2",
            "                                          │ Unit price 1250",
            "                                          │ Discount % 10",
            "                                          │ Tax %      20",
            "                                          │",
            "                                          │ Subtotal          2500.00",
            "                                          │ Discount           250.00",
            "                                          │ Tax                450.00",
            "                                          │ Total             2700.00",
            "                                          │",
            "                                          │",
        ])
        #expect(lines[39] == InvoiceApp.help)
        // Every row is 120 columns wide, the Chinese one included: 张 and 伟 take two cells each.
        #expect(screen.lines.allSatisfy { DisplayWidth.of($0) == 120 })
        #expect(screen[6, 4].character == "张" && screen[6, 4].width == 2 && screen[7, 4].isContinuation)
        #expect(screen[8, 4].character == "伟" && screen[9, 4].isContinuation)
        // The totals line up: each ends in column 39.
        for row in 3...5 {
            #expect(screen[39, row].character == "0" && screen[40, row].character == " ", "row \(row)")
        }
        // The list has the focus: its selected row is highlighted, no cursor is shown.
        #expect(screen[2, 3].style == Theme.standard.selectedItem)
        #expect(screen.cursor == nil)
    }

    @Test func rowsAndFitMeasureChineseTextByDisplayWidth() {
        #expect(InvoiceApp.fit("张伟 (Zhang Wei)", width: 8) == "张伟 (Z…")
        #expect(InvoiceApp.fit("张伟", width: 6) == "张伟  ")
        #expect(InvoiceApp.fit("张伟", width: 3) == "张…")
        #expect(InvoiceApp.fit("张伟王", width: 4) == "张… ", "a wide character that does not fit leaves a space")
        let invoice = Invoice()
        invoice.number = 12
        invoice.customer = "王小明王小明王小明王小明王小明"
        invoice.unitPrice = 1234.5
        let row = InvoiceApp.row(for: invoice)
        #expect(row == "#12  王小明王小明王小明王…      1234.50")
        #expect(DisplayWidth.of(row) == 39)
        invoice.customer = ""
        #expect(InvoiceApp.row(for: invoice) == "#12  (no customer)              1234.50")
    }

    // MARK: Focus

    @Test func tabShiftTabAndArrowsMoveTheFocus() throws {
        let h = try Harness()
        let app = h.app
        let order: [any Widget] = [app.list, app.customer, app.note, app.quantity, app.unitPrice, app.discount, app.tax]
        func focused() -> Int? { order.firstIndex { app.form.isFocused($0) } }
        #expect(focused() == 0, "the list has the focus first")
        var seen: [Int?] = []
        for _ in 0..<7 {
            h.press(.tab)
            seen.append(focused())
        }
        #expect(seen == [1, 2, 3, 4, 5, 6, 0], "Tab goes through the fields (not the computed ones) and wraps")
        h.press(.backTab)
        #expect(focused() == 6, "Shift-Tab wraps backwards")
        h.press(.up, .up)
        #expect(focused() == 4)
        h.press(.down)
        #expect(focused() == 5)
        h.press(.down, .down)
        #expect(focused() == 6, "Down stops at the last field")
        h.press(.backTab, .backTab, .backTab, .backTab, .backTab, .up)
        #expect(focused() == 0, "Up from the first field goes to the list")
        h.press(.enter)
        #expect(focused() == 1, "Enter in the list edits the selected invoice")
        // The cursor is where the user types: after "Ada Lovelace" in the customer box.
        #expect(h.screen().cursor == Position(x: 55 + 12, y: 4))
    }

    @Test func upAndDownInTheListChooseTheInvoiceTheFormEdits() throws {
        let h = try Harness()
        let invoices = h.app.list.items
        h.press(.down)
        #expect(h.app.current.invoice === invoices[1])
        #expect(h.app.customer.text == "张伟 (Zhang Wei)")
        #expect(h.app.discount.text == "", "no discount: an empty field")
        #expect(h.app.total.text == "734.50")
        let lines = h.lines()
        #expect(lines[2].hasSuffix("│ Invoice #2"))
        #expect(lines[4].hasSuffix("│ Customer   张伟 (Zhang Wei)"))
        #expect(lines[5].hasSuffix("│ Note       办公用品：打印纸 20 箱"))
        #expect(lines[14].hasSuffix("│ Total              734.50"))
        h.press(.down, .down)
        #expect(h.app.current.invoice === invoices[2], "the selection stops at the last invoice")
        h.press(.home)
        #expect(h.app.current.invoice === invoices[0])
        // Edits go to the invoice shown.
        h.press(.end, .tab)
        h.type("!")
        #expect(invoices[2].customer == "Grace Hopper!")
        #expect(invoices[0].customer == "Ada Lovelace")
    }

    // MARK: Editing

    @Test func typingANumberUpdatesTheModelTheComputedFieldsAndTheDatabase() throws {
        let h = try Harness()
        let invoice = try #require(h.app.current.invoice)
        h.press(.tab, .tab, .tab)                   // quantity: "2"
        h.press(.backspace)
        h.type("5")
        #expect(invoice.quantity == 5)
        #expect(h.app.subtotal.text == "6250.00")
        #expect(h.app.total.text == "6750.00")
        h.press(.tab, .control("u"))                // unit price: cleared, "enter a number"
        #expect(h.app.unitPrice.error == "enter a number")
        h.type("2.5")
        h.press(.tab, .control("u"))                // discount: cleared means none
        #expect(h.app.unitPrice.error == nil)
        #expect(invoice.discount == nil)
        h.press(.tab, .control("u"))
        h.type("10")                                // tax
        #expect(close(invoice.total, 13.75))
        let lines = h.lines()
        #expect(lines[3] == " #1   Ada Lovelace                 13.75  │")
        #expect(Array(lines[6...14]).map { String($0.dropFirst(44)) } == [
            "Quantity   5",
            "Unit price 2.5",
            "Discount %",
            "Tax %      10",
            "",
            "Subtotal            12.50",
            "Discount             0.00",
            "Tax                  1.25",
            "Total               13.75",
        ])
        try h.store.flush()
        #expect(try h.database.rows("SELECT quantity, unitPrice, discount, tax FROM Invoice WHERE number = 1") == [[5, 2.5, nil, 10.0]])
    }

    @Test func lettersInANumberFieldShowTheErrorAndKeepTheLastValidValue() throws {
        let h = try Harness()
        let invoice = try #require(h.app.current.invoice)
        h.press(.tab, .tab, .tab)                   // quantity: "2"
        h.type("4")                                 // 24: valid
        try h.store.flush()
        h.type("x")                                 // "24x"
        #expect(h.app.quantity.text == "24x", "the typed text is kept")
        #expect(h.app.quantity.error == "not a whole number")
        #expect(invoice.quantity == 24, "the model keeps its last valid value")
        #expect(h.app.total.text == "32400.00")
        #expect(h.lines()[6].dropFirst(44) == "Quantity   24x            ! not a whole number")
        #expect(h.store.pendingRowCount == 0, "nothing to write")
        try h.store.flush()
        #expect(try h.database.rows("SELECT quantity FROM Invoice WHERE number = 1") == [[24]])
        // Moving on keeps the draft and its error; fixing it writes the value.
        h.press(.tab)
        #expect(h.app.quantity.text == "24x")
        #expect(h.lines()[6].dropFirst(44) == "Quantity   24x            ! not a whole number")
        h.press(.backTab, .backspace)
        #expect(h.app.quantity.error == nil)
        h.type("0")
        #expect(invoice.quantity == 240)
        try h.store.flush()
        #expect(try h.database.rows("SELECT quantity FROM Invoice WHERE number = 1") == [[240]])
    }

    @Test func aPercentOutOfRangeIsAnErrorToo() throws {
        let h = try Harness()
        let invoice = try #require(h.app.current.invoice)
        h.press(.tab, .tab, .tab, .tab, .tab)       // discount: "10"
        h.type("0")                                 // 100: valid
        #expect(invoice.discount == 100)
        h.type("0")                                 // 1000
        #expect(h.app.discount.error == "must be between 0 and 100")
        #expect(invoice.discount == 100)
        #expect(InvoiceApp.parseOptionalPercent("  ") == .success(nil))
        #expect(InvoiceApp.parseOptionalPercent("12,5") == .failure(InvalidInput("use a dot for decimals, as in 12.5")))
    }

    @Test func escRevertsTheFieldAndTheModel() throws {
        let h = try Harness()
        let invoice = try #require(h.app.current.invoice)
        h.press(.tab)                               // customer
        h.type(" & Co")
        #expect(invoice.customer == "Ada Lovelace & Co", "edits reach the model at once")
        h.press(.escape)
        #expect(invoice.customer == "Ada Lovelace")
        #expect(h.app.customer.text == "Ada Lovelace")
        h.press(.tab, .tab, .backspace)             // quantity "" (invalid), then Esc
        h.type("x")
        h.press(.escape)
        #expect(h.app.quantity.text == "2")
        #expect(h.app.quantity.error == nil)
        #expect(invoice.quantity == 2)
        // Enter confirms: Esc then returns to the confirmed text.
        h.press(.backspace)
        h.type("3")
        h.press(.enter)
        h.type("3")
        h.press(.escape)
        #expect(invoice.quantity == 3)
    }

    @Test func chineseTextInTheCustomerField() throws {
        let h = try Harness()
        let invoice = try #require(h.app.current.invoice)
        h.press(.tab, .control("u"))
        h.type("王小明")
        #expect(invoice.customer == "王小明")
        let screen = h.screen()
        #expect(screen[55, 4].character == "王" && screen[55, 4].width == 2)
        #expect(screen.cursor == Position(x: 55 + 6, y: 4), "after three characters of two columns")
        #expect(h.lines()[3] == " #1   王小明                     2700.00  │")
        try h.store.flush()
        #expect(try h.database.rows("SELECT customer FROM Invoice WHERE number = 1") == [["王小明"]])
    }

    // MARK: Quitting

    @Test func qQuitsFromTheListButIsTextInAFieldAndCtrlCAlwaysQuits() throws {
        let h = try Harness()
        #expect(h.app.handle(.key(.character("q"))) == .quit, "the list has the focus")
        h.press(.tab)
        #expect(h.press(.character("q")) == .continue, "in a field, q is text")
        #expect(h.app.current.invoice?.customer == "Ada Lovelaceq")
        #expect(h.press(.tab, .tab, .character("q")) == .continue, "q in a number field is text too")
        #expect(h.app.quantity.text == "2q")
        #expect(h.press(.control("c")) == .quit)
        #expect(h.app.handle(.inputClosed) == .quit)
        #expect(h.app.handle(.resize(Size(width: 80, height: 24))) == .continue)
    }

    // MARK: Adding and deleting

    @Test func ctrlNAddsAnInvoiceAndEditsIt() throws {
        let h = try Harness()
        h.press(.control("n"))
        #expect(h.app.list.items.map(\.number) == [1, 2, 3, 4])
        let added = try #require(h.app.current.invoice)
        #expect(added.number == 4)
        #expect(h.app.list.selectedItem === added)
        #expect(h.app.form.isFocused(h.app.customer))
        #expect(h.app.status.currentMessage == "Added invoice #4.")
        h.type("李四")
        h.press(.tab, .tab, .backspace)
        h.type("4")
        h.press(.tab, .control("u"))
        h.type("2.5")
        h.press(.tab)
        h.type("10")
        h.press(.tab, .control("u"))
        h.type("20")
        #expect(h.app.total.text == "10.80")
        #expect(h.lines()[6] == " #4   李四                         10.80  │ Quantity   4")
        try h.store.flush()
        #expect(try h.database.rows("SELECT number, customer, quantity, unitPrice, discount, tax FROM Invoice ORDER BY number DESC LIMIT 1")
            == [[4, "李四", 4, 2.5, 10.0, 20.0]])
    }

    @Test func ctrlDAsksAndDeletesOnlyOnYes() throws {
        let h = try Harness()
        let invoices = h.app.list.items
        h.press(.down)                              // #2
        h.press(.control("d"))
        #expect(h.app.status.currentMessage == "Delete invoice #2 (张伟 (Zhang Wei))? y/n")
        #expect(h.lines()[39].hasPrefix("Delete invoice #2 (张伟 (Zhang Wei))? y/n"))
        h.press(.character("n"))
        #expect(h.app.list.items.count == 3)
        #expect(h.app.status.currentMessage == "Kept invoice #2.")
        h.press(.control("d"), .character("y"))
        #expect(h.app.status.currentMessage == "Deleted invoice #2.")
        #expect(h.app.list.items.map(\.number) == [1, 3])
        #expect(h.app.current.invoice === invoices[2], "the next invoice is selected")
        #expect(h.app.list.selectedItem === invoices[2])
        #expect(h.app.customer.text == "Grace Hopper")
        #expect(try h.database.rows("SELECT number FROM Invoice ORDER BY number") == [[1], [3]])
        // The last one: the previous becomes the selection.
        h.press(.control("d"), .character("y"))
        #expect(h.app.current.invoice === invoices[0])
    }

    @Test func deletingEveryInvoiceLeavesAnEmptyList() throws {
        let h = try Harness()
        h.press(.tab)                               // deleting from a field works too
        for _ in 0..<3 { h.press(.control("d"), .character("y")) }
        #expect(h.app.list.items.isEmpty)
        #expect(h.app.current.invoice == nil)
        #expect(h.app.form.isFocused(h.app.list))
        let lines = h.lines()
        #expect(lines[2] == " Invoices                                 │ No invoice. Ctrl-N adds one.")
        #expect(lines[3] == " (none: Ctrl-N adds one)                  │")
        #expect(h.app.total.text == "")
        h.press(.tab)
        #expect(h.app.form.isFocused(h.app.list), "no fields to go to")
        h.press(.control("d"))
        #expect(h.app.status.currentMessage == "No invoice to delete.")
        // A store with no invoices left is not seeded again.
        #expect(try seedIfNew(h.store) == false)
        h.press(.control("n"))
        #expect(h.app.current.invoice?.number == 1)
        #expect(h.app.handle(.character("q")) == .continue, "the new invoice's customer field has the focus")
    }

    // MARK: Changes that come without a key

    @Test func redrawsWhenTheSelectedInvoiceChangesWithoutAKey() throws {
        let h = try Harness()
        let invoices = h.app.list.items
        let before = h.redraws.value
        invoices[0].quantity = 9                    // as a live update from another process would
        #expect(h.redraws.value == before + 1)
        #expect(h.app.quantity.text == "9")
        #expect(h.lines()[14].hasSuffix("Total            12150.00"))
        invoices[1].quantity = 9                    // not shown in the form: no redraw for it
        #expect(h.redraws.value == before + 1)
        h.press(.down)
        let selected = h.redraws.value
        invoices[0].quantity = 1
        invoices[1].note = "新的备注"
        #expect(h.redraws.value == selected + 1, "only the selected invoice's changes")
        #expect(h.app.note.text == "新的备注")
    }

    @Test func aNewListRedrawsAndKeepsTheSelectedInvoiceSelected() throws {
        let database = try TemporaryDatabase()
        let store = try Store(path: database.path, scheduler: TestScheduler())
        let lists = Subject<[Invoice], StoreError>()
        let redraws = Counter()
        let app = InvoiceApp(store: store, invoices: lists.signal) { redraws.increment() }
        #expect(app.current.invoice == nil)
        let (a, b, c) = (Invoice(), Invoice(), Invoice())
        a.customer = "A"
        b.customer = "B"
        c.customer = "C"
        lists.sendNext([a, b])
        #expect(redraws.value == 1)
        #expect(app.current.invoice === a, "the first list selects its first invoice")
        _ = app.handle(.down)
        #expect(app.current.invoice === b)
        lists.sendNext([b, c, a])                   // reordered, one more (another process)
        #expect(redraws.value == 2)
        #expect(app.current.invoice === b, "the selection follows the invoice, not the index")
        #expect(app.list.selectedIndex == 0)
        lists.sendNext([c, a])                      // b deleted elsewhere: the one at its place
        #expect(app.current.invoice === c)
        #expect(app.customer.text == "C")
        lists.sendNext([])
        #expect(app.current.invoice == nil)
        lists.sendNext([b])
        #expect(app.current.invoice === b)
    }

    @Test func aFailingListIsReported() throws {
        let database = try TemporaryDatabase()
        let store = try Store(path: database.path, scheduler: TestScheduler())
        let lists = Subject<[Invoice], StoreError>()
        let redraws = Counter()
        let app = InvoiceApp(store: store, invoices: lists.signal) { redraws.increment() }
        lists.sendError(.notStored(model: "Invoice"))
        #expect(app.status.currentMessage == "Cannot read the invoices: this Invoice is not stored in this store: insert it first")
        #expect(redraws.value == 1)
    }
}
