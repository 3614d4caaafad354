import Dispatch
import Synchronization
import Testing
import TetherSignals
import TetherTestSupport

@Suite("zip")
struct ZipTests {
    @Test func zipPairsValuesByPosition() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<String, TestError>()
        let (recorder, _) = Signal.zip(a.signal, b.signal).map { "\($0)\($1)" }.record()
        a.send(1)
        a.send(2)
        #expect(recorder.events == [], "a's values wait for partners")
        b.send("x")
        b.send("y")
        b.send("z")
        a.send(3)
        #expect(recorder.events == [.next("1x"), .next("2y"), .next("3z")])
    }

    @Test func zipCompletesWhenACompletedSourceIsDrained() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.zip(a.signal, b.signal).map { [$0, $1] }.record()
        a.send(1)
        a.send(2)
        a.complete()
        #expect(!recorder.isTerminated, "a's buffered values can still be paired")
        b.send(10)
        #expect(!recorder.isTerminated)
        b.send(20)
        #expect(recorder.events == [.next([1, 10]), .next([2, 20]), .completed])
        #expect(a.live == 0 && b.live == 0, "b was disposed when no pair could be formed any more")
    }

    @Test func zipCompletesAtOnceWhenASourceCompletesWithAnEmptyBuffer() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.zip(a.signal, b.signal).map { [$0, $1] }.record()
        a.send(1)
        b.complete()
        #expect(recorder.events == [.completed])
        #expect(a.live == 0)
    }

    @Test func zipOfThreeAndFour() {
        let (three, _) = Signal.zip(Signal(sequence: [1, 2]), Signal(sequence: [10, 20, 30]), Signal(sequence: [100, 200]))
            .map { $0 + $1 + $2 }.record()
        #expect(three.events == [.next(111), .next(222), .completed])
        let (four, _) = Signal.zip(Signal(sequence: [1]), Signal(sequence: ["a"]), Signal(sequence: [true]), Signal(sequence: [2.5]))
            .map { "\($0)\($1)\($2)\($3)" }.record()
        #expect(four.events == [.next("1atrue2.5"), .completed])
    }

    @Test func zipOfAnArray() {
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let c = Subject<Int, Never>()
        let (recorder, _) = Signal.zip([a.signal, b.signal, c.signal]).record()
        a.sendNext(1); b.sendNext(2); a.sendNext(4)
        c.sendNext(3)
        c.sendNext(6); b.sendNext(5)
        c.sendCompleted()
        #expect(recorder.events == [.next([1, 2, 3]), .next([4, 5, 6]), .completed])
        #expect(a.subscriberCount == 0 && b.subscriberCount == 0)
        let (empty, _) = Signal<Int, Never>.zip([]).record()
        #expect(empty.events == [.completed])
    }

    @Test func zipWith() {
        let (recorder, _) = Signal(sequence: [1, 2, 3]).zip(with: Signal(sequence: ["a", "b"])).map { "\($0)\($1)" }.record()
        #expect(recorder.events == [.next("1a"), .next("2b"), .completed])
    }

    @Test func anErrorEndsTheZipAndDisposesTheOthers() {
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let c = UpstreamProbe<Int, TestError>()
        let (recorder, _) = Signal.zip(a.signal, b.signal, c.signal).map { [$0, $1, $2] }.record()
        a.send(1); b.send(2); c.send(3)
        a.send(4)
        b.fail(.boom)
        c.send(6)
        #expect(recorder.events == [.next([1, 2, 3]), .error(.boom)])
        #expect(a.live == 0 && b.live == 0 && c.live == 0)
    }

    @Test func disposingTheZipDisposesEverySourceAndFreesItsBuffers() {
        let a = UpstreamProbe<Tracked, Never>()
        let b = UpstreamProbe<Int, Never>()
        let freed = Flag()
        let disposable = Signal.zip(a.signal, b.signal).subscribe(next: { _ in })
        a.send(Tracked { freed.set() })
        #expect(!freed.isSet, "the unpaired value is buffered")
        disposable.dispose()
        #expect(freed.isSet, "disposing freed the buffer")
        #expect(a.live == 0 && b.live == 0)
    }

    @Test func aPairedValueIsNotKeptInTheBuffer() {
        let a = Subject<Tracked, Never>()
        let b = Subject<Int, Never>()
        let freed = Flag()
        let disposable = Signal.zip(a.signal, b.signal).subscribe(next: { _ in })
        a.sendNext(Tracked { freed.set() })
        b.sendNext(1)
        #expect(freed.isSet, "once paired and delivered, the value is released")
        disposable.dispose()
    }

    @Test func stressFromTwoThreadsPairsExactlyInOrder() {
        let count = 3_000
        let a = Subject<Int, Never>()
        let b = Subject<Int, Never>()
        let overlap = OverlapDetector()
        let pairs = Counter()
        let mismatches = Counter()
        let completions = Counter()
        _ = Signal.zip(a.signal, b.signal).subscribe(
            next: { x, y in
                overlap.enter()
                let index = pairs.increment() - 1
                if x != index || y != -index { mismatches.increment() }
                overlap.leave()
            },
            completed: {
                overlap.enter()
                completions.increment()
                overlap.leave()
            }
        )
        runConcurrently(2) { index in
            for value in 0..<count {
                if index == 0 { a.sendNext(value) } else { b.sendNext(-value) }
            }
            if index == 0 { a.sendCompleted() }
        }
        #expect(overlap.overlaps == 0)
        #expect(pairs.count == count)
        #expect(mismatches.count == 0)
        #expect(completions.count == 1)
        #expect(a.subscriberCount == 0 && b.subscriberCount == 0)
    }
}
