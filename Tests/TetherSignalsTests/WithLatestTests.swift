import Testing
import TetherSignals
import TetherTestSupport

@Suite("withLatest(from:)")
struct WithLatestTests {
    @Test func pairsEachValueWithTheLatestOfOtherAndDropsValuesBeforeIt() {
        let source = CountingSource<Int, Never>()
        let other = CountingSource<String, Never>()
        let (recorder, _) = source.signal.withLatest(from: other.signal).map { "\($0)\($1)" }.record()
        source.send(1)                    // other has no value yet: dropped
        other.send("a")                   // other alone sends nothing
        other.send("b")
        source.send(2, 3)
        other.send("c")
        source.send(4)
        #expect(recorder.events == [.next("2b"), .next("3b"), .next("4c")])
    }

    @Test func otherIsSubscribedFirstSoItsImmediateValueIsThereForTheFirstValue() {
        let behavior = BehaviorSubject<String, Never>("x")
        let (recorder, _) = Signal(sequence: [1, 2])
            .withLatest(from: behavior.signal)
            .map { "\($0)\($1)" }
            .record()
        #expect(recorder.events == [.next("1x"), .next("2x"), .completed])
        #expect(behavior.subscriberCount == 0, "completion disposes other")
    }

    @Test func otherCompletingKeepsItsLastValueAndFreesItsSubscription() {
        let source = CountingSource<Int, Never>()
        let other = CountingSource<String, Never>()
        let (recorder, disposable) = source.signal.withLatest(from: other.signal).map { "\($0)\($1)" }.record()
        other.send("a")
        other.complete()
        #expect(other.cleanups.count == 1)
        #expect(!other.isSubscribed)
        source.send(1, 2)
        #expect(!recorder.isTerminated)
        source.complete()
        #expect(recorder.events == [.next("1a"), .next("2a"), .completed])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1)
    }

    @Test func otherCompletingWithoutAValueDropsEveryValueUntilThisSignalEnds() {
        let source = CountingSource<Int, Never>()
        let (recorder, _) = source.signal
            .withLatest(from: Signal<Int, Never>.empty)
            .map { $0 + $1 }
            .record()
        source.send(1, 2)
        #expect(recorder.events == [])
        source.complete()
        #expect(recorder.events == [.completed])
        #expect(source.cleanups.count == 1)
    }

    @Test func completionDisposesOther() {
        let source = CountingSource<Int, Never>()
        let other = CountingSource<Int, Never>()
        let (recorder, _) = source.signal.withLatest(from: other.signal).map { $0 + $1 }.record()
        other.send(10)
        source.send(1)
        source.complete()
        other.send(20)
        #expect(recorder.events == [.next(11), .completed])
        #expect(other.cleanups.count == 1 && source.cleanups.count == 1)
        #expect(!other.isSubscribed)
    }

    @Test func aFailureOfOtherFailsAndDisposesThisSignal() {
        let source = CountingSource<Int, TestError>()
        let other = CountingSource<Int, TestError>()
        let (recorder, disposable) = source.signal.withLatest(from: other.signal).map { $0 + $1 }.record()
        other.send(10)
        source.send(1)
        other.fail(.other(4))
        source.send(2)
        #expect(recorder.events == [.next(11), .error(.other(4))])
        #expect(disposable.isDisposed)
        #expect(source.cleanups.count == 1 && other.cleanups.count == 1)
        #expect(!source.isSubscribed && !other.isSubscribed)
    }

    @Test func aFailureOfThisSignalFailsAndDisposesOther() {
        let source = CountingSource<Int, TestError>()
        let other = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.withLatest(from: other.signal).map { $0 + $1 }.record()
        source.send(1)
        source.fail(.boom)
        #expect(recorder.events == [.error(.boom)])
        #expect(other.cleanups.count == 1)
        #expect(!other.isSubscribed)
    }

    @Test func otherFailingAtOnceNeverSubscribesThisSignal() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.withLatest(from: Signal<Int, TestError>(error: .boom)).map { $0 + $1 }.record()
        #expect(recorder.events == [.error(.boom)])
        #expect(source.subscriptions.count == 0)
    }

    @Test func disposingDisposesBothUpstreamsAndReleasesTheLatestValue() {
        let freed = Flag()
        let source = CountingSource<Int, Never>()
        let other = CountingSource<Tracked, Never>()
        let (recorder, disposable) = source.signal.withLatest(from: other.signal).map { value, _ in value }.record()
        other.send(Tracked { freed.set() })
        source.send(1)
        #expect(!freed.isSet, "the subscription holds other's latest value")
        disposable.dispose()
        source.send(2)
        #expect(recorder.events == [.next(1)])
        #expect(source.cleanups.count == 1 && other.cleanups.count == 1)
        #expect(!source.isSubscribed && !other.isSubscribed)
        #expect(freed.isSet)
    }

    @Test func subscriberChangingOtherFromItsCallbackAffectsTheNextValue() {
        let source = Subject<Int, Never>()
        let other = Subject<String, Never>()
        let recorder = Recorder<String, Never>()
        _ = source.signal.withLatest(from: other.signal).subscribe(next: { value, latest in
            recorder.append(.next("\(value)\(latest)"))
            if value == 1 {
                other.sendNext("b")
                source.sendNext(2)    // queued: delivered after this callback returns
            }
            recorder.append(.next("end \(value)"))
        })
        other.sendNext("a")
        source.sendNext(1)
        #expect(recorder.events == [.next("1a"), .next("end 1"), .next("2b"), .next("end 2")])
    }

    @Test func aFailureOfOtherSentFromTheCallbackWaitsForTheCallbackToFinish() {
        let source = Subject<Int, TestError>()
        let other = Subject<String, TestError>()
        let recorder = Recorder<String, TestError>()
        _ = source.signal.withLatest(from: other.signal).subscribe(
            next: { value, latest in
                recorder.append(.next("begin \(value)\(latest)"))
                other.sendError(.boom)    // the other upstream: the operator queues it
                recorder.append(.next("end \(value)"))
            },
            error: { recorder.append(.error($0)) }
        )
        other.sendNext("a")
        source.sendNext(1)
        source.sendNext(2)
        #expect(recorder.events == [.next("begin 1a"), .next("end 1"), .error(.boom)])
        #expect(source.subscriberCount == 0 && other.subscriberCount == 0)
    }

    @Test func valuesAndOtherOnDifferentThreadsLoseNothing() {
        for _ in 0..<20 {
            let count = 2_000
            let source = Subject<Int, Never>()
            let other = Subject<Int, Never>()
            let overlap = OverlapDetector()
            let recorder = Recorder<[Int], Never>()
            _ = source.signal.withLatest(from: other.signal).subscribe(events: { event in
                overlap.enter()
                recorder.append(event.map { [$0.0, $0.1] })
                overlap.leave()
            })
            other.sendNext(0)
            runConcurrently(2) { index in
                if index == 0 {
                    for value in 1...count { source.sendNext(value) }
                } else {
                    for value in 1...count { other.sendNext(value) }
                    other.sendCompleted()
                }
            }
            source.sendNext(count + 1)
            source.sendCompleted()
            let pairs = recorder.values
            #expect(overlap.overlaps == 0)
            #expect(pairs.map { $0[0] } == Array(1...count + 1), "every value, once, in order")
            let latest = pairs.map { $0[1] }
            #expect(zip(latest, latest.dropFirst()).allSatisfy { $0 <= $1 }, "other's latest never goes back")
            #expect(latest.last == count)
            #expect(recorder.events.last == .completed)
            #expect(source.subscriberCount == 0 && other.subscriberCount == 0)
        }
    }
}
