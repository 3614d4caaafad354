import Testing
import TetherTerminal
import TetherTestSupport

@Suite struct TextFieldTests {
    @Test func withoutTheFocusLongTextShowsItsStartCutWithAnEllipsis() {
        let field = TextField("Name", width: 12)
        field.focusDidChange(true)
        type("Rutherford-Montgomery the Third", into: field)
        // Focused: the end, where the cursor is, "…" where the start is hidden.
        #expect(field.rendered(width: 17, focused: true).lines == ["Name … the Third "])
        // Not focused: the start, and "…" where it is cut (never the end cut on the left).
        field.focusDidChange(false)
        #expect(field.rendered(width: 17).lines == ["Name Rutherford-…"])
        // Wide characters: never half of one.
        let chinese = TextField(nil, text: "张伟王小明", width: 5)
        #expect(chinese.rendered(width: 5).lines == ["张伟…"])
    }

    @Test func everyEditIsSentToTheChannel() {
        let field = TextField("Name")
        let sent = Recorder<String, Never>()
        let subscription = sent.record(field.channel.following.signal)
        type("Ab", into: field)
        _ = field.handle(.backspace)
        _ = field.handle(.left)          // a move sends nothing
        _ = field.handle(.backspace)     // at the start: nothing changes, nothing sent
        #expect(sent.values == ["A", "Ab", "A"])
        #expect(field.text == "A")
        subscription.dispose()
    }

    @Test func valuesArrivingAtTheChannelAreShownAndNotEchoed() {
        let field = TextField("Name")
        let sent = Recorder<String, Never>()
        let subscription = sent.record(field.channel.following.signal)
        field.channel.following.sendNext("Grace")
        #expect(field.text == "Grace")
        #expect(field.editor.cursor == 5)
        #expect(sent.values == [])
        subscription.dispose()
    }

    @Test func editsAModelThroughABinding() {
        let invoice = TestInvoice()
        invoice.customer = "Ada"
        let field = TextField("Customer")
        let binding = bind(channel(invoice, \.customer), field.channel.following)
        // The model's value reaches the field first.
        #expect(field.text == "Ada")
        type(" L", into: field)
        #expect(invoice.customer == "Ada L")
        // A change of the model reaches the field.
        invoice.customer = "Grace"
        #expect(field.text == "Grace")
        binding.dispose()
    }

    @Test func chineseTextReachesTheModel() {
        let invoice = TestInvoice()
        let field = TextField("客户")
        let binding = bind(channel(invoice, \.customer), field.channel.following)
        type("张三", into: field)
        #expect(invoice.customer == "张三")
        binding.dispose()
    }

    @Test func escapeRevertsToTheTextAtFocusAndRevertsTheModel() {
        let invoice = TestInvoice()
        invoice.note = "first"
        let field = TextField("Note")
        let binding = bind(channel(invoice, \.note), field.channel.following)
        field.focusDidChange(true)
        type(" draft", into: field)
        #expect(invoice.note == "first draft")
        #expect(field.handle(.escape) == .handled)
        #expect(field.text == "first")
        #expect(invoice.note == "first")
        binding.dispose()
    }

    @Test func enterConfirmsSoEscapeReturnsToTheConfirmedText() {
        let field = TextField("Note", text: "a")
        field.focusDidChange(true)
        type("b", into: field)
        #expect(field.handle(.enter) == .handled)
        type("c", into: field)
        _ = field.handle(.escape)
        #expect(field.text == "ab")
    }

    @Test func aValueFromElsewhereEndsTheEdit() {
        let field = TextField("Note", text: "a")
        field.focusDidChange(true)
        type("b", into: field)
        // Another copy of the app changed the model: it wins, and Esc has nothing to revert.
        field.channel.following.sendNext("remote")
        #expect(field.text == "remote")
        let sent = Recorder<String, Never>()
        let subscription = sent.record(field.channel.following.signal)
        field.revert()
        #expect(field.text == "remote")
        #expect(sent.values == ["ab"])   // only the channel's replay of the last edit sent
        subscription.dispose()
    }

    @Test func switchingTheBoundModelDoesNotLeakTheOldText() {
        let first = TestInvoice()
        first.customer = "Ada"
        let second = TestInvoice()
        second.customer = "Bob"
        let field = TextField("Customer")
        field.bind(to: channel(first, \.customer))
        field.focusDidChange(true)
        type("!", into: field)
        #expect(first.customer == "Ada!")
        field.bind(to: channel(second, \.customer))
        #expect(field.text == "Bob")
        #expect(second.customer == "Bob")
        _ = field.handle(.escape)
        #expect(second.customer == "Bob")
        type("?", into: field)
        #expect(second.customer == "Bob?")
        #expect(first.customer == "Ada!")
        first.customer = "Ada"
        #expect(field.text == "Bob?")
    }

    @Test func bindToShowsTheModelAndEditsIt() {
        let invoice = TestInvoice()
        invoice.note = "备注"
        let field = TextField("Note")
        let binding = field.bind(to: channel(invoice, \.note))
        #expect(field.text == "备注")
        type("一", into: field)
        #expect(invoice.note == "备注一")
        binding.dispose()
        type("二", into: field)
        #expect(invoice.note == "备注一")
    }

