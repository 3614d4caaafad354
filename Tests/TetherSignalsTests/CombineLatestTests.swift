import Dispatch
import Synchronization
import Testing
import TetherSignals
import TetherTestSupport

@Suite("combineLatest")
struct CombineLatestTests {
    @Test func sendsNothingUntilEverySourceSentAValue() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<String, TestError>()
        let (recorder, _) = Signal.combineLatest(a.signal, b.signal).map { "\($0)\($1)" }.record()
        a.send(1)
        a.send(2)
        #expect(recorder.events == [])
        b.send("x")
        a.send(3)
        b.send("y")
        #expect(recorder.events == [.next("2x"), .next("3x"), .next("3y")])
    }

    @Test func completesWhenAllCompletedAndKeepsTheLastValueOfACompletedSource() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.combineLatest(a.signal, b.signal).map { [$0, $1] }.record()
        a.send(1)
        b.send(10)
        a.complete()
        #expect(a.live == 0, "a completed source is disposed at once")
        b.send(11)
        #expect(!recorder.isTerminated)
        b.complete()
        #expect(recorder.events == [.next([1, 10]), .next([1, 11]), .completed])
        #expect(b.live == 0)
    }

    @Test func aSourceThatCompletesWithoutAValueMeansNoValueEver() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.combineLatest(a.signal, b.signal).map { [$0, $1] }.record()
        a.complete()
        b.send(1)
        b.send(2)
        b.complete()
        #expect(recorder.events == [.completed])
    }

    @Test func anErrorEndsEverythingAndDisposesTheOthers() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let c = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = Signal.combineLatest(a.signal, b.signal, c.signal, reduce: { $0 + $1 + $2 }).record()
        a.send(1); b.send(2); c.send(3)
        b.fail(.other(2))
        a.send(10)
        #expect(recorder.events == [.next(6), .error(.other(2))])
        #expect(a.live == 0 && b.live == 0 && c.live == 0)
        #expect(disposable.isDisposed)
    }

    @Test func disposingDisposesEverySource() {
        let a = UpstreamProbe<Int, Never>()
        let b = UpstreamProbe<Int, Never>()
        let (recorder, disposable) = a.signal.combineLatest(with: b.signal).map { [$0, $1] }.record()
        a.send(1); b.send(2)
        disposable.dispose()
        a.send(3)
        #expect(recorder.events == [.next([1, 2])])
        #expect(a.live == 0 && b.live == 0)
    }

    @Test func threeAndFourSourcesWithAndWithoutReduce() {
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let c = Subject<Int, Never>()
        let d = Subject<Int, Never>()
        let (tuples3, _) = Signal.combineLatest(a.signal, b.signal, c.signal).map { [$0, $1, $2] }.record()
        let (sums3, _) = Signal.combineLatest(a.signal, b.signal, c.signal, reduce: { $0 + $1 + $2 }).record()
        let (tuples4, _) = Signal.combineLatest(a.signal, b.signal, c.signal, d.signal).map { [$0, $1, $2, $3] }.record()
        let (sums4, _) = Signal.combineLatest(a.signal, b.signal, c.signal, d.signal, reduce: { $0 + $1 + $2 + $3 }).record()
        let (sums2, _) = Signal.combineLatest(a.signal, b.signal, reduce: { $0 * $1 }).record()
        a.sendNext(1); b.sendNext(2); c.sendNext(3); d.sendNext(4)
        a.sendNext(10)
        for subject in [a, b, c, d] { subject.sendCompleted() }
        #expect(tuples3.events == [.next([1, 2, 3]), .next([10, 2, 3]), .completed])
        #expect(sums3.events == [.next(6), .next(15), .completed])
        #expect(tuples4.events == [.next([1, 2, 3, 4]), .next([10, 2, 3, 4]), .completed])
        #expect(sums4.events == [.next(10), .next(19), .completed])
        #expect(sums2.events == [.next(2), .next(20), .completed])
    }

    @Test func arraysOfSources() {
        let subjects = (0..<5).map { _ in Subject<Int, Never>() }
        let (arrays, _) = Signal.combineLatest(subjects.map(\.signal)).record()
        let (sums, _) = Signal.combineLatest(subjects.map(\.signal), reduce: { $0.reduce(0, +) }).record()
        for (index, subject) in subjects.enumerated() { subject.sendNext(index) }
        subjects[2].sendNext(20)
        for subject in subjects { subject.sendCompleted() }
        #expect(arrays.events == [.next([0, 1, 2, 3, 4]), .next([0, 1, 20, 3, 4]), .completed])
        #expect(sums.events == [.next(10), .next(28), .completed])
        let (empty, _) = Signal<Int, Never>.combineLatest([]).record()
        #expect(empty.events == [.completed])
    }

    @Test func reduceClosureIsReleasedAfterCompletion() {
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let (recorder, _) = Signal.combineLatest(a.signal, b.signal, reduce: { [tracked] x, y in
            _ = tracked
            return x + y
        }).record()
        tracked = nil
        a.sendNext(1); b.sendNext(2)
        #expect(!freed.isSet)
        a.sendCompleted(); b.sendCompleted()
        #expect(recorder.events == [.next(3), .completed])
        // The signal value still holds its recipe (and the closure) until it is dropped; here
        // the recipe was a temporary, so only the finished subscription could have held it.
        #expect(freed.isSet)
    }

    @Test func stressOutputFollowsTheOrderOfStateChanges() {
        let perSource = 2_000
        let subjects = (0..<3).map { _ in Subject<Int, Never>() }
        let overlap = OverlapDetector()
        let outputs = Counter()
        let regressions = Counter()
        let last = Mutex([0, 0, 0])
        let disposable = Signal.combineLatest(subjects[0].signal, subjects[1].signal, subjects[2].signal).subscribe(
            next: { x, y, z in
                overlap.enter()
                outputs.increment()
                last.withLock { last in
                    // Each source sends increasing values, so no component may ever go back.
                    if x < last[0] || y < last[1] || z < last[2] { regressions.increment() }
                    last = [x, y, z]
                }
                overlap.leave()
            }
        )
        for subject in subjects { subject.sendNext(0) }
        runConcurrently(3) { index in
            for value in 1...perSource { subjects[index].sendNext(value) }
        }
        #expect(overlap.overlaps == 0)
        #expect(outputs.count == 1 + 3 * perSource, "one output per update once primed")
        #expect(regressions.count == 0)
        #expect(last.withLock { $0 } == [perSource, perSource, perSource], "the last output is the final combination")
        disposable.dispose()
        #expect(subjects.allSatisfy { $0.subscriberCount == 0 })
    }

    @Test func stressReducedSumAndCompletion() {
        let perSource = 2_000
        let subjects = (0..<3).map { _ in Subject<Int, Never>() }
        let recorder = Recorder<Int, Never>()
        let overlap = OverlapDetector()
        _ = Signal.combineLatest(subjects[0].signal, subjects[1].signal, subjects[2].signal, reduce: { $0 + $1 + $2 })
            .subscribe(events: { event in
                overlap.enter()
                recorder.append(event)
                overlap.leave()
            })
        runConcurrently(3) { index in
            for value in 1...perSource { subjects[index].sendNext(value) }
            subjects[index].sendCompleted()
        }
        let events = recorder.events
        #expect(overlap.overlaps == 0)
        #expect(events.last == .completed)
        #expect(events.dropLast().last == .next(3 * perSource))
        #expect(events.filter(\.isTerminal).count == 1)
    }
}
