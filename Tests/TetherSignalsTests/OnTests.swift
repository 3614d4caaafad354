import Testing
import TetherSignals
import TetherTestSupport

@Suite("on(...) side effects")
struct OnTests {
    /// A signal whose hooks write into `log`.
    func hooked(_ signal: Signal<Int, TestError>, log: Recorder<String, Never>) -> Signal<Int, TestError> {
        signal.on(
            subscribed: { log.append(.next("subscribed")) },
            next: { log.append(.next("next \($0)")) },
            error: { log.append(.next("error \($0)")) },
            completed: { log.append(.next("completed")) },
            terminated: { log.append(.next("terminated")) },
            disposed: { log.append(.next("disposed")) }
        )
    }

    @Test func hooksRunBeforeEachEventIsSentOnAndDisposedRunsLast() {
        let log = Recorder<String, Never>()
        _ = hooked(Signal(sequence: [1, 2]), log: log).subscribe(
            next: { log.append(.next("sink \($0)")) },
            completed: { log.append(.next("sink completed")) }
        )
        #expect(log.values == [
            "subscribed",
            "next 1", "sink 1",
            "next 2", "sink 2",
            "completed", "terminated", "sink completed",
            "disposed",
        ])
    }

    @Test func errorPathAndUpstreamCleanupComesFirst() {
        let log = Recorder<String, Never>()
        let source = Signal<Int, TestError> { observer in
            observer.onDispose { log.append(.next("upstream cleanup")) }
            observer.sendNext(1)
            observer.sendError(.boom)
            return nil
        }
        _ = hooked(source, log: log).subscribe(error: { log.append(.next("sink error \($0)")) })
        #expect(log.values == [
            "subscribed",
            "next 1",
            "error boom", "terminated", "sink error boom",
            "upstream cleanup", "disposed",
        ])
    }

    @Test func disposedRunsOnceWhenTheSubscriptionIsDisposed() {
        let log = Recorder<String, Never>()
        let source = CountingSource<Int, TestError>()
        let disposable = hooked(source.signal, log: log).subscribe()
        source.send(1)
        disposable.dispose()
        disposable.dispose()
        source.send(2)
        source.complete()
        #expect(log.values == ["subscribed", "next 1", "disposed"])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func disposedRunsOnceAfterATerminalEventEvenIfDisposedAgain() {
        let disposed = Counter()
        let source = CountingSource<Int, Never>()
        let disposable = source.signal.on(disposed: { disposed.increment() }).subscribe()
        #expect(disposed.count == 0)
        source.complete()
        #expect(disposed.count == 1)
        disposable.dispose()
        #expect(disposed.count == 1)
    }

    @Test func hooksRunPerSubscription() {
        let subscribed = Counter()
        let signal = Signal(sequence: [1]).on(subscribed: { subscribed.increment() })
        _ = signal.subscribe()
        _ = signal.subscribe()
        #expect(subscribed.count == 2)
    }

    @Test func takeDownstreamStopsTheHooksAndRunsDisposed() {
        let log = Recorder<String, Never>()
        let produced = Counter()
        let (recorder, _) = Signal<Int, Never>(sequence: CountingNaturals(produced: produced))
            .on(next: { log.append(.next("next \($0)")) }, completed: { log.append(.next("completed")) },
                disposed: { log.append(.next("disposed")) })
            .take(2)
            .record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(log.values == ["next 1", "next 2", "disposed"], "upstream did not complete: it was disposed")
    }

    @Test func hooksAreNotCalledForEventsAfterDisposal() {
        // A raw stage that ignores disposal and keeps sending.
        let nexts = Counter()
        let stage = Signal<Int, Never>(_unchecked: { sink, lifetime in
            sink(.next(1))
            lifetime.dispose()
            sink(.next(2))
            sink(.completed)
        })
        let forwarded = Recorder<Int, Never>()
        stage.on(next: { _ in nexts.increment() }).runRaw { forwarded.append($0) }
        #expect(nexts.count == 1)
        #expect(forwarded.events == [.next(1)])
    }

    @Test func hookClosuresAreReleasedWhenTheSubscriptionEnds() {
        let freed = Flag()
        let source = CountingSource<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = source.signal
            .on(next: { [tracked] _ in withExtendedLifetime(tracked) {} },
                disposed: { [tracked] in withExtendedLifetime(tracked) {} })
            .subscribe()
        tracked = nil
        source.send(1)
        #expect(!freed.isSet)
        disposable.dispose()
        #expect(freed.isSet)
    }
}
