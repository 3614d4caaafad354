import Testing
import TetherSignals
import TetherTestSupport

@Suite("compactMap")
struct CompactMapTests {
    @Test func dropsNilResultsAndForwardsCompletion() {
        let (recorder, _) = Signal(sequence: ["1", "x", "3", ""]).compactMap { Int($0) }.record()
        #expect(recorder.events == [.next(1), .next(3), .completed])
    }

    @Test func forwardsErrorAndDisposesUpstream() {
        let source = CountingSource<String, TestError>()
        let (recorder, disposable) = source.signal.compactMap { Int($0) }.record()
        source.send("1", "x")
        source.fail(.boom)
        source.send("2")
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func disposingStopsDeliveryAndUnsubscribes() {
        let source = CountingSource<String, Never>()
        let (recorder, disposable) = source.signal.compactMap { Int($0) }.record()
        source.send("5")
        disposable.dispose()
        source.send("6")
        #expect(recorder.events == [.next(5)])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
    }

    @Test func releasesTransformAfterDisposal() {
        let freed = Flag()
        let subject = Subject<Int, Never>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = subject.signal.compactMap { [tracked] value in tracked == nil ? nil : value }.subscribe()
        tracked = nil
        #expect(!freed.isSet)
        disposable.dispose()
        #expect(freed.isSet)
    }
}
