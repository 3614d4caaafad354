import Testing
import Tether
import TetherTestSupport

// `observe(_:_:)` hands values straight to the subscriber of `subscribe(next:error:completed:)`
// (and of `subscribe(events:)` and `subscribe(_:)`, which use it); with an operator in between,
// the same signal runs through its sinks. Both ways must send the same events.

/// Records the same observation subscribed directly and through `map { $0 }` (the sink path).
final class BothWays<Value: Sendable & Equatable>: Sendable {
    let direct = Recorder<Value, Never>()
    let throughSink = Recorder<Value, Never>()
    let subscriptions: [any Disposable]

    init(_ signal: Signal<Value, Never>) {
        subscriptions = [direct.record(signal), throughSink.record(signal.map { $0 })]
    }

    func dispose() { subscriptions.forEach { $0.dispose() } }
}

@Suite("Direct subscriptions to model observations")
struct DirectSubscriptionTests {
    @Test func storedPropertySendsTheSameEventsBothWays() {
        var counter: HandInvoice? = HandInvoice()
        let both = BothWays(observe(counter!, \.quantity))
        counter!.quantity = 2
        counter!.quantity = 2          // equal: nothing
        counter!.quantity = 3
        counter = nil                  // freed: completed
        let expected: [Event<Int, Never>] = [.next(1), .next(2), .next(3), .completed]
        #expect(both.direct.events == expected)
        #expect(both.throughSink.events == expected)
    }

    @Test func computedPropertySendsTheSameEventsBothWays() {
        var switcher: Switcher? = Switcher()
        let both = BothWays(observe(switcher!, \.picked))
        switcher!.a = 2                // 102
        switcher!.b = 20               // not read: nothing
        switcher!.useB = true          // 120
        switcher!.a = 3                // no longer read: nothing
        switcher!.c = 0                // 20
        switcher!.b = 20               // equal: nothing
        #expect((0..<4).map { switcher!._$registrar.observerCount(index: $0) } == [2, 0, 2, 2])
        switcher = nil
        let expected: [Event<Int, Never>] = [.next(101), .next(102), .next(120), .next(20), .completed]
        #expect(both.direct.events == expected)
        #expect(both.throughSink.events == expected)
    }

    @Test func aFreedModelCompletesAtOnceBothWays() {
        var switcher: Switcher? = Switcher()
        let stored = observe(switcher!, \.a)
        let computed = observe(switcher!, \.picked)
        switcher = nil
        let both = [BothWays(stored), BothWays(computed)]
        for way in both {
            #expect(way.direct.events == [.completed])
            #expect(way.throughSink.events == [.completed])
        }
    }

    @Test(arguments: [false, true])
    func disposingFromInsideTheSubscriberStopsIt(throughSink: Bool) {
        let switcher = Switcher()
        func plain(_ signal: Signal<Int, Never>) -> Signal<Int, Never> { throughSink ? signal.map { $0 } : signal }
        let stored = Recorder<Int, Never>()
        let computed = Recorder<Int, Never>()
        let storedBox = DisposableBox()
        let computedBox = DisposableBox()
        storedBox.set(plain(observe(switcher, \.a)).subscribe(next: { value in
            stored.append(.next(value))
            if value == 3 { storedBox.dispose() }
        }))
        computedBox.set(plain(observe(switcher, \.picked)).subscribe(next: { value in
            computed.append(.next(value))
            if value == 103 { computedBox.dispose() }
        }))
        for value in 2...5 { switcher.a = value }
        #expect(stored.values == [1, 2, 3])
        #expect(computed.values == [101, 102, 103])
        #expect((0..<4).map { switcher._$registrar.observerCount(index: $0) } == [0, 0, 0, 0])
    }

    /// The first subscriber of a property disposes the second while a change is delivered to
    /// both: the second gets nothing more, that change included; and a disposed subscription
    /// says so, as does one whose model was freed.
    @Test(arguments: [false, true])
    func aSubscriptionDisposedByAnotherDuringADeliveryGetsNothingMore(throughSink: Bool) {
        var switcher: Switcher? = Switcher()
        func plain(_ signal: Signal<Int, Never>) -> Signal<Int, Never> { throughSink ? signal.map { $0 } : signal }
        let second = Recorder<Int, Never>()
        let secondBox = DisposableBox()
        let first = plain(observe(switcher!, \.a)).subscribe(next: { value in
            if value == 3 { secondBox.dispose() }
        })
        let secondSubscription = plain(observe(switcher!, \.a)).subscribe(next: { second.append(.next($0)) })
        secondBox.set(secondSubscription)
        for value in 2...4 { switcher!.a = value }
        #expect(second.values == [1, 2])
        #expect(secondSubscription.isDisposed && !first.isDisposed)
        #expect(switcher!._$registrar.observerCount(index: 1) == 1)
        switcher = nil
        #expect(first.isDisposed, "ended with its model")
    }

    @Test func aChangeMadeByASubscriberIsDeliveredAfterTheCurrentOneBothWays() {
        // The subscriber of `a` writes `a` again: every subscriber sees 2 then 10, in order.
        let switcher = Switcher()
        let both = BothWays(observe(switcher, \.a))
        let writer = observe(switcher, \.a).subscribe(with: switcher) { switcher, value in
            if value == 2 { switcher.a = 10 }
        }
        switcher.a = 2
        #expect(both.direct.values == [1, 2, 10])
        #expect(both.throughSink.values == [1, 2, 10])
        writer.dispose()
        both.dispose()
        #expect(switcher._$registrar.observerCount(index: 1) == 0)
    }
}

/// Disposes a subscription made later (for a subscriber that disposes its own subscription).
final class DisposableBox: Sendable {
    private let state = Shared<(any Disposable)?>(nil)
    func set(_ disposable: any Disposable) { state.update { $0 = disposable } }
    func dispose() { state.value?.dispose() }
}
