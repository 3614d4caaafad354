import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

@Suite("take and take(while:)")
struct TakeTests {
    @Test func takeStopsAnInfiniteSynchronousProducer() {
        let produced = Counter()
        let (recorder, disposable) = Signal(sequence: CountingNaturals(produced: produced)).take(3).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        // The sequence loop checks the disposal before pulling each element: no fourth one.
        #expect(produced.count == 3, "the sequence loop saw the disposal and stopped")
        #expect(disposable.isDisposed)
    }

    @Test func takeOfUnboundedRange() {
        let (recorder, _) = Signal(sequence: 1...).take(3).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test func takeZeroCompletesWithoutSubscribingUpstream() {
        let source = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.take(0).record()
        #expect(recorder.events == [.completed])
        #expect(source.subscriptions.count == 0)
        #expect(disposable.isDisposed)
    }

    @Test func takeForwardsEarlierCompletionAndError() {
        #expect(Signal(sequence: [1, 2]).take(5).record().0.events == [.next(1), .next(2), .completed])
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.take(5).record()
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(source.cleanups.count == 1)
    }

    @Test func takeDisposesUpstreamWhenItCompletes() {
        let source = CountingSource<Int, Never>()
        let (recorder, _) = source.signal.take(2).record()
        source.send(1)
        #expect(source.isSubscribed)
        source.send(2, 3)
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func takeCountsPerSubscription() {
        let signal = Signal(sequence: 1...).take(2)
        #expect(signal.record().0.events == [.next(1), .next(2), .completed])
        #expect(signal.record().0.events == [.next(1), .next(2), .completed])
    }

    @Test func takeWithReentrantSendFromTheSubscriber() {
        let subject = Subject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        _ = subject.signal.take(2).subscribe(
            next: { value in
                recorder.append(.next(value))
                subject.sendNext(value + 10)   // delivered after the current value
            },
            completed: { recorder.append(.completed) }
        )
        subject.sendNext(1)
        #expect(recorder.events == [.next(1), .next(11), .completed])
        #expect(subject.subscriberCount == 0)
    }

    @Test func takeReleasesUpstreamClosureAfterCompleting() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let (recorder, _) = subject.signal.map { [tracked] value in withExtendedLifetime(tracked) { value } }.take(1).record()
        tracked = nil
        #expect(!freed.isSet)
        subject.sendNext(9)
        #expect(recorder.events == [.next(9), .completed])
        #expect(freed.isSet)
    }

    @Test func takeUnderConcurrentSendsKeepsTheGrammar() {
        for _ in 0..<20 {
            let subject = Subject<Int, Never>()
            let (recorder, _) = subject.signal.take(100).record()
            DispatchQueue.concurrentPerform(iterations: 4) { _ in
                for n in 0..<200 { subject.sendNext(n) }
            }
            #expect(recorder.values.count == 100)
            #expect(recorder.events.last == .completed)
            #expect(recorder.events.filter(\.isTerminal).count == 1)
            #expect(subject.subscriberCount == 0)
        }
    }

    @Test func takeIgnoresUpstreamEventsAfterItsOwnCompletion() {
        // A raw stage that ignores the lifetime and keeps sending, and no terminal subscriber
        // downstream: only take's own flag keeps the grammar.
        let raw = Signal<Int, TestError>(_unchecked: { sink, _ in
            for n in 1...4 { sink(.next(n)) }
            sink(.error(.boom))
            sink(.completed)
        })
        let recorder = Recorder<Int, TestError>()
        raw.take(2).runRaw { recorder.append($0) }
        #expect(recorder.events == [.next(1), .next(2), .completed])
        let whileRecorder = Recorder<Int, TestError>()
        raw.take(while: { $0 < 3 }).runRaw { whileRecorder.append($0) }
        #expect(whileRecorder.events == [.next(1), .next(2), .completed])
    }

    @Test func takeSeesAReentrantUpstreamEventDuringItsLastValue() {
        // The raw stage sends re-entrantly from inside the downstream callback.
        let box = _SinkBox()
        let raw = Signal<Int, Never>(_unchecked: { sink, _ in
            box.set(sink)
            sink(.next(1))
        })
        let recorder = Recorder<Int, Never>()
        raw.take(1).runRaw { event in
            recorder.append(event)
            if event == .next(1) { box.sink?(.next(2)) }
        }
        #expect(recorder.events == [.next(1), .completed])
    }

    // MARK: take(while:)

    @Test func takeWhileStopsAnInfiniteSynchronousProducer() {
        let produced = Counter()
        let (recorder, _) = Signal(sequence: CountingNaturals(produced: produced)).take(while: { $0 < 4 }).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        // 4 fails the predicate and ends it; the loop sees the disposal before pulling 5.
        #expect(produced.count == 4, "the sequence loop saw the disposal and stopped")
    }

    @Test func takeWhileFalseAtOnceCompletesWithoutValues() {
        let (recorder, _) = Signal(sequence: [5, 1]).take(while: { $0 < 4 }).record()
        #expect(recorder.events == [.completed])
    }

    @Test func takeWhileDoesNotCallThePredicateAfterItFailed() {
        let calls = Counter()
        let source = CountingSource<Int, Never>()
        let (recorder, _) = source.signal.take(while: { calls.increment(); return $0 > 0 }).record()
        source.send(1, 0, 2)
        #expect(recorder.events == [.next(1), .completed])
        #expect(calls.count == 2)
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func takeWhileForwardsTerminalEvents() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.take(while: { _ in true }).record()
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(Signal(sequence: [1]).take(while: { _ in true }).record().0.events == [.next(1), .completed])
    }

    @Test func takeWhileReleasesThePredicate() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let (recorder, _) = subject.signal.take(while: { [tracked] value in withExtendedLifetime(tracked) { value < 2 } }).record()
        tracked = nil
        subject.sendNext(1)
        #expect(!freed.isSet)
        subject.sendNext(2)
        #expect(recorder.events == [.next(1), .completed])
        #expect(freed.isSet)
    }
}

/// Lets a test reach a raw stage's sink from downstream.
final class _SinkBox: Sendable {
    private let storage = Recorder<@Sendable (Event<Int, Never>) -> Void, Never>()
    func set(_ sink: @escaping @Sendable (Event<Int, Never>) -> Void) { storage.append(.next(sink)) }
    var sink: (@Sendable (Event<Int, Never>) -> Void)? { storage.values.last }
}
