import Dispatch
import Synchronization
import Testing
import TetherSignals

@Suite("flatten and flatMap")
struct FlattenTests {
    typealias Inner = Signal<Int, TestError>

    // MARK: merge

    @Test func mergeForwardsEveryInnerAsItArrives() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.merge).record()
        outer.send(a.signal)
        a.send(1)
        outer.send(b.signal)
        b.send(10)
        a.send(2)
        a.complete()
        b.send(11)
        #expect(a.live == 0, "a finished inner is disposed at once")
        #expect(b.live == 1)
        outer.complete()
        #expect(!recorder.isTerminated, "an inner is still running")
        b.complete()
        #expect(recorder.events == [.next(1), .next(10), .next(2), .next(11), .completed])
        #expect(outer.live == 0 && a.live == 0 && b.live == 0)
    }

    @Test func mergeWaitsForTheOuterToComplete() {
        let outer = UpstreamProbe<Inner, TestError>()
        let (recorder, _) = outer.signal.flatMap { $0 }.record()
        outer.send(.just(1))
        outer.send(Signal(sequence: [2, 3]))
        #expect(recorder.events == [.next(1), .next(2), .next(3)], "all inners completed, the outer did not")
        outer.complete()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(outer.live == 0)
    }

    @Test func mergeOfAnEmptyOuterCompletes() {
        let (recorder, _) = Signal<Inner, TestError>.empty.flatten(.merge).record()
        #expect(recorder.events == [.completed])
    }

    @Test func mergeInnerErrorEndsEverything() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = outer.signal.flatten(.merge).record()
        outer.send(a.signal)
        outer.send(b.signal)
        a.send(1)
        b.fail(.boom)
        a.send(2)
        outer.send(.just(3))
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(a.live == 0 && b.live == 0 && outer.live == 0, "every upstream was disposed")
        #expect(disposable.isDisposed)
    }

    @Test func mergeOuterErrorEndsEverything() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.merge).record()
        outer.send(a.signal)
        a.send(1)
        outer.fail(.other(7))
        a.send(2)
        #expect(recorder.events == [.next(1), .error(.other(7))])
        #expect(a.live == 0 && outer.live == 0)
    }

    @Test func mergeDisposalDisposesOuterAndInners() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = outer.signal.flatten(.merge).record()
        outer.send(a.signal)
        outer.send(b.signal)
        a.send(1)
        disposable.dispose()
        a.send(2)
        b.send(3)
        #expect(recorder.events == [.next(1)])
        #expect(a.live == 0 && b.live == 0 && outer.live == 0)
        #expect(a.subject.subscriberCount == 0 && b.subject.subscriberCount == 0)
    }

    @Test func mergeReleasesAFinishedInnerWhileTheOuterRuns() {
        let outer = UpstreamProbe<Inner, TestError>()
        let source = Subject<Int, TestError>()
        let innerLifetime = WeakReference<CompoundDisposable>()
        let freed = Flag()
        // The inner holds a Tracked in its subscription (not in the signal value).
        let inner = Inner { observer in
            innerLifetime.set(observer.lifetime)
            let tracked = Tracked { freed.set() }
            let subscription = source.signal.subscribe(observer)
            return ActionDisposable {
                _ = tracked
                subscription.dispose()
            }
        }
        let (recorder, _) = outer.signal.flatten(.merge).record()
        outer.send(inner)
        source.sendNext(1)
        #expect(innerLifetime.object != nil, "the running inner's subscription is alive")
        #expect(!freed.isSet)
        source.sendCompleted()
        #expect(innerLifetime.object == nil, "the finished inner's lifetime was removed and freed")
        #expect(freed.isSet, "what the finished inner held was released")
        #expect(recorder.events == [.next(1)], "the outer still runs")
        #expect(outer.live == 1)
    }

    @Test func flatMapReleasesItsTransformWhenDisposed() {
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let outer = Subject<Int, TestError>()
        let disposable = outer.signal.flatMap { [tracked] value -> Inner in
            _ = tracked
            return .just(value * 10)
        }.subscribe(next: { _ in })
        tracked = nil
        outer.sendNext(1)
        #expect(!freed.isSet)
        disposable.dispose()
        #expect(freed.isSet)
        #expect(outer.subscriberCount == 0)
    }

    @Test func flatMapReleasesItsTransformWhenCompleted() {
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let outer = Subject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        recorder.record(outer.signal.flatMap { [tracked] value -> Inner in
            _ = tracked
            return .just(value * 10)
        })
        tracked = nil
        outer.sendNext(1)
        outer.sendCompleted()
        #expect(recorder.events == [.next(10), .completed])
        #expect(freed.isSet)
    }

    @Test func mergeManySynchronousInners() {
        let (recorder, _) = Signal(sequence: 0..<2_000).flatMap { Signal<Int, Never>.just($0) }.record()
        #expect(recorder.values == Array(0..<2_000))
        #expect(recorder.events.last == .completed)
    }

    @Test func mergeErrorStopsAnInfiniteSynchronousInner() {
        // b fails from inside the subscriber's callback while the infinite inner is sending:
        // the error disposes the infinite inner, whose loop then stops.
        let b = Subject<Int, TestError>()
        let recorder = Recorder<Int, TestError>()
        _ = Signal<Inner, TestError>(sequence: [b.signal, Inner(sequence: 1...)])
            .flatten(.merge)
            .subscribe(events: { event in
                recorder.append(event)
                if event == .next(3) { b.sendError(.boom) }
            })
        #expect(recorder.events == [.next(1), .next(2), .next(3), .error(.boom)])
        #expect(b.subscriberCount == 0)
    }

    // MARK: concat

    @Test func concatSubscribesToTheNextOnlyAfterThePreviousCompleted() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.concat).record()
        outer.send(a.signal)
        outer.send(b.signal)
        #expect(a.subscriptions.count == 1)
        #expect(b.subscriptions.count == 0, "b waits for a")
        a.send(1)
        b.send(99)   // nobody listens to b yet
        a.send(2)
        a.complete()
        #expect(a.live == 0, "a was disposed")
        #expect(b.subscriptions.count == 1)
        b.send(3)
        outer.complete()
        #expect(!recorder.isTerminated)
        b.complete()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(outer.live == 0 && b.live == 0)
    }

    @Test func concatErrorEndsEverythingAndSkipsTheRest() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.concat).record()
        outer.send(a.signal)
        outer.send(b.signal)
        a.send(1)
        a.fail(.boom)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(b.subscriptions.count == 0, "the signal after the error is never subscribed")
        #expect(a.live == 0 && outer.live == 0)
    }

    @Test func concatOfManySynchronousInnersUsesConstantStack() {
        let count = 20_000
        let (recorder, _) = Signal(sequence: 0..<count).flatMap(.concat) { Signal<Int, Never>.just($0) }.record()
        #expect(recorder.values.count == count)
        #expect(recorder.values == Array(0..<count))
        #expect(recorder.events.last == .completed)
    }

    @Test func concatInnerCompletingFromItsOwnCallbackStartsTheNext() {
        // An inner whose completion is sent by the subscriber's callback, re-entrantly.
        let a = Subject<Int, Never>()
        let b = UpstreamProbe<Int, Never>()
        let recorder = Recorder<Int, Never>()
        _ = Signal<Signal<Int, Never>, Never>(sequence: [a.signal, b.signal])
            .flatten(.concat)
            .subscribe(events: { event in
                recorder.append(event)
                if event == .next(1) { a.sendCompleted() }
            })
        a.sendNext(1)
        #expect(b.subscriptions.count == 1)
        b.send(2)
        b.complete()
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test func concatDisposalDisposesTheRunningInner() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = outer.signal.flatten(.concat).record()
        outer.send(a.signal)
        outer.send(b.signal)
        a.send(1)
        disposable.dispose()
        a.send(2)
        a.complete()
        #expect(recorder.events == [.next(1)])
        #expect(a.live == 0 && outer.live == 0)
        #expect(b.subscriptions.count == 0)
    }

    // MARK: latest

    @Test func latestDisposesThePreviousInner() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.latest).record()
        outer.send(a.signal)
        a.send(1)
        outer.send(b.signal)
        #expect(a.live == 0, "switching disposed a")
        a.send(2)
        b.send(3)
        b.complete()
        #expect(!recorder.isTerminated, "the outer still runs")
        outer.complete()
        #expect(recorder.events == [.next(1), .next(3), .completed])
        #expect(outer.live == 0 && b.live == 0)
    }

    @Test func latestCompletesAfterTheCurrentInnerWhenTheOuterDid() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.latest).record()
        outer.send(a.signal)
        outer.complete()
        a.send(1)
        #expect(!recorder.isTerminated)
        a.complete()
        #expect(recorder.events == [.next(1), .completed])
    }

    @Test func latestDropsEverythingFromAReplacedInnerThatKeepsSending() {
        // An inner that ignores disposal and keeps its sink.
        let stale = Mutex<Inner._Sink?>(nil)
        let rogue = Inner(_unchecked: { sink, _ in stale.withLock { $0 = sink } })
        let outer = Subject<Inner, TestError>()
        let b = Subject<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.latest).record()
        outer.sendNext(rogue)
        let rogueSink = stale.withLock { $0 }!
        rogueSink(.next(1))
        outer.sendNext(b.signal)
        rogueSink(.next(2))
        rogueSink(.error(.boom))
        rogueSink(.completed)
        b.sendNext(3)
        b.sendError(.other(1))
        #expect(recorder.events == [.next(1), .next(3), .error(.other(1))])
    }

    @Test func latestErrorFromTheOuterEndsEverything() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatMap(.latest) { $0.map { $0 * 2 } }.record()
        outer.send(a.signal)
        a.send(1)
        outer.fail(.boom)
        a.send(2)
        #expect(recorder.events == [.next(2), .error(.boom)])
        #expect(a.live == 0 && outer.live == 0)
    }

    @Test func latestReleasesTheReplacedInner() {
        let outer = Subject<Inner, TestError>()
        let innerLifetime = WeakReference<CompoundDisposable>()
        let freed = Flag()
        let first = Inner { [tracked = Tracked { freed.set() }] observer in
            innerLifetime.set(observer.lifetime)
            return ActionDisposable { _ = tracked }
        }
        let (_, disposable) = outer.signal.flatten(.latest).record()
        outer.sendNext(first)
        _ = consume first
        #expect(innerLifetime.object != nil)
        #expect(!freed.isSet)
        outer.sendNext(.never)
        #expect(innerLifetime.object == nil, "the replaced inner's subscription was freed")
        #expect(freed.isSet)
        disposable.dispose()
    }

    // MARK: stress

    @Test func mergeStressNeverOverlapsAndCountsExactly() {
        let sources = 4
        let perSource = 5_000
        let outer = Subject<Signal<Int, Never>, Never>()
        // Under contention the outer subject may queue an inner for the thread already
        // delivering, so an inner can be subscribed after its thread started sending: replay
        // subjects keep those values, so that every value must arrive exactly once.
        let inners = (0..<sources).map { _ in ReplaySubject<Int, Never>() }
        let overlap = OverlapDetector()
        let received = Counter()
        let completed = Counter()
        let lastPerSource = Mutex([Int](repeating: -1, count: sources))
        let orderViolations = Counter()
        let disposable = outer.signal.flatMap(.merge) { $0 }.subscribe(
            next: { value in
                overlap.enter()
                received.increment()
                let source = value / perSource
                lastPerSource.withLock { last in
                    if value <= last[source] { orderViolations.increment() }
                    last[source] = value
                }
                overlap.leave()
            },
            completed: {
                overlap.enter()
                completed.increment()
                overlap.leave()
            }
        )
        runConcurrently(sources) { index in
            outer.sendNext(inners[index].signal)
            for value in 0..<perSource { inners[index].sendNext(index * perSource + value) }
            inners[index].sendCompleted()
        }
        #expect(completed.count == 0, "the outer has not completed")
        outer.sendCompleted()
        #expect(overlap.overlaps == 0)
        #expect(received.count == sources * perSource)
        #expect(orderViolations.count == 0, "each inner's values keep their order")
        #expect(completed.count == 1)
        #expect(disposable.isDisposed)
        #expect(inners.allSatisfy { $0.subscriberCount == 0 })
    }

    @Test func latestStressNeverOverlaps() {
        let outer = Subject<Signal<Int, Never>, Never>()
        let inners = (0..<4).map { _ in Subject<Int, Never>() }
        let overlap = OverlapDetector()
        let recorder = Recorder<Int, Never>()
        _ = outer.signal.flatten(.latest).subscribe(events: { event in
            overlap.enter()
            recorder.append(event)
            overlap.leave()
        })
        runConcurrently(5) { index in
            if index == 4 {
                for round in 0..<400 { outer.sendNext(inners[round % 4].signal) }
                outer.sendNext(inners[0].signal)
                outer.sendCompleted()
            } else {
                for value in 0..<1_000 { inners[index].sendNext(value) }
            }
        }
        #expect(!recorder.isTerminated, "the current inner still runs")
        inners[0].sendNext(-1)
        inners[0].sendCompleted()
        #expect(overlap.overlaps == 0)
        #expect(recorder.events.last == .completed)
        #expect(recorder.values.last == -1)
        #expect(inners.allSatisfy { $0.subscriberCount == 0 })
    }
}
