import Testing
import TetherSignals
import TetherTestSupport

@Suite("concat")
struct ConcatTests {
    @Test func concatSendsEachSignalInTurn() {
        let (recorder, _) = Signal(sequence: [1, 2]).concat(Signal(sequence: [3])).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        let (all, _) = Signal.concat([.just(1), .empty, Signal(sequence: [2, 3]), .just(4)]).record()
        #expect(all.events == [.next(1), .next(2), .next(3), .next(4), .completed])
    }

    @Test func concatOfNothingCompletes() {
        let (recorder, _) = Signal<Int, TestError>.concat([]).record()
        #expect(recorder.events == [.completed])
    }

    @Test func theNextSignalIsSubscribedOnlyAfterThePreviousCompleted() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let c = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.concat([a.signal, b.signal, c.signal]).record()
        #expect(a.subscriptions.count == 1 && b.subscriptions.count == 0 && c.subscriptions.count == 0)
        a.send(1)
        a.complete()
        #expect(a.live == 0, "a was disposed before b started")
        #expect(b.subscriptions.count == 1 && c.subscriptions.count == 0)
        b.send(2)
        b.complete()
        #expect(c.subscriptions.count == 1)
        c.send(3)
        #expect(!recorder.isTerminated)
        c.complete()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(a.live == 0 && b.live == 0 && c.live == 0)
    }

    @Test func anErrorEndsEverythingAndLaterSignalsAreNeverSubscribed() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = a.signal.concat(b.signal).record()
        a.send(1)
        a.fail(.boom)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(b.subscriptions.count == 0)
        #expect(a.live == 0)
        #expect(disposable.isDisposed)
    }

    @Test func disposingStopsTheCurrentSignalAndNeverStartsTheNext() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = a.signal.concat(b.signal).record()
        a.send(1)
        disposable.dispose()
        a.send(2)
        a.complete()
        #expect(recorder.events == [.next(1)])
        #expect(a.live == 0)
        #expect(b.subscriptions.count == 0)
    }

    @Test func aCompletedSignalIsReleasedBeforeTheNextRuns() {
        let first = WeakReference<CompoundDisposable>()
        let freed = Flag()
        let a = Signal<Int, Never> { observer in
            first.set(observer.lifetime)
            let tracked = Tracked { freed.set() }
            observer.sendNext(1)
            observer.sendCompleted()
            return ActionDisposable { _ = tracked }
        }
        let b = Subject<Int, Never>()
        let (recorder, _) = a.concat(b.signal).record()
        #expect(freed.isSet)
        #expect(first.object == nil, "the finished signal's subscription is gone")
        b.sendNext(2)
        #expect(recorder.events == [.next(1), .next(2)])
    }

    @Test func concatIsCold() {
        let runs = Counter()
        let counted = Signal<Int, Never>.deferred { .just(runs.increment()) }
        let concatenated = counted.concat(counted)
        #expect(runs.count == 0)
        #expect(concatenated.record().0.events == [.next(1), .next(2), .completed])
        #expect(concatenated.record().0.events == [.next(3), .next(4), .completed])
    }
}
