import Testing
import TetherTerminal
import TetherTestSupport

@Suite struct NumberFieldTests {
    @Test func validEditsAreSentAsNumbers() {
        let field = NumberField<Int>.integer("Qty")
        let sent = Recorder<Int, Never>()
        let subscription = sent.record(field.channel.following.signal)
        type("12", into: field)
        _ = field.handle(.backspace)
        #expect(sent.values == [1, 12, 1])
        #expect(field.error == nil)
        #expect(field.value == 1)
        subscription.dispose()
    }

    @Test func lettersShowAnErrorSendNothingAndKeepTheText() {
        let invoice = TestInvoice()
        invoice.quantity = 3
        let field = NumberField<Int>.integer("Quantity")
        let binding = bind(channel(invoice, \.quantity), field.channel.following)
        let sent = Recorder<Int, Never>()
        let subscription = sent.record(field.channel.following.signal)
        #expect(field.text == "3")
        type("x", into: field)
        #expect(field.text == "3x")
        #expect(field.error == "not a whole number")
        #expect(invoice.quantity == 3)
        type("y", into: field)
        #expect(field.text == "3xy")
        #expect(invoice.quantity == 3)
        // Fixing the text sends the value and clears the error.
        _ = field.handle(.backspace)
        _ = field.handle(.backspace)
        type("5", into: field)
        #expect(field.text == "35")
        #expect(field.error == nil)
        #expect(invoice.quantity == 35)
        // The only value the field sent: 35.
        #expect(sent.values == [35])
        subscription.dispose()
        binding.dispose()
    }

    @Test func escapeRevertsToTheModelValueAndClearsTheError() {
        let invoice = TestInvoice()
        invoice.quantity = 4
        let field = NumberField<Int>.integer("Quantity")
        let binding = bind(channel(invoice, \.quantity), field.channel.following)
        field.focusDidChange(true)
        type("a", into: field)
        #expect(field.error != nil)
        #expect(field.handle(.escape) == .handled)
        #expect(field.text == "4")
        #expect(field.error == nil)
        #expect(invoice.quantity == 4)
        binding.dispose()
    }

    @Test func escapeAfterValidEditsRevertsTheModelToo() {
        let invoice = TestInvoice()
        invoice.quantity = 4
        let field = NumberField<Int>.integer("Quantity")
        let binding = bind(channel(invoice, \.quantity), field.channel.following)
        field.focusDidChange(true)
        type("2", into: field)
        #expect(invoice.quantity == 42)
        type("z", into: field)
        #expect(invoice.quantity == 4, "invalid text: the value from before the edit, not the prefix 42")
        _ = field.handle(.backspace)
        #expect(field.text == "42" && invoice.quantity == 42, "valid again: sent again")
        type("z", into: field)
        _ = field.handle(.escape)
        #expect(field.text == "4")
        #expect(invoice.quantity == 4)
        binding.dispose()
    }

    @Test func enterConfirmsOnlyValidText() {
        let field = NumberField<Int>.integer("Qty", value: 1)
        field.focusDidChange(true)
        type("0", into: field)              // 10
        #expect(field.handle(.enter) == .handled)
        type("x", into: field)              // 10x: invalid
        #expect(field.handle(.enter) == .handled)
        #expect(field.error == "not a whole number")
        _ = field.handle(.escape)
        #expect(field.text == "10")         // the confirmed value, not the one before it
    }

    @Test func aModelValueArrivingDuringInvalidTextKeepsTheDraft() {
        let field = NumberField<Int>.integer("Qty", value: 1)
        field.focusDidChange(true)
        type("x", into: field)
        field.channel.following.sendNext(7)   // another copy changed the model
        #expect(field.text == "1x")
        #expect(field.error == "not a whole number")
        #expect(field.value == 7)
        // Esc returns to the model's value, which is now 7: nothing to send.
        let sent = Recorder<Int, Never>()
        let subscription = sent.record(field.channel.following.signal)
        _ = field.handle(.escape)
        #expect(field.text == "7")
        #expect(field.error == nil)
        #expect(sent.values == [])
        subscription.dispose()
    }

    @Test func aModelValueArrivingWhileUnfocusedReplacesAnInvalidDraft() {
        let field = NumberField<Int>.integer("Qty", value: 1)
        field.focusDidChange(true)
        type("x", into: field)
        field.focusDidChange(false)
        // Another record is shown in the form: its value replaces the abandoned draft.
        field.channel.following.sendNext(8)
        #expect(field.text == "8")
        #expect(field.error == nil)
    }

