import Testing
import TetherSignals
import TetherTestSupport

@Suite("scan")
struct ScanTests {
    @Test func sendsEachRunningAccumulation() {
        let (recorder, _) = Signal(sequence: [1, 2, 3]).scan(0, +).record()
        #expect(recorder.events == [.next(1), .next(3), .next(6), .completed])
    }

    @Test func emptySignalSendsNothingButCompletion() {
        let (recorder, _) = Signal<Int, Never>.empty.scan(10, +).record()
        #expect(recorder.events == [.completed])
    }

    @Test func eachSubscriptionStartsFromTheInitialValue() {
        let signal = Signal(sequence: [1, 2]).scan(100, +)
        #expect(signal.record().0.events == [.next(101), .next(103), .completed])
        #expect(signal.record().0.events == [.next(101), .next(103), .completed])
    }

    @Test func forwardsErrorAndDisposesUpstream() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.scan(0, +).record()
        source.send(1, 2)
        source.fail(.other(7))
        source.send(3)
        #expect(recorder.events == [.next(1), .next(3), .error(.other(7))])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func scanIntoMutatesInPlace() {
        let (recorder, _) = Signal(sequence: ["a", "b", "c"])
            .scan(into: [String]()) { $0.append($1) }
            .record()
        #expect(recorder.events == [.next(["a"]), .next(["a", "b"]), .next(["a", "b", "c"]), .completed])
    }

    @Test func scanIntoEachSubscriptionStartsAfresh() {
        let signal = Signal(sequence: [1, 2]).scan(into: 0) { $0 += $1 }
        #expect(signal.record().0.events == [.next(1), .next(3), .completed])
        #expect(signal.record().0.events == [.next(1), .next(3), .completed])
    }

    @Test func disposingStopsDeliveryAndReleasesTheClosure() {
        let freed = Flag()
        let source = CountingSource<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let recorder = Recorder<Int, Never>()
        let disposable = recorder.record(source.signal.scan(0) { [tracked] sum, value in
            withExtendedLifetime(tracked) { sum + value }
        })
        tracked = nil
        source.send(4)
        disposable.dispose()
        source.send(5)
        #expect(recorder.events == [.next(4)])
        #expect(!source.isSubscribed)
        #expect(freed.isSet)
    }

    @Test func reentrantSendFromTheSubscriberIsAccumulatedInOrder() {
        let subject = Subject<Int, Never>()
        let recorder = Recorder<Int, Never>()
        _ = subject.signal.scan(0, +).subscribe(next: { sum in
            recorder.append(.next(sum))
            if sum == 1 { subject.sendNext(10) }
        })
        subject.sendNext(1)
        subject.sendNext(100)
        #expect(recorder.values == [1, 11, 111])
    }
}
