import Testing
import TetherTerminal

@Suite struct ComputedFieldTests {
    @Test func showsTheLatestValueFormatted() {
        let subject = Subject<Double, Never>()
        let field = ComputedField("Total", subject.signal) { NumberText.fixed($0, places: 2) }
        #expect(field.text == "")
        subject.sendNext(12.5)
        #expect(field.text == "12.50")
        subject.sendNext(3)
        #expect(field.text == "3.00")
    }

    @Test func followsAModelsComputedProperty() {
        let invoice = TestInvoice()
        let total = ComputedField("Total", observe(invoice, \.total)) { NumberText.fixed($0, places: 2) }
        #expect(total.text == "0.00")
        invoice.unitPrice = 2.5
        invoice.quantity = 4
        #expect(total.text == "10.00")
        invoice.discountPercent = 10
        #expect(total.text == "9.00")
    }

    @Test func rendersLeadingAndTrailing() {
        let subject = BehaviorSubject<String, Never>("42")
        let leading = ComputedField("Sum", subject.signal, width: 6)
        #expect(leading.rendered(width: 12).lines == ["Sum 42      "])
        #expect(leading.rendered(width: 12)[4, 0] == Cell("4", style: .bold))
        let trailing = ComputedField("Sum", subject.signal, width: 6, alignment: .trailing)
        #expect(trailing.rendered(width: 12).lines == ["Sum     42  "])
    }

    @Test func rendersWideText() {
        let subject = BehaviorSubject<String, Never>("合计一百")
        let field = ComputedField("总计", subject.signal, width: 5)
        // Only two of the four characters fit in 5 columns: the fifth shows the cut, "…".
        #expect(field.rendered(width: 12).lines == ["总计 合计…  "])
    }

    @Test func aNumberTooWideForItsBoxShowsAsHashesNeverAsAnotherNumber() {
        let subject = BehaviorSubject<String, Never>("1000000000000000.00")
        let total = ComputedField("Total", subject.signal, width: 14, alignment: .trailing)
        #expect(total.rendered(width: 20).lines == ["Total ##############"])
        subject.sendNext("999.50")
        #expect(total.rendered(width: 20).lines == ["Total         999.50"])
        // Text is cut with "…".
        let name = ComputedField("Name", BehaviorSubject<String, Never>("Rutherford-Montgomery").signal, width: 10)
        #expect(name.rendered(width: 15).lines == ["Name Rutherfor…"])
    }

    @Test func isNotFocusableAndIgnoresKeys() {
        let field = ComputedField("Total", Signal<String, Never>.never)
        #expect(!field.isFocusable)
        #expect(field.handle(.character("1")) == .ignored)
    }

    @Test func freeingTheFieldUnsubscribes() {
        let subject = Subject<Int, Never>()
        var field: ComputedField<Int>? = ComputedField("N", subject.signal) { String($0) }
        #expect(subject.subscriberCount == 1)
        subject.sendNext(1)
        #expect(field?.text == "1")
        field = nil
        #expect(subject.subscriberCount == 0)
    }
}
