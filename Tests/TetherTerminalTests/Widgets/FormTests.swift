import Testing
import TetherTerminal

@Suite struct FormTests {
    @Test func firstFocusableWidgetHasTheFocus() {
        let title = Label("Invoice")
        let name = TextField("Name")
        let form = Form([title, name])
        #expect(form.focusedIndex == 1)
        #expect(form.isFocused(name))
        #expect(!form.isFocused(title))
    }

    @Test func aFormMadeAgainKeepsTheFocusedFieldsEditGoing() {
        let a = TextField("A")
        let b = TextField("B", text: "before")
        var form = Form([a, b])
        form.focus(b)
        type(" typed", into: b)
        // Made again (a row added above): B keeps the focus without being told again.
        let added = TextField("Added")
        form = Form([added, a, b], keepingFocusOn: form.focusedWidget)
        #expect(form.isFocused(b))
        _ = form.handle(.escape)
        #expect(b.text == "before", "Esc returns to the text from before the edit")
        // A widget that is not in the new form: the first focusable one, as usual.
        let other = Form([a, added], keepingFocusOn: b)
        #expect(other.isFocused(a))
    }

    @Test func tabAndShiftTabMoveFocusWrappingAndSkippingReadOnlyWidgets() {
        let a = TextField("A")
        let total = ComputedField("Total", Signal<String, Never>.never)
        let b = NumberField<Int>.integer("B")
        let c = TextField("C")
        let form = Form([a, total, b, c])
        #expect(form.handle(.tab) == .handled)
        #expect(form.focusedIndex == 2)
        _ = form.handle(.tab)
        #expect(form.focusedIndex == 3)
        _ = form.handle(.tab)
        #expect(form.focusedIndex == 0)
        _ = form.handle(.backTab)
        #expect(form.focusedIndex == 3)
        _ = form.handle(.backTab)
        #expect(form.focusedIndex == 2)
    }

    @Test func upAndDownMoveFocusWithoutWrapping() {
        let a = TextField("A")
        let b = TextField("B")
        let form = Form([a, b])
        #expect(form.handle(.up) == .handled)
        #expect(form.focusedIndex == 0)
        _ = form.handle(.down)
        #expect(form.focusedIndex == 1)
        _ = form.handle(.down)
        #expect(form.focusedIndex == 1)
    }

    @Test func aListKeepsUpAndDownButTabLeavesIt() {
        let list = ListView<String>(height: 3) { $0 }
        list.setItems(["x", "y"])
        let field = TextField("F")
        let form = Form([list, field])
        _ = form.handle(.down)
        #expect(form.focusedIndex == 0)
        #expect(list.selectedIndex == 1)
        _ = form.handle(.tab)
        #expect(form.focusedIndex == 1)
    }

    @Test func keysGoToTheFocusedField() {
        let a = TextField("A")
        let b = TextField("B")
        let form = Form([a, b])
        _ = form.handle(.character("x"))
        _ = form.handle(.tab)
        _ = form.handle(.character("中"))
        #expect(a.text == "x")
        #expect(b.text == "中")
    }

    @Test func unusedKeysAreIgnoredForTheApp() {
        let list = ListView<String> { $0 }
        let field = TextField("F")
        let form = Form([list, field])
        // In the list, q is not used: the app may quit on it. In a text field it is text.
        #expect(form.handle(.character("q")) == .ignored)
        #expect(form.handle(.control("c")) == .ignored)
        _ = form.handle(.tab)
        #expect(form.handle(.character("q")) == .handled)
        #expect(form.handle(.control("c")) == .ignored)
    }

    @Test func focusChangesStartANewEditForEscape() {
        let a = TextField("A", text: "one")
        let b = TextField("B")
        let form = Form([a, b])
        type("!", into: a)
        _ = form.handle(.tab)            // leaves a with "one!"
        _ = form.handle(.backTab)        // back to a: a new edit starts from "one!"
        type("?", into: a)
        _ = form.handle(.escape)
        #expect(a.text == "one!")
    }

    @Test func focusProgrammatically() {
        let a = TextField("A")
        let total = ComputedField("T", Signal<String, Never>.never)
        let b = TextField("B")
        let form = Form([a, total, b])
        form.focus(b)
        #expect(form.focusedIndex == 2)
        form.focus(total)                // not focusable: no change
        #expect(form.focusedIndex == 2)
        form.focusPrevious()
        #expect(form.focusedIndex == 0)
        form.focusNext()
        #expect(form.focusedIndex == 2)
    }

    @Test func formWithoutFocusableWidgets() {
        let form = Form([Label("x")])
        #expect(form.focusedIndex == nil)
        #expect(form.handle(.tab) == .handled)
        #expect(form.focusedIndex == nil)
        #expect(form.handle(.character("a")) == .ignored)
    }

    @Test func rendersStackedWithAlignedLabelsAndTheCursorInTheFocusedField() {
        let customer = TextField("客户", text: "张三", width: 8)
        let quantity = NumberField<Int>.integer("Quantity", value: 2, width: 4)
        let total = ComputedField("Total", BehaviorSubject<String, Never>("9.00").signal, width: 6, alignment: .trailing)
        let form = Form([Label("Invoice"), customer, quantity, total])
        var screen = Screen(size: Size(width: 22, height: 5))
        form.render(into: &screen, in: screen.bounds)
        #expect(screen.lines == [
            "Invoice               ",
            "客户     张三         ",
            "Quantity 2            ",
            "Total      9.00       ",
            "                      ",
        ])
        #expect(screen.cursor == Position(x: 13, y: 1))
        _ = form.handle(.tab)
        var next = Screen(size: Size(width: 22, height: 5))
        form.render(into: &next, in: next.bounds)
        #expect(next.cursor == Position(x: 10, y: 2))
        #expect(next[9, 2] == Cell("2", style: .reverse))
        #expect(next[9, 1] == Cell("张", style: .underline, width: 2))
    }

    @Test func renderingStopsAtTheBottomOfTheRectangle() {
        let form = Form([Label("one"), Label("two"), Label("three")])
        var screen = Screen(size: Size(width: 5, height: 2))
        form.render(into: &screen, in: screen.bounds)
        #expect(screen.lines == ["one  ", "two  "])
    }

    @Test func renderingPartsInSeveralColumns() {
        let list = ListView<String>(height: 2) { $0 }
        list.setItems(["r1"])
        let field = TextField("F", text: "v", width: 3)
        let form = Form([list, field])
        var screen = Screen(size: Size(width: 10, height: 2))
        let (left, right) = screen.bounds.dividedColumns(at: 4)
        form.render([list], into: &screen, in: left)
        form.render([field], into: &screen, in: right)
        #expect(screen.lines == ["r1  F v   ", "          "])
        // The list has the focus: its selected row is reversed; the field has no cursor.
        #expect(screen[0, 0] == Cell("r", style: .reverse))
        #expect(screen.cursor == nil)
    }
}
