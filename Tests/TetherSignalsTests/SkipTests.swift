import Testing
import TetherSignals
import TetherTestSupport

@Suite("skip and skip(while:)")
struct SkipTests {
    @Test func skipDropsTheFirstValues() {
        let (recorder, _) = Signal(sequence: [1, 2, 3, 4]).skip(2).record()
        #expect(recorder.events == [.next(3), .next(4), .completed])
    }

    @Test func skipZeroAndSkipMoreThanThereAre() {
        #expect(Signal(sequence: [1, 2]).skip(0).record().0.events == [.next(1), .next(2), .completed])
        #expect(Signal(sequence: [1, 2]).skip(5).record().0.events == [.completed])
    }

    @Test func skipForwardsErrorWhileSkippingAndDisposesUpstream() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.skip(3).record()
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func skipCountsPerSubscription() {
        let subject = Subject<Int, Never>()
        let signal = subject.signal.skip(1)
        let (first, _) = signal.record()
        subject.sendNext(1)
        let (second, _) = signal.record()
        subject.sendNext(2)
        subject.sendNext(3)
        #expect(first.events == [.next(2), .next(3)])
        #expect(second.events == [.next(3)])
    }

    @Test func skipDisposalUnsubscribes() {
        let source = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.skip(1).record()
        source.send(1, 2)
        disposable.dispose()
        source.send(3)
        #expect(recorder.events == [.next(2)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func skipWhileDropsUntilThePredicateFails() {
        let (recorder, _) = Signal(sequence: [1, 2, 5, 1, 6]).skip(while: { $0 < 3 }).record()
        #expect(recorder.events == [.next(5), .next(1), .next(6), .completed])
    }

    @Test func skipWhileStopsCallingThePredicate() {
        let calls = Counter()
        let (recorder, _) = Signal(sequence: [1, 5, 1, 1]).skip(while: { calls.increment(); return $0 < 3 }).record()
        #expect(recorder.events == [.next(5), .next(1), .next(1), .completed])
        #expect(calls.count == 2)
    }

    @Test func skipWhileForwardsTerminalEventsWhileSkipping() {
        #expect(Signal(sequence: [1, 2]).skip(while: { _ in true }).record().0.events == [.completed])
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.skip(while: { _ in true }).record()
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(!source.isSubscribed)
    }

    @Test func skipWhileReleasesThePredicate() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let (recorder, disposable) = subject.signal
            .skip(while: { [tracked] value in withExtendedLifetime(tracked) { value < 2 } })
            .record()
        tracked = nil
        subject.sendNext(1)
        subject.sendNext(2)
        #expect(!freed.isSet)
        disposable.dispose()
        #expect(recorder.events == [.next(2)])
        #expect(freed.isSet)
    }
}
