import Testing
import TetherSignals
import TetherTestSupport

@Suite("combinePrevious")
struct CombinePreviousTests {
    @Test func pairsEachValueWithThePreviousOneStartingFromTheInitial() {
        let (recorder, _) = Signal(sequence: [1, 2, 3]).combinePrevious(0).map { [$0, $1] }.record()
        #expect(recorder.events == [.next([0, 1]), .next([1, 2]), .next([2, 3]), .completed])
    }

    @Test func withoutInitialTheFirstValueOnlyBecomesThePrevious() {
        let (recorder, _) = Signal(sequence: [1, 2, 3]).combinePrevious().map { [$0, $1] }.record()
        #expect(recorder.events == [.next([1, 2]), .next([2, 3]), .completed])
        let (single, _) = Signal(sequence: [1]).combinePrevious().map { [$0, $1] }.record()
        #expect(single.events == [.completed])
    }

    @Test func eachSubscriptionStartsAfresh() {
        let subject = Subject<Int, Never>()
        let withInitial = subject.signal.combinePrevious(0).map { [$0, $1] }
        let withoutInitial = subject.signal.combinePrevious().map { [$0, $1] }
        let (first, _) = withInitial.record()
        let (firstWithout, _) = withoutInitial.record()
        subject.sendNext(1)
        let (second, _) = withInitial.record()
        let (secondWithout, _) = withoutInitial.record()
        subject.sendNext(2)
        subject.sendNext(3)
        #expect(first.events == [.next([0, 1]), .next([1, 2]), .next([2, 3])])
        #expect(second.events == [.next([0, 2]), .next([2, 3])])
        #expect(firstWithout.events == [.next([1, 2]), .next([2, 3])])
        #expect(secondWithout.events == [.next([2, 3])])
    }

    @Test func forwardsErrorAndDisposesUpstream() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.combinePrevious(0).map { [$0, $1] }.record()
        source.send(1)
        source.fail(.other(1))
        source.send(2)
        #expect(recorder.events == [.next([0, 1]), .error(.other(1))])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func disposingUnsubscribesAndReleasesThePreviousValue() {
        let freed = Flag()
        let source = CountingSource<Tracked, Never>()
        let (recorder, disposable) = source.signal.combinePrevious().map { _, _ in 1 }.record()
        source.send(Tracked { freed.set() })
        #expect(!freed.isSet, "the subscription holds the previous value")
        disposable.dispose()
        source.send(Tracked {})
        #expect(recorder.events == [])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
        #expect(freed.isSet)
    }

    @Test func valueSentFromTheCallbackIsPairedWithTheCurrentOne() {
        let subject = Subject<Int, Never>()
        let recorder = Recorder<[Int], Never>()
        _ = subject.signal.combinePrevious(0).subscribe(next: { previous, current in
            recorder.append(.next([previous, current]))
            if current < 3 { subject.sendNext(current + 1) }
            recorder.append(.next([-current]))
        })
        subject.sendNext(1)
        #expect(recorder.values == [[0, 1], [-1], [1, 2], [-2], [2, 3], [-3]])
    }

    @Test func valuesFromTwoThreadsFormAnUnbrokenChain() {
        for _ in 0..<20 {
            let count = 2_000
            let subject = Subject<Int, Never>()
            let overlap = OverlapDetector()
            let recorder = Recorder<[Int], Never>()
            _ = subject.signal.combinePrevious(-1).subscribe(next: { previous, current in
                overlap.enter()
                recorder.append(.next([previous, current]))
                overlap.leave()
            })
            runConcurrently(2) { index in
                for value in 0..<count { subject.sendNext(index * count + value) }
            }
            let pairs = recorder.values
            #expect(overlap.overlaps == 0)
            #expect(pairs.count == 2 * count)
            #expect(pairs.first?[0] == -1)
            #expect(zip(pairs, pairs.dropFirst()).allSatisfy { $0[1] == $1[0] }, "each previous is the current before it")
            #expect(Set(pairs.map { $0[1] }) == Set(0..<2 * count), "every value once")
        }
    }
}