    @Test func switchingTheBoundModelDoesNotLeakTheOldValue() {
        let first = TestInvoice()
        first.quantity = 2
        let second = TestInvoice()
        second.quantity = 5
        let field = NumberField<Int>.integer("Quantity")
        field.bind(to: channel(first, \.quantity))
        field.focusDidChange(true)
        type("0x", into: field)
        #expect(first.quantity == 2, "invalid text: the value from before the edit")
        #expect(field.error != nil)
        // Show the second record: its value replaces the first record's draft.
        field.bind(to: channel(second, \.quantity))
        #expect(field.text == "5")
        #expect(field.error == nil)
        #expect(second.quantity == 5)
        _ = field.handle(.escape)
        #expect(second.quantity == 5)
        // The first binding ended: edits reach only the second record, and the first
        // record's changes no longer reach the field.
        type("1", into: field)
        #expect(second.quantity == 51)
        #expect(first.quantity == 2)
        first.quantity = 99
        #expect(field.text == "51")
    }

    @Test func freeingTheFieldEndsItsBinding() {
        let values = BehaviorSubject<Int, Never>(3)
        let terminal = ChannelTerminal<Int>(signal: values.signal) { values.sendNext($0) }
        var field: NumberField<Int>? = NumberField<Int>.integer("Qty")
        field?.bind(to: terminal)
        #expect(field?.text == "3")
        #expect(values.subscriberCount == 1)
        field = nil
        #expect(values.subscriberCount == 0)
    }

    @Test func revertIsWhatEscapeDoes() {
        let field = NumberField<Double>.decimal("Price", value: 1.5)
        field.focusDidChange(true)
        type("x", into: field)
        field.revert()
        #expect(field.text == "1.5")
        #expect(field.error == nil)
    }

    @Test func aModelValueArrivingWhileValidReplacesTheText() {
        let field = NumberField<Double>.decimal("Price", value: 2)
        field.channel.following.sendNext(9.5)
        #expect(field.text == "9.5")
    }

    @Test func aValueEqualToTheTextKeepsTheUsersSpelling() {
        let invoice = TestInvoice()
        let field = NumberField<Double>.decimal("Price")
        let binding = bind(channel(invoice, \.unitPrice), field.channel.following)
        #expect(field.text == "0")
        _ = field.handle(.backspace)
        type("2.50", into: field)
        #expect(invoice.unitPrice == 2.5)
        field.channel.following.sendNext(2.5)
        #expect(field.text == "2.50")
        binding.dispose()
    }

    @Test func decimalsUseADotWhateverTheLocale() {
        let field = NumberField<Double>.decimal("Price")
        type("12,5", into: field)
        #expect(field.error == "use a dot for decimals, as in 12.5")
        #expect(field.value == 12)   // "12" was valid on the way
        _ = field.handle(.backspace)
        _ = field.handle(.backspace)
        type(".5", into: field)
        #expect(field.text == "12.5")
        #expect(field.value == 12.5)
        #expect(field.error == nil)
    }

    @Test func rangeIsChecked() {
        let field = NumberField<Double>.decimal("Discount %", range: 0...100)
        type("150", into: field)
        #expect(field.error == "must be between 0 and 100")
        #expect(field.value == 15)
    }

    @Test func emptyTextIsAnErrorAndSendsNothing() {
        let field = NumberField<Int>.integer("Qty", value: 5)
        let sent = Recorder<Int, Never>()
        let subscription = sent.record(field.channel.following.signal)
        _ = field.handle(.backspace)
        #expect(field.text == "")
        #expect(field.error == "enter a whole number")
        #expect(sent.values == [])
        subscription.dispose()
    }

    @Test func customParseAndFormat() {
        // A percentage stored as a fraction: "15" on screen is 0.15 in the model.
        let field = NumberField<Double>("Tax %", value: 0.2, parse: { text in
            NumberText.parseDecimal(text).map { $0 / 100 }
        }, format: { NumberText.format($0 * 100) })
        #expect(field.text == "20")
        let sent = Recorder<Double, Never>()
        let subscription = sent.record(field.channel.following.signal)
        _ = field.handle(.backspace)
        type("5", into: field)
        #expect(sent.values == [0.02, 0.25])
        subscription.dispose()
    }

    @Test func rendersTheErrorInline() {
        let field = NumberField<Int>.integer("Qty", value: 3, width: 5)
        type("x", into: field)
        let screen = field.rendered(width: 30)
        #expect(screen.lines == ["Qty 3x    ! not a whole number"])
        let theme = Theme.standard
        #expect(screen[4, 0] == Cell("3", style: theme.invalidField))
        #expect(screen[10, 0] == Cell("!", style: theme.error))
    }

    @Test func rendersTheErrorOnTheNextRowWhenItDoesNotFit() {
        let field = NumberField<Int>.integer("Qty", value: 3, width: 5)
        type("x", into: field)
        let screen = field.rendered(width: 14, height: 2, focused: true)
        #expect(screen.lines == ["Qty 3x        ", "    ! not a wh"])
        #expect(screen.cursor == Position(x: 6, y: 0))
    }

    @Test func noErrorNoMessage() {
        let field = NumberField<Int>.integer("Qty", value: 3, width: 5)
        #expect(field.rendered(width: 20).lines == ["Qty 3" + String(repeating: " ", count: 15)])
    }
}

