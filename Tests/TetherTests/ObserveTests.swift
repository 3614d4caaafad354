import Testing
import Tether
import TetherTestSupport

@Suite("Observing models")
struct ObserveTests {
    @Test func storedPropertySendsCurrentThenChanges() {
        let invoice = HandInvoice()
        let quantities = Recorder<Int, Never>()
        quantities.record(observe(invoice, \.quantity))
        invoice.quantity = 2
        invoice.quantity = 2       // equal: nothing
        invoice.quantity = 5
        #expect(quantities.events == [.next(1), .next(2), .next(5)])
    }

    @Test func observersSeeTheNewValueOnTheModel() {
        let invoice = HandInvoice()
        let seen = Recorder<Int, Never>()
        observe(invoice, \.quantity).subscribe(with: invoice) { invoice, _ in seen.append(.next(invoice.quantity)) }
        invoice.quantity = 7
        #expect(seen.values == [1, 7])
    }

    @Test func computedPropertyTracksItsDependencies() {
        let invoice = HandInvoice()
        invoice.unitPrice = 10
        let totals = Recorder<Double, Never>()
        totals.record(observe(invoice, \.total))
        invoice.quantity = 3
        invoice.discount = 0.5
        invoice.discount = nil
        invoice.unitPrice = 10    // unchanged: nothing
        #expect(totals.values == [10, 30, 15, 30])
    }

    @Test func computedPropertySendsNothingWhenItsValueDidNotChange() {
        let invoice = HandInvoice()
        let totals = Recorder<Double, Never>()
        totals.record(observe(invoice, \.total))   // unitPrice 0: total stays 0
        invoice.quantity = 3
        invoice.quantity = 4
        #expect(totals.values == [0])
    }

    @Test func transactionIsGlitchFree() {
        let invoice = HandInvoice()
        let totals = Recorder<Double, Never>()
        let quantities = Recorder<Int, Never>()
        totals.record(observe(invoice, \.total))
        quantities.record(observe(invoice, \.quantity))
        invoice.transaction {
            $0.quantity = 2
            $0.unitPrice = 5
            $0.quantity = 4
            #expect(totals.values == [0], "nothing is sent inside the transaction")
        }
        #expect(quantities.values == [1, 4], "one notification per property, with its final value")
        #expect(totals.values == [0, 20], "one consistent total, never 2 * 0 or 2 * 5")
    }

    @Test func settingAPropertyFromItsOwnObserver() {
        let invoice = HandInvoice()
        let seen = Recorder<Int, Never>()
        observe(invoice, \.quantity).subscribe(with: invoice) { invoice, value in
            if value > 10 { invoice.quantity = 10 }   // clamp: idempotent
        }
        seen.record(observe(invoice, \.quantity))
        invoice.quantity = 50
        #expect(invoice.quantity == 10)
        #expect(seen.values == [1, 50, 10], "the later observer sees each value in the order set, ending with the clamped one")
    }

    @Test func changesStreamReportsEveryProperty() {
        let invoice = HandInvoice()
        let names = Recorder<String, Never>()
        names.record(changes(of: invoice).map(\.name))
        invoice.quantity = 2
        invoice.unitPrice = 3
        invoice.quantity = 2
        #expect(names.values == ["quantity", "unitPrice"])
    }

    @Test func observingDoesNotRetainTheModelAndCompletesOnFree() {
        let freed = Flag()
        var invoice: HandInvoice? = HandInvoice(onDeinit: { freed.set() })
        let quantities = Recorder<Int, Never>()
        let totals = Recorder<Double, Never>()
        let ends = Recorder<Never, Never>()
        quantities.record(observe(invoice!, \.quantity))
        totals.record(observe(invoice!, \.total))
        ends.record(lifetime(of: invoice!))
        invoice = nil
        #expect(freed.isSet)
        #expect(quantities.events == [.next(1), .completed])
        #expect(totals.events == [.next(0), .completed])
        #expect(ends.events == [.completed])
    }

    @Test func disposingAnObservationRemovesItsObservers() {
        let invoice = HandInvoice()
        let d1 = observe(invoice, \.quantity).subscribe(next: { _ in })
        let d2 = observe(invoice, \.total).subscribe(next: { _ in })
        #expect(invoice._$registrar.observerCount(index: 0) == 2)
        d1.dispose()
        d2.dispose()
        #expect(invoice._$registrar.observerCount(index: 0) == 0)
        #expect(invoice._$registrar.observerCount(index: 1) == 0)
        #expect(invoice._$registrar.observerCount(index: 2) == 0)
    }
}
