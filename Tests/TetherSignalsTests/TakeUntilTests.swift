import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

@Suite("take(until:)")
struct TakeUntilTests {
    @Test func completesWhenTheTriggerSendsAValue() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, disposable) = source.signal.take(until: trigger.signal).record()
        source.send(1, 2)
        trigger.send(())
        source.send(3)
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
        #expect(trigger.cleanups.count == 1)
        #expect(!source.isSubscribed)
        #expect(!trigger.isSubscribed)
    }

    @Test func completesWhenTheTriggerCompletes() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<String, Never>()
        let (recorder, _) = source.signal.take(until: trigger.signal).record()
        source.send(1)
        trigger.complete()
        source.send(2)
        #expect(recorder.events == [.next(1), .completed])
        #expect(!source.isSubscribed)
        #expect(trigger.cleanups.count == 1)
    }

    @Test func triggerFailureIsIgnoredButItsSubscriptionIsFreed() {
        let source = CountingSource<Int, TestError>()
        let trigger = CountingSource<Int, TestError>()
        let (recorder, disposable) = source.signal.take(until: trigger.signal).record()
        source.send(1)
        trigger.fail(.boom)
        #expect(trigger.cleanups.count == 1, "the failed trigger subscription is disposed at once")
        source.send(2)
        source.complete()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
    }

    @Test func upstreamCompletionDisposesTheTrigger() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, _) = source.signal.take(until: trigger.signal).record()
        source.send(1)
        source.complete()
        #expect(recorder.events == [.next(1), .completed])
        #expect(trigger.cleanups.count == 1)
        #expect(!trigger.isSubscribed)
        #expect(source.cleanups.count == 1)
    }

    @Test func upstreamErrorIsForwardedAndDisposesTheTrigger() {
        let source = CountingSource<Int, TestError>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, _) = source.signal.take(until: trigger.signal).record()
        source.fail(.other(3))
        trigger.send(())
        #expect(recorder.events == [.error(.other(3))])
        #expect(trigger.cleanups.count == 1)
        #expect(!trigger.isSubscribed)
    }

    @Test func triggerFiringAtOnceNeverSubscribesUpstream() {
        let source = CountingSource<Int, Never>()
        let (recorder, _) = source.signal.take(until: Signal<Void, Never>.just(())).record()
        #expect(recorder.events == [.completed])
        #expect(source.subscriptions.count == 0)
        let (second, _) = source.signal.take(until: Signal<Void, Never>.empty).record()
        #expect(second.events == [.completed])
        #expect(source.subscriptions.count == 0)
    }

    @Test func disposingEndsBothSubscriptions() {
        let source = CountingSource<Int, Never>()
        let trigger = CountingSource<Void, Never>()
        let (recorder, disposable) = source.signal.take(until: trigger.signal).record()
        source.send(1)
        disposable.dispose()
        source.send(2)
        trigger.send(())
        #expect(recorder.events == [.next(1)])
        #expect(source.cleanups.count == 1)
        #expect(trigger.cleanups.count == 1)
    }

    @Test func neverTriggerLetsEverythingThrough() {
        let (recorder, _) = Signal(sequence: [1, 2]).take(until: Signal<Void, Never>.never).record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test func failedTriggerReleasesWhatItHeldWhileUpstreamGoesOn() {
        let freed = Flag()
        let source = CountingSource<Int, Never>()
        let failing = Subject<Void, TestError>()
        var tracked: Tracked? = Tracked { freed.set() }
        // The trigger's subscription holds `tracked` until that subscription is disposed.
        let (recorder, _) = source.signal.take(until: Signal<Void, TestError> { [tracked] observer in
            observer.onDispose { withExtendedLifetime(tracked) {} }
            return failing.signal.subscribe(observer)
        }).record()
        tracked = nil
        #expect(!freed.isSet)
        failing.sendError(.boom)
        #expect(freed.isSet, "the ended trigger subscription no longer holds what it held")
        source.send(1)
        #expect(recorder.events == [.next(1)])
        #expect(source.isSubscribed)
    }

    @Test func subscriberFiringTheTriggerFromItsCallback() {
        let source = Subject<Int, Never>()
        let trigger = Subject<Void, Never>()
        let recorder = Recorder<Int, Never>()
        _ = source.signal.take(until: trigger.signal).subscribe(
            next: { value in
                recorder.append(.next(value))
                if value == 1 { trigger.sendNext(()) }
                recorder.append(.next(value * 100))
            },
            completed: { recorder.append(.completed) }
        )
        source.sendNext(1)
        source.sendNext(2)
        #expect(recorder.events == [.next(1), .next(100), .completed], "completion waits for the current value")
        #expect(source.subscriberCount == 0)
        #expect(trigger.subscriberCount == 0)
    }

    @Test func upstreamAndTriggerOnDifferentThreadsKeepTheGrammar() {
        for _ in 0..<50 {
            let source = Subject<Int, Never>()
            let trigger = Subject<Void, Never>()
            let (recorder, _) = source.signal.take(until: trigger.signal).record()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for n in 0..<500 { source.sendNext(n) }
                } else {
                    trigger.sendNext(())
                }
            }
            let events = recorder.events
            #expect(events.last == .completed)
            #expect(events.filter(\.isTerminal).count == 1)
            #expect(recorder.values == Array(0..<recorder.values.count), "values in order, none after completion")
            #expect(source.subscriberCount == 0)
            #expect(trigger.subscriberCount == 0)
        }
    }
}
