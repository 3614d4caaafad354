import Testing
import TetherSignals
import TetherTestSupport

@Suite("skip(until:)")
struct SkipUntilTests {
    @Test func dropsValuesUntilTheTriggerSendsAValue() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, disposable) = source.signal.skip(until: trigger.signal).record()
        source.send(1, 2)
        trigger.send(())
        #expect(trigger.cleanups.count == 1, "the trigger is disposed once it fired")
        #expect(!trigger.isSubscribed)
        source.send(3, 4)
        source.complete()
        #expect(recorder.events == [.next(3), .next(4), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
    }

    @Test func triggerCompletionAlsoLetsValuesThrough() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<String, Never>()
        let (recorder, _) = source.signal.skip(until: trigger.signal).record()
        source.send(1)
        trigger.complete()
        source.send(2)
        #expect(recorder.events == [.next(2)])
        #expect(trigger.cleanups.count == 1)
    }

    @Test func opensOnAVirtualClock() {
        let scheduler = TestScheduler()
        let source = Subject<Int, Never>()
        let (recorder, _) = source.signal
            .skip(until: Signal.timer(after: .seconds(2), on: scheduler))
            .recordTimed(on: scheduler)
        for second in 1...4 {
            scheduler.advance(to: .seconds(second))
            source.sendNext(second)
        }
        source.sendCompleted()
        #expect(recorder.history == [
            .at(.seconds(2), .next(2)),   // the timer fired first at 2 s
            .at(.seconds(3), .next(3)),
            .at(.seconds(4), .next(4)),
            .at(.seconds(4), .completed),
        ])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func triggerFiringAtOnceLetsEverythingThrough() {
        let (recorder, _) = Signal(sequence: [1, 2]).skip(until: Signal<Void, Never>.just(())).record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        let (second, _) = Signal(sequence: [1, 2]).skip(until: Signal<Void, Never>.empty).record()
        #expect(second.events == [.next(1), .next(2), .completed])
        let (never, _) = Signal(sequence: [1, 2]).skip(until: Signal<Void, Never>.never).record()
        #expect(never.events == [.completed])
    }

    @Test func triggerFailureIsIgnoredAndValuesStayDropped() {
        let source = CountingSource<Int, TestError>()
        let trigger = CountingSource<Void, TestError>()
        let (recorder, _) = source.signal.skip(until: trigger.signal).record()
        source.send(1)
        trigger.fail(.boom)
        #expect(trigger.cleanups.count == 1, "the failed trigger is disposed at once")
        source.send(2)
        source.complete()
        #expect(recorder.events == [.completed])
        #expect(source.cleanups.count == 1)
    }

    @Test func terminalEventsPassWhileSkippingAndDisposeTheTrigger() {
        let source = CountingSource<Int, TestError>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, _) = source.signal.skip(until: trigger.signal).record()
        source.send(1)
        source.fail(.other(5))
        trigger.send(())
        #expect(recorder.events == [.error(.other(5))])
        #expect(trigger.cleanups.count == 1 && source.cleanups.count == 1)
        #expect(!trigger.isSubscribed && !source.isSubscribed)
    }

    @Test func disposingDisposesBothUpstreams() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, disposable) = source.signal.skip(until: trigger.signal).record()
        source.send(1)
        disposable.dispose()
        #expect(source.cleanups.count == 1 && trigger.cleanups.count == 1)
        #expect(!source.isSubscribed && !trigger.isSubscribed)
        trigger.send(())
        source.send(2)
        #expect(recorder.events == [])
    }

    @Test func triggerFiredFromInsideTheHandlingOfAValue() {
        let source = Subject<Int, Never>()
        let trigger = Subject<Void, Never>()
        // A side effect upstream fires the trigger while the value 2 is on its way (before it
        // reaches skip(until:)): 2 finds the signal open, and so does everything after it.
        let (recorder, _) = source.signal
            .on(next: { if $0 == 2 { trigger.sendNext(()) } })
            .skip(until: trigger.signal)
            .record()
        source.sendNext(1)
        source.sendNext(2)
        source.sendNext(3)
        #expect(recorder.events == [.next(2), .next(3)])
        #expect(trigger.subscriberCount == 0)
    }

    @Test func valuesRacingTheTriggerFormAnUnbrokenTail() {
        for _ in 0..<50 {
            let count = 2_000
            let source = Subject<Int, Never>()
            let trigger = Subject<Void, Never>()
            let (recorder, _) = source.signal.skip(until: trigger.signal).record()
            runConcurrently(2) { index in
                if index == 0 {
                    for value in 0..<count { source.sendNext(value) }
                } else {
                    trigger.sendNext(())
                }
            }
            source.sendNext(count)
            source.sendCompleted()
            let values = recorder.values
            #expect(values.last == count)
            #expect(values == Array((values.first ?? 0)...count), "every value after the opening, once, in order")
            #expect(recorder.events.last == .completed)
            #expect(trigger.subscriberCount == 0 && source.subscriberCount == 0)
        }
    }
}
