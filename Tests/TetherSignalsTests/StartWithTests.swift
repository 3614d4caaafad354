import Testing
import TetherSignals
import TetherTestSupport

@Suite("startWith and ignoreValues")
struct StartWithTests {
    @Test func startWithSendsTheValueFirst() {
        let (recorder, _) = Signal(sequence: [2, 3]).startWith(1).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
    }

    @Test func startWithValues() {
        let (recorder, _) = Signal(sequence: [3]).startWith(values: [1, 2]).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(Signal<Int, Never>.empty.startWith(values: []).record().0.events == [.completed])
    }

    @Test func startWithThenUpstreamLiveEventsAndDisposal() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.startWith(0).record()
        #expect(source.subscriptions.count == 1)
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.next(0), .next(1), .error(.boom)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func endingDuringTheStartValuesNeverSubscribesUpstream() {
        let source = CountingSource<Int, Never>()
        let (recorder, _) = source.signal.startWith(values: [1, 2, 3]).take(2).record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(source.subscriptions.count == 0)
        let (single, _) = source.signal.startWith(0).take(1).record()
        #expect(single.events == [.next(0), .completed])
        #expect(source.subscriptions.count == 0)
    }

    @Test func startWithRunsPerSubscription() {
        let signal = Signal(sequence: [5]).startWith(4)
        #expect(signal.record().0.events == [.next(4), .next(5), .completed])
        #expect(signal.record().0.events == [.next(4), .next(5), .completed])
    }

    @Test func ignoreValuesForwardsOnlyTheTerminalEvent() {
        #expect(Signal(sequence: [1, 2, 3]).ignoreValues().record().0.events == [.completed])
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.ignoreValues().record()
        source.send(1, 2)
        #expect(recorder.events == [])
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(source.cleanups.count == 1)
    }

    @Test func ignoreValuesDisposalUnsubscribes() {
        let source = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.ignoreValues().record()
        disposable.dispose()
        source.complete()
        #expect(recorder.events == [])
        #expect(!source.isSubscribed)
        #expect(source.cleanups.count == 1)
    }
}