    @Test func freeingTheFieldEndsItsBinding() {
        let values = BehaviorSubject<String, Never>("x")
        let terminal = ChannelTerminal<String>(signal: values.signal) { values.sendNext($0) }
        var field: TextField? = TextField("F")
        field?.bind(to: terminal)
        #expect(values.subscriberCount == 1)
        field = nil
        #expect(values.subscriberCount == 0)
    }

    @Test func escapeWithNothingToRevertSendsNothing() {
        let field = TextField("Note", text: "same")
        let sent = Recorder<String, Never>()
        let subscription = sent.record(field.channel.following.signal)
        #expect(field.handle(.escape) == .handled)
        #expect(sent.values == [])
        subscription.dispose()
    }

    @Test func focusKeysAreIgnored() {
        let field = TextField("Note")
        #expect(field.handle(.tab) == .ignored)
        #expect(field.handle(.backTab) == .ignored)
        #expect(field.handle(.up) == .ignored)
        #expect(field.handle(.down) == .ignored)
        #expect(field.handle(.control("c")) == .ignored)
        #expect(field.handle(.character("q")) == .handled)   // q is text in a text field
    }

    @Test func rendersLabelAndBox() {
        let field = TextField("Name", text: "Ada", width: 6)
        let screen = field.rendered(width: 16)
        #expect(screen.lines == ["Name Ada        "])
        #expect(screen[0, 0] == Cell("N"))
        // The box is underlined across its width, the text inside it.
        #expect(screen[5, 0] == Cell("A", style: .underline))
        #expect(screen[10, 0] == Cell(" ", style: .underline))
        #expect(screen[11, 0] == .blank)
        #expect(screen.cursor == nil)
    }

    @Test func focusedFieldIsReversedAndPlacesTheCursor() {
        let field = TextField("Name", text: "Ada", width: 6)
        let screen = field.rendered(width: 16, focused: true, labelWidth: 8)
        #expect(screen.lines == ["Name     Ada    "])
        #expect(screen[0, 0] == Cell("N", style: .bold))
        #expect(screen[9, 0] == Cell("A", style: .reverse))
        #expect(screen.cursor == Position(x: 12, y: 0))
    }

    @Test func rendersChineseTextWithTheCursorAfterIt() {
        let field = TextField("客户", text: "张三", width: 8)
        let screen = field.rendered(width: 16, focused: true)
        #expect(screen.lines == ["客户 张三       "])
        #expect(screen[5, 0] == Cell("张", style: .reverse, width: 2))
        #expect(screen.cursor == Position(x: 9, y: 0))
    }

    @Test func longTextScrollsInTheBox() {
        let field = TextField("N", text: "abcdefghij", width: 4)
        let screen = field.rendered(width: 8, focused: true)
        #expect(screen.lines == ["N …ij   "])   // "…": text before it is hidden
        #expect(screen.cursor == Position(x: 5, y: 0))
    }

    @Test func theFieldIsFreedWhileItsChannelLives() {
        weak var weakField: TextField?
        let channel: Channel<String>
        do {
            let field = TextField("Name")
            weakField = field
            channel = field.channel
        }
        #expect(weakField == nil)
        // The channel outlives the field; values sent to it reach no one and crash nothing.
        channel.following.sendNext("late")
    }
}

extension TextFieldTests {
    @Test func aValueThatReplacesWhatTheUserTypedIsTold() {
        let field = TextField("Note")
        let replaced = Recorder<String, Never>()
        let subscription = replaced.record(field.replacedWhileEditing)
        defer { subscription.dispose() }
        field.channel.following.sendNext("from the model")     // not focused: nothing typed, nothing lost
        field.focusDidChange(true)
        field.channel.following.sendNext("again")              // focused, but nothing typed yet
        #expect(replaced.values == [])
        type("!", into: field)
        field.channel.following.sendNext("theirs")             // typed text replaced: told
        #expect(field.text == "theirs")
        #expect(replaced.values == ["theirs"])
        field.channel.following.sendNext("theirs, later")      // nothing typed since: not told again
        #expect(replaced.values == ["theirs"])
        field.focusDidChange(false)
        type("x", into: field)
        field.channel.following.sendNext("unfocused")
        #expect(replaced.values == ["theirs"])
    }

    @Test func aNumberFieldTellsTooButKeepsAnInvalidDraft() {
        let field = NumberField<Int>.integer("Qty")
        let replaced = Recorder<String, Never>()
        let subscription = replaced.record(field.replacedWhileEditing)
        defer { subscription.dispose() }
        field.channel.following.sendNext(1)
        field.focusDidChange(true)
        type("2", into: field)                                  // "12"
        field.channel.following.sendNext(7)
        #expect(field.text == "7" && replaced.values == ["7"])
        type("x", into: field)                                  // invalid: a draft
        field.channel.following.sendNext(8)
        #expect(field.text == "7x" && replaced.values == ["7"], "the draft is kept, nothing replaced")
    }
}
