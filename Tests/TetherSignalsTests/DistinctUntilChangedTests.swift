import Testing
import TetherSignals
import TetherTestSupport

@Suite("distinctUntilChanged")
struct DistinctUntilChangedTests {
    @Test func dropsRepeats() {
        let (recorder, _) = Signal(sequence: [1, 1, 2, 2, 2, 1, 3, 3]).distinctUntilChanged().record()
        #expect(recorder.events == [.next(1), .next(2), .next(1), .next(3), .completed])
    }

    @Test func customEquivalence() {
        let (recorder, _) = Signal(sequence: ["a", "A", "b", "B", "a"])
            .distinctUntilChanged(by: { $0.lowercased() == $1.lowercased() })
            .record()
        #expect(recorder.events == [.next("a"), .next("b"), .next("a"), .completed])
    }

    @Test func comparesWithTheLastValueSent() {
        // 2 is within 1 of 1 (dropped); 3 is compared with 1, not with the dropped 2.
        let (recorder, _) = Signal(sequence: [1, 2, 3, 4])
            .distinctUntilChanged(by: { abs($0 - $1) <= 1 })
            .record()
        #expect(recorder.events == [.next(1), .next(3), .completed])
    }

    @Test func eachSubscriptionStartsAfresh() {
        let subject = Subject<Int, Never>()
        let signal = subject.signal.distinctUntilChanged()
        let (first, _) = signal.record()
        subject.sendNext(1)
        let (second, _) = signal.record()
        subject.sendNext(1)
        subject.sendNext(2)
        #expect(first.events == [.next(1), .next(2)])
        #expect(second.events == [.next(1), .next(2)])
    }

    @Test func forwardsErrorAndDisposesUpstream() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.distinctUntilChanged().record()
        source.send(1, 1)
        source.fail(.boom)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func releasesTheComparatorAndTheLastValue() {
        let comparatorFreed = Flag()
        let valueFreed = Flag()
        let subject = Subject<Tracked, Never>()
        var tracked: Tracked? = Tracked { comparatorFreed.set() }
        let seen = Counter()
        let disposable = subject.signal
            .distinctUntilChanged(by: { [tracked] a, b in withExtendedLifetime(tracked) { a === b } })
            .subscribe(next: { _ in seen.increment() })
        tracked = nil
        subject.sendNext(Tracked { valueFreed.set() })
        #expect(seen.count == 1)
        #expect(!valueFreed.isSet, "the last value is kept to compare with the next")
        disposable.dispose()
        #expect(comparatorFreed.isSet)
        #expect(valueFreed.isSet)
    }
}
