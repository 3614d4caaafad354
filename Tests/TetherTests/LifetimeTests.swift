import Testing
import Tether
import TetherTestSupport

@Suite("Model lifetimes")
struct LifetimeTests {
    /// `lifetime(of:)` is a trigger that fires: `take(until:)` ends when the model is freed
    /// (unlike the completion of a freed subject, which nobody sent).
    @Test func takeUntilTheLifetimeOfAModelEndsWhenTheModelIsFreed() {
        let ticks = Subject<Int, Never>()
        var model: Stock? = Stock()
        let seen = Recorder<Int, Never>()
        seen.record(ticks.signal.take(until: lifetime(of: model!)))
        ticks.sendNext(1)
        model = nil
        ticks.sendNext(2)
        #expect(seen.events == [.next(1), .completed])
    }

    @Test func channelAndSubscribeWithDoNotKeepTheModelAlive() {
        let freed = Flag()
        var invoice: HandInvoice? = HandInvoice(onDeinit: { freed.set() })
        let field = Channel<Int>()
        let channelBinding = bind(channel(invoice!, \.quantity), field.following)
        let ticks = Subject<Int, Never>()
        let seen = Recorder<Int, Never>()
        let subscription = ticks.signal.subscribe(with: invoice!) { invoice, tick in
            seen.append(.next(tick + invoice.quantity))
        }
        ticks.sendNext(10)
        invoice = nil
        #expect(freed.isSet, "neither the channel nor subscribe(with:) retained the model")
        #expect(subscription.isDisposed, "subscribe(with:) ends with its model")
        #expect(ticks.subscriberCount == 0)
        ticks.sendNext(20)
        #expect(seen.values == [11])
        field.leading.sendNext(3)      // the model is gone: nothing to assign, nothing crashes
        channelBinding.dispose()
    }

    @Test func disposingABindingReleasesItsSubscriptionAndItsSlotInTheModel() {
        let invoice = HandInvoice()
        let source = Subject<Int, Never>()
        let binding = bind(source.signal, to: invoice, \.quantity)
        #expect(source.subscriberCount == 1)
        binding.dispose()
        #expect(source.subscriberCount == 0)
        source.sendNext(5)
        #expect(invoice.quantity == 1)
    }

    @Test func computedObservationReleasesEverythingWhenDisposed() {
        let invoice = HandInvoice()
        let d = observe(invoice, \.total).subscribe(next: { _ in })
        #expect((0..<3).map { invoice._$registrar.observerCount(index: $0) } == [1, 1, 1])
        d.dispose()
        #expect((0..<3).map { invoice._$registrar.observerCount(index: $0) } == [0, 0, 0])
        #expect(invoice._$registrar.lifetime.isDisposed == false)
    }
}
