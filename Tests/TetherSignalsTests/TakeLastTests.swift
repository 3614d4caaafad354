import Testing
import TetherSignals
import TetherTestSupport

@Suite("take(last:)")
struct TakeLastTests {
    @Test func sendsTheLastValuesOnlyWhenTheSignalCompletes() {
        let source = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.take(last: 2).record()
        source.send(1, 2, 3, 4)
        #expect(recorder.events == [])
        source.complete()
        #expect(recorder.events == [.next(3), .next(4), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
    }

    @Test func sendsEverythingAtTheTimeOfCompletion() {
        let scheduler = TestScheduler()
        let source = Subject<Int, Never>()
        let (recorder, _) = source.signal.take(last: 3).recordTimed(on: scheduler)
        for (second, value) in [(1, 10), (2, 20), (3, 30), (4, 40)] {
            scheduler.advance(to: .seconds(second))
            source.sendNext(value)
        }
        scheduler.advance(to: .seconds(6))
        source.sendCompleted()
        #expect(recorder.history == [
            .at(.seconds(6), .next(20)),
            .at(.seconds(6), .next(30)),
            .at(.seconds(6), .next(40)),
            .at(.seconds(6), .completed),
        ])
    }

    @Test func fewerValuesThanTheCountAndZero() {
        #expect(Signal(sequence: [1, 2]).take(last: 5).record().0.events == [.next(1), .next(2), .completed])
        #expect(Signal(sequence: [1, 2]).take(last: 0).record().0.events == [.completed])
        #expect(Signal<Int, Never>.empty.take(last: 2).record().0.events == [.completed])
    }

    @Test func aFailureSendsOnlyTheFailure() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.take(last: 2).record()
        source.send(1, 2, 3)
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func disposingUnsubscribesAndReleasesTheKeptValues() {
        let freed = Counter()
        let source = CountingSource<Tracked, Never>()
        let (recorder, disposable) = source.signal.take(last: 2).map { _ in 1 }.record()
        source.send(Tracked { freed.increment() }, Tracked { freed.increment() }, Tracked { freed.increment() })
        #expect(freed.count == 1, "only the last two are kept")
        disposable.dispose()
        #expect(freed.count == 3)
        source.complete()
        #expect(recorder.events == [])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func disposingWhileTheKeptValuesAreSentStopsThem() {
        let source = Subject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        let stop = CompoundDisposable()
        // Raw: without the terminal subscriber, which would hide anything sent after disposal.
        stop.add(source.signal.take(last: 3).runRaw { event in
            recorder.append(event)
            if event == .next(2) { stop.dispose() }
        })
        source.sendNext(1)
        source.sendNext(2)
        source.sendNext(3)
        source.sendCompleted()
        #expect(recorder.events == [.next(1), .next(2)])
    }

    @Test func keepsTheLastValuesInTheOrderTheyArrivedFromTwoThreads() {
        for _ in 0..<20 {
            let count = 2_000
            let subject = Subject<Int, Never>()
            let all = Recorder<Int, Never>()
            all.record(subject.signal)
            let (last, _) = subject.signal.take(last: 5).record()
            runConcurrently(2) { index in
                for value in 0..<count { subject.sendNext(index * count + value) }
            }
            subject.sendCompleted()
            #expect(all.values.count == 2 * count)
            #expect(last.events == all.values.suffix(5).map { .next($0) } + [.completed])
        }
    }
}
