import Testing
import TetherSignals
import TetherTestSupport

@Suite("reduce and collect")
struct ReduceTests {
    @Test func reduceSendsTheFinalAccumulationOnCompletion() {
        let (recorder, _) = Signal(sequence: [1, 2, 3]).reduce(0, +).record()
        #expect(recorder.events == [.next(6), .completed])
    }

    @Test func reduceOfEmptySignalSendsTheInitialValue() {
        let (recorder, _) = Signal<Int, Never>.empty.reduce(42, +).record()
        #expect(recorder.events == [.next(42), .completed])
    }

    @Test func reduceSendsNothingBeforeCompletion() {
        let source = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.reduce(0, +).record()
        source.send(1, 2)
        #expect(recorder.events == [])
        source.send(3)
        source.complete()
        #expect(recorder.events == [.next(6), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func reduceForwardsErrorWithoutTheAccumulation() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.reduce(0, +).record()
        source.send(1, 2)
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(!source.isSubscribed)
    }

    @Test func reduceDisposedBeforeCompletionSendsNothing() {
        let source = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.reduce(0, +).record()
        source.send(1)
        disposable.dispose()
        source.complete()
        #expect(recorder.events == [])
        #expect(source.cleanups.count == 1)
    }

    @Test func reduceIntoAndFreshStatePerSubscription() {
        let signal = Signal(sequence: ["a", "b", "a"]).reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
        #expect(signal.record().0.events == [.next(["a": 2, "b": 1]), .completed])
        #expect(signal.record().0.events == [.next(["a": 2, "b": 1]), .completed])
    }

    @Test func reduceReleasesItsClosureAfterCompletion() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let recorder = Recorder<Int, Never>()
        recorder.record(subject.signal.reduce(0) { [tracked] sum, value in
            withExtendedLifetime(tracked) { sum + value }
        })
        tracked = nil
        subject.sendNext(2)
        #expect(!freed.isSet)
        subject.sendCompleted()
        #expect(recorder.events == [.next(2), .completed])
        #expect(freed.isSet)
    }

    @Test func collectSendsAllValuesAsOneArray() {
        let (recorder, _) = Signal(sequence: [1, 2, 3]).collect().record()
        #expect(recorder.events == [.next([1, 2, 3]), .completed])
    }

    @Test func collectOfEmptySignalSendsAnEmptyArray() {
        let (recorder, _) = Signal<Int, Never>.empty.collect().record()
        #expect(recorder.events == [.next([]), .completed])
    }

    @Test func collectForwardsErrorAndDisposesUpstream() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.collect().record()
        source.send(1, 2)
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func collectStartsAfreshPerSubscription() {
        let subject = ReplaySubject<Int, Never>()
        let signal = subject.signal.collect()
        let (first, _) = signal.record()
        subject.sendNext(1)
        let (second, _) = signal.record()
        subject.sendNext(2)
        subject.sendCompleted()
        #expect(first.events == [.next([1, 2]), .completed])
        #expect(second.events == [.next([1, 2]), .completed], "the replay subject replays 1 to the second")
        let (late, _) = Signal(sequence: [7]).collect().record()
        #expect(late.events == [.next([7]), .completed])
    }

    @Test func collectAcceptsValuesThatAreNotSendable() {
        let signal = Signal<NotSendable, Never> { observer in
            observer.sendNext(NotSendable(1))
            observer.sendNext(NotSendable(2))
            observer.sendCompleted()
            return nil
        }
        let (recorder, _) = signal.collect().record()
        #expect(recorder.events == [.next([NotSendable(1), NotSendable(2)]), .completed])
    }
}
