import Synchronization
import Testing
import TetherSignals
import TetherTestSupport

@Suite("sample(on:)")
struct SampleTests {
    @Test func eachSamplerValueSendsTheLatestValueEvenIfUnchanged() {
        let source = CountingSource<Int, Never>()
        let sampler = CountingSource<Void, Never>()
        let (recorder, _) = source.signal.sample(on: sampler.signal).record()
        sampler.send(())                  // no value yet: nothing
        source.send(1, 2)
        sampler.send(())                  // 2
        sampler.send(())                  // 2 again (ReactiveSwift), not skipped (RxSwift)
        source.send(3)
        source.send(4)
        sampler.send(())                  // 4
        #expect(recorder.events == [.next(2), .next(2), .next(4)])
    }

    @Test func samplesOnAVirtualClock() {
        let scheduler = TestScheduler()
        let source = Subject<String, Never>()
        let (recorder, _) = source.signal
            .sample(on: Signal.interval(.seconds(1), on: scheduler))
            .recordTimed(on: scheduler)
        scheduler.advance(to: .milliseconds(500))
        source.sendNext("a")
        scheduler.advance(to: .milliseconds(1500))
        source.sendNext("b")
        source.sendNext("c")
        scheduler.advance(to: .milliseconds(3500))
        #expect(recorder.history == [
            .at(.seconds(1), .next("a")),
            .at(.seconds(2), .next("c")),   // "b" was replaced before the tick
            .at(.seconds(3), .next("c")),   // unchanged, sent again
        ])
    }

    @Test func theSampledSignalCompletingFirstKeepsItsLastValueUntilTheSamplerCompletes() {
        let source = CountingSource<Int, Never>()
        let sampler = CountingSource<Void, Never>()
        let (recorder, disposable) = source.signal.sample(on: sampler.signal).record()
        source.send(1)
        source.complete()
        #expect(source.cleanups.count == 1, "a completed upstream is disposed at once")
        #expect(!recorder.isTerminated)
        sampler.send(())
        sampler.send(())
        sampler.complete()
        #expect(recorder.events == [.next(1), .next(1), .completed])
        #expect(disposable.isDisposed)
        #expect(sampler.cleanups.count == 1)
        #expect(!sampler.isSubscribed)
    }

    @Test func theSamplerCompletingFirstWaitsForTheSampledSignalToComplete() {
        let source = CountingSource<Int, Never>()
        let sampler = CountingSource<Void, Never>()
        let (recorder, _) = source.signal.sample(on: sampler.signal).record()
        source.send(1)
        sampler.send(())
        sampler.complete()
        #expect(sampler.cleanups.count == 1, "a completed sampler is disposed at once")
        source.send(2)
        #expect(!recorder.isTerminated)
        source.complete()
        #expect(recorder.events == [.next(1), .completed])
        #expect(source.cleanups.count == 1)
    }

    @Test func aFailureOfTheSampledSignalFailsAndDisposesTheSampler() {
        let source = CountingSource<Int, TestError>()
        let sampler = CountingSource<Void, TestError>()
        let (recorder, disposable) = source.signal.sample(on: sampler.signal).record()
        source.send(1)
        sampler.send(())
        source.fail(.boom)
        sampler.send(())
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1 && sampler.cleanups.count == 1)
        #expect(!source.isSubscribed && !sampler.isSubscribed)
    }

    @Test func aFailureOfTheSamplerFailsAndDisposesTheSampledSignal() {
        let source = CountingSource<Int, TestError>()
        let sampler = CountingSource<String, TestError>()
        let (recorder, _) = source.signal.sample(on: sampler.signal).record()
        source.send(1)
        sampler.send("tick")
        sampler.fail(.other(2))
        source.send(2)
        #expect(recorder.events == [.next(1), .error(.other(2))])
        #expect(source.cleanups.count == 1 && sampler.cleanups.count == 1)
    }

    @Test func aSamplerThatCannotFailIsPromoted() {
        let source = Subject<Int, TestError>()
        let sampler = Subject<Void, Never>()
        let (recorder, _) = source.signal.sample(on: sampler.signal.promoteError()).record()
        source.sendNext(7)
        sampler.sendNext(())
        source.sendError(.boom)
        #expect(recorder.events == [.next(7), .error(.boom)])
        #expect(sampler.subscriberCount == 0)
    }

    @Test func disposingDisposesBothUpstreams() {
        let source = CountingSource<Int, Never>()
        let sampler = CountingSource<Void, Never>()
        let (recorder, disposable) = source.signal.sample(on: sampler.signal).record()
        source.send(1)
        sampler.send(())
        disposable.dispose()
        source.send(2)
        sampler.send(())
        #expect(recorder.events == [.next(1)])
        #expect(source.cleanups.count == 1 && sampler.cleanups.count == 1)
        #expect(!source.isSubscribed && !sampler.isSubscribed)
    }

    @Test func disposingReleasesTheLatestValue() {
        let freed = Flag()
        let source = Subject<Tracked, Never>()
        let sampler = Subject<Void, Never>()
        let (_, disposable) = source.signal.sample(on: sampler.signal).record()
        source.sendNext(Tracked { freed.set() })
        #expect(!freed.isSet, "the subscription holds the latest value")
        disposable.dispose()
        #expect(freed.isSet)
    }

    @Test func subscriberSendingIntoBothUpstreamsFromItsCallback() {
        let source = Subject<Int, Never>()
        let sampler = Subject<Void, Never>()
        let recorder = Recorder<Int, Never>()
        let overlap = OverlapDetector()
        _ = source.signal.sample(on: sampler.signal).subscribe(next: { value in
            overlap.enter()
            recorder.append(.next(value))
            if value < 3 {
                source.sendNext(value + 1)
                sampler.sendNext(())   // queued: delivered after this callback returns
            }
            recorder.append(.next(value * 100))
            overlap.leave()
        })
        source.sendNext(1)
        sampler.sendNext(())
        sampler.sendNext(())   // no new value: the latest again
        #expect(recorder.events == [
            .next(1), .next(100), .next(2), .next(200), .next(3), .next(300), .next(3), .next(300),
        ])
        #expect(overlap.overlaps == 0, "never re-entered")
    }

    @Test func aFailureSentFromTheCallbackWaitsForTheCallbackToFinish() {
        let source = Subject<Int, TestError>()
        let sampler = Subject<Void, TestError>()
        let recorder = Recorder<String, TestError>()
        _ = source.signal.sample(on: sampler.signal).subscribe(
            next: { value in
                recorder.append(.next("begin \(value)"))
                source.sendError(.boom)   // the other upstream: the operator queues it
                recorder.append(.next("end \(value)"))
            },
            error: { recorder.append(.error($0)) }
        )
        source.sendNext(1)
        sampler.sendNext(())
        #expect(recorder.events == [.next("begin 1"), .next("end 1"), .error(.boom)])
        #expect(source.subscriberCount == 0 && sampler.subscriberCount == 0)
    }

    @Test func samplingWhileValuesArriveOnAnotherThread() {
        for _ in 0..<20 {
            let count = 2_000
            let source = Subject<Int, Never>()
            let sampler = Subject<Void, Never>()
            let overlap = OverlapDetector()
            let recorder = Recorder<Int, Never>()
            _ = source.signal.sample(on: sampler.signal).subscribe(events: { event in
                overlap.enter()
                recorder.append(event)
                overlap.leave()
            })
            source.sendNext(0)
            runConcurrently(2) { index in
                if index == 0 {
                    for value in 1...count { source.sendNext(value) }
                    source.sendCompleted()
                } else {
                    for _ in 0..<count { sampler.sendNext(()) }
                }
            }
            sampler.sendNext(())
            sampler.sendCompleted()
            let values = recorder.values
            #expect(overlap.overlaps == 0)
            #expect(values.count == count + 1, "one value per sampler value")
            #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "samples never go back")
            #expect(values.allSatisfy { (0...count).contains($0) })
            #expect(values.last == count, "the last sample is the last value")
            #expect(recorder.events.last == .completed)
            #expect(recorder.events.filter(\.isTerminal).count == 1)
            #expect(source.subscriberCount == 0 && sampler.subscriberCount == 0)
        }
    }
}