@Suite struct NumberTextTests {
    @Test func integers() {
        #expect(NumberText.parseInteger("42") == .success(42))
        #expect(NumberText.parseInteger(" -7 ") == .success(-7))
        #expect(NumberText.parseInteger("+3") == .success(3))
        #expect(NumberText.parseInteger("4.5") == .failure(InvalidInput("not a whole number")))
        #expect(NumberText.parseInteger("") == .failure(InvalidInput("enter a whole number")))
        #expect(NumberText.parseInteger("99999999999999999999") == .failure(InvalidInput("number too large")))
        #expect(NumberText.parseInteger("٣") == .failure(InvalidInput("not a whole number")))   // Arabic-Indic 3
        #expect(NumberText.parseInteger("12.0") == .success(12), "names a whole number")
        #expect(NumberText.parseInteger("1e3") == .failure(InvalidInput("not a whole number")))
        #expect(NumberText.parseInteger("1,5") == .failure(InvalidInput("not a whole number")))
    }

    @Test func oneGrammarAndOneSetOfMessagesForEveryField() {
        // What a field of whole numbers and a field of decimals say, for the same text.
        let cases: [(text: String, decimal: String?, whole: String?)] = [
            ("", "enter a number", "enter a whole number"),
            ("  ", "enter a number", "enter a whole number"),
            ("1e2", "not a number", "not a whole number"),
            ("1e3", "not a number", "not a whole number"),
            ("1,5", "use a dot for decimals, as in 12.5", "not a whole number"),
            ("1.5", nil, "not a whole number"),
            ("abc", "not a number", "not a whole number"),
            ("0x10", "not a number", "not a whole number"),
            ("+12", nil, nil),
            (" 12 ", nil, nil),
        ]
        for (text, decimal, whole) in cases {
            #expect(NumberText.syntaxError(in: text)?.message == decimal, "\(text.debugDescription)")
            #expect(NumberText.syntaxError(in: text, wholeNumber: true)?.message == whole, "\(text.debugDescription)")
            if let decimal { #expect(NumberText.parseDecimal(text) == .failure(InvalidInput(decimal))) }
        }
    }

    @Test func decimals() {
        #expect(NumberText.parseDecimal("12.5") == .success(12.5))
        #expect(NumberText.parseDecimal(".5") == .success(0.5))
        #expect(NumberText.parseDecimal("5.") == .success(5))
        #expect(NumberText.parseDecimal("-1e3") == .failure(InvalidInput("not a number")), "no exponent")
        #expect(NumberText.parseDecimal("12,5") == .failure(InvalidInput("use a dot for decimals, as in 12.5")))
        #expect(NumberText.parseDecimal("1,000.5") == .failure(InvalidInput("not a number")))
        #expect(NumberText.parseDecimal("abc") == .failure(InvalidInput("not a number")))
        #expect(NumberText.parseDecimal("inf") == .failure(InvalidInput("not a number")))
        #expect(NumberText.parseDecimal("nan") == .failure(InvalidInput("not a number")))
        #expect(NumberText.parseDecimal("0x10") == .failure(InvalidInput("not a number")))
        #expect(NumberText.parseDecimal("1" + String(repeating: "0", count: 400)) == .failure(InvalidInput("number too large")))
        #expect(NumberText.parseDecimal(".") == .failure(InvalidInput("not a number")))
        #expect(NumberText.parseDecimal("") == .failure(InvalidInput("enter a number")))
    }

    @Test func formatIsShortestAndRoundTrips() {
        #expect(NumberText.format(12) == "12")
        #expect(NumberText.format(-0.0) == "0")
        #expect(NumberText.format(12.5) == "12.5")
        #expect(NumberText.format(0.1) == "0.1")
        #expect(NumberText.format(1e-7) == "0.0000001", "never an exponent")
        #expect(NumberText.format(1.5e20) == "150000000000000000000")
        #expect(NumberText.format(-2.5e-9) == "-0.0000000025")
        for value in [0.1, 12.5, 1e-7, 123456.789, 1e20, -3.25, 1.2345e-300, 9.87e300, Double.leastNonzeroMagnitude] {
            #expect(NumberText.parseDecimal(NumberText.format(value)) == .success(value))
        }
    }

    @Test func fixedPlaces() {
        #expect(NumberText.fixed(2.5, places: 2) == "2.50")
        #expect(NumberText.fixed(1234.5, places: 2) == "1234.50")
        #expect(NumberText.fixed(0.125, places: 2) == "0.13")
        #expect(NumberText.fixed(-0.125, places: 2) == "-0.13")
        #expect(NumberText.fixed(-0.001, places: 2) == "0.00")
        #expect(NumberText.fixed(7, places: 0) == "7")
        #expect(NumberText.fixed(0.05, places: 1) == "0.1")
    }
}
