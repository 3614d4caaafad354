import Dispatch
import Synchronization
import Testing
import TetherSignals
import TetherTestSupport

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

    // MARK: concurrent(limit:)

    /// An inner signal that, `duration` after it is subscribed, sends `value` and completes;
    /// it logs the virtual time of its subscription into `starts`.
    func timedInner(
        _ value: Int, after duration: Duration, on scheduler: TestScheduler, starts: Recorder<Timed<Int, Never>, Never>
    ) -> Inner {
        Inner { observer in
            starts.append(.next(.at(scheduler.now, .next(value))))
            return scheduler.schedule(after: duration) {
                observer.sendNext(value)
                observer.sendCompleted()
            }
        }
    }

    @Test func concurrentStartsAQueuedInnerExactlyWhenARunningOneCompletes() {
        let scheduler = TestScheduler()
        let starts = Recorder<Timed<Int, Never>, Never>()
        let inners = [(1, 3), (2, 1), (3, 2), (4, 1)].map { value, seconds in
            timedInner(value, after: .seconds(seconds), on: scheduler, starts: starts)
        }
        let (recorder, _) = Signal<Inner, TestError>(sequence: inners)
            .flatten(.concurrent(limit: 2))
            .recordTimed(on: scheduler)
        scheduler.advance(by: .seconds(10))
        // 1 and 2 start at once; 3 waits for 2 (done at 1 s); 4 waits for 1 (done at 3 s, just
        // before 3, which was scheduled later for the same instant).
        #expect(starts.values == [
            .at(.seconds(0), .next(1)), .at(.seconds(0), .next(2)),
            .at(.seconds(1), .next(3)), .at(.seconds(3), .next(4)),
        ])
        #expect(recorder.history == [
            .at(.seconds(1), .next(2)), .at(.seconds(3), .next(1)), .at(.seconds(3), .next(3)),
            .at(.seconds(4), .next(4)), .at(.seconds(4), .completed),
        ])
        #expect(scheduler.pendingCount == 0)
    }

    @Test func concurrentForwardsTheRunningInnersAndQueuesTheRestInOrder() {
        let outer = UpstreamProbe<Inner, TestError>()
        let probes = (0..<4).map { _ in UpstreamProbe<Int, TestError>() }
        let (recorder, _) = outer.signal.flatten(.concurrent(limit: 2)).record()
        for probe in probes { outer.send(probe.signal) }
        #expect(probes.map(\.subscriptions.count) == [1, 1, 0, 0], "two run, two wait")
        probes[0].send(1)
        probes[1].send(2)
        probes[2].send(99)   // not subscribed yet: nobody listens
        probes[0].send(3)
        probes[1].complete()
        #expect(probes.map(\.subscriptions.count) == [1, 1, 1, 0], "the first waiting one started")
        #expect(probes[1].live == 0)
        probes[2].send(4)
        outer.complete()
        probes[0].complete()
        #expect(probes.map(\.subscriptions.count) == [1, 1, 1, 1])
        probes[3].send(5)
        probes[2].complete()
        #expect(!recorder.isTerminated, "the last inner still runs")
        probes[3].complete()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .next(4), .next(5), .completed])
        #expect(outer.live == 0 && probes.allSatisfy { $0.live == 0 })
    }

    @Test func concurrentWaitsForTheQueueBeforeCompleting() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.concurrent(limit: 1)).record()
        outer.send(a.signal)
        outer.send(.just(7))
        outer.complete()
        #expect(recorder.events == [], "one inner runs, one waits")
        a.complete()
        #expect(recorder.events == [.next(7), .completed])
    }

    @Test func concurrentInnerErrorEndsEverythingAndSkipsTheQueue() {
        let outer = UpstreamProbe<Inner, TestError>()
        let probes = (0..<3).map { _ in UpstreamProbe<Int, TestError>() }
        let (recorder, disposable) = outer.signal.flatten(.concurrent(limit: 2)).record()
        for probe in probes { outer.send(probe.signal) }
        probes[0].send(1)
        probes[1].fail(.boom)
        probes[0].send(2)
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(probes[2].subscriptions.count == 0, "the waiting inner is never subscribed")
        #expect(outer.live == 0 && probes.allSatisfy { $0.live == 0 })
        #expect(disposable.isDisposed)
    }

    @Test func concurrentOuterErrorEndsEverything() {
        let outer = UpstreamProbe<Inner, TestError>()
        let probes = (0..<3).map { _ in UpstreamProbe<Int, TestError>() }
        let (recorder, _) = outer.signal.flatten(.concurrent(limit: 2)).record()
        for probe in probes { outer.send(probe.signal) }
        probes[1].send(1)
        outer.fail(.other(3))
        probes[0].send(2)
        probes[0].complete()
        #expect(recorder.events == [.next(1), .error(.other(3))])
        #expect(probes[2].subscriptions.count == 0)
        #expect(outer.live == 0 && probes.allSatisfy { $0.live == 0 })
    }

    @Test func concurrentDisposalDisposesTheRunningAndDropsTheWaiting() {
        let outer = UpstreamProbe<Inner, TestError>()
        let probes = (0..<3).map { _ in UpstreamProbe<Int, TestError>() }
        let (recorder, disposable) = outer.signal.flatten(.concurrent(limit: 2)).record()
        for probe in probes { outer.send(probe.signal) }
        probes[0].send(1)
        disposable.dispose()
        probes[0].send(2)
        probes[0].complete()
        probes[1].complete()
        #expect(recorder.events == [.next(1)])
        #expect(probes[2].subscriptions.count == 0, "a disposed flatten starts nothing more")
        #expect(outer.live == 0 && probes.allSatisfy { $0.live == 0 })
        #expect(probes.allSatisfy { $0.subject.subscriberCount == 0 })
    }

    @Test func concurrentReleasesWaitingInnersWhenDisposed() {
        let freed = Flag()
        let outer = Subject<Inner, TestError>()
        let running = UpstreamProbe<Int, TestError>()   // holds its subscriber until disposed
        let (_, disposable) = outer.signal.flatten(.concurrent(limit: 1)).record()
        outer.sendNext(running.signal)
        outer.sendNext(Inner { [tracked = Tracked { freed.set() }] _ in
            _ = tracked
            return nil
        })
        #expect(!freed.isSet, "the waiting inner is queued")
        disposable.dispose()
        #expect(freed.isSet, "disposal released the queue")
    }

    @Test func concurrentStartsManyQueuedSynchronousInnersWithConstantStack() {
        // 20,000 synchronous inners wait behind three running ones; when one of those completes,
        // they run one after another in the freed slot: a loop, not a recursion.
        let count = 20_000
        let outer = Subject<Signal<Int, Never>, Never>()
        let blockers = (0..<3).map { _ in UpstreamProbe<Int, Never>() }
        let (recorder, _) = outer.signal.flatten(.concurrent(limit: 3)).record()
        for blocker in blockers { outer.sendNext(blocker.signal) }
        for value in 0..<count { outer.sendNext(.just(value)) }
        outer.sendCompleted()
        #expect(recorder.events == [])
        blockers[1].complete()
        #expect(recorder.values == Array(0..<count), "every queued inner, in order")
        #expect(!recorder.isTerminated, "two blockers still run")
        blockers[0].complete()
        blockers[2].complete()
        #expect(recorder.events.last == .completed)
        #expect(blockers.allSatisfy { $0.live == 0 })
    }

    @Test func concurrentStressNeverExceedsTheLimitAndLosesNothing() {
        let limit = 3
        let perThread = 2_000
        let outer = Subject<Signal<Int, Never>, Never>()
        let active = Atomic<Int>(0)
        let maxActive = Atomic<Int>(0)
        let subscribed = Counter()
        // The running inners' observers; both threads complete them, so inners end on either
        // thread while the other one sends new inners.
        let running = Mutex<[Observer<Int, Never>]>([])
        @Sendable func inner(_ value: Int) -> Signal<Int, Never> {
            Signal { observer in
                subscribed.increment()
                let now = active.add(1, ordering: .acquiringAndReleasing).newValue
                maxActive.max(now, ordering: .acquiringAndReleasing)
                observer.sendNext(value)
                running.withLock { $0.append(observer) }
                return ActionDisposable { active.subtract(1, ordering: .acquiringAndReleasing) }
            }
        }
        @Sendable func completeOne() -> Bool {
            guard let observer = running.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return false }
            observer.sendCompleted()
            return true
        }
        let received = Mutex<[Int]>([])
        let completed = Counter()
        let overlap = OverlapDetector()
        _ = outer.signal.flatten(.concurrent(limit: limit)).subscribe(
            next: { value in
                overlap.enter()
                received.withLock { $0.append(value) }
                overlap.leave()
            },
            completed: { completed.increment() }
        )
        runConcurrently(2) { thread in
            for index in 0..<perThread {
                outer.sendNext(inner(thread * perThread + index))
                // Complete half as many as are sent, so that inners queue up.
                if index % 2 == 1 { _ = completeOne() }
            }
        }
        outer.sendCompleted()
        while completeOne() {}
        #expect(maxActive.load(ordering: .acquiring) <= limit, "never more than the limit subscribed")
        #expect(maxActive.load(ordering: .acquiring) == limit, "the limit was reached")
        #expect(subscribed.count == 2 * perThread)
        #expect(received.withLock { $0.sorted() } == Array(0..<(2 * perThread)), "no value lost or repeated")
        #expect(completed.count == 1)
        #expect(overlap.overlaps == 0)
        #expect(active.load(ordering: .acquiring) == 0)
    }

    // MARK: race

    @Test func raceForwardsOnlyTheFirstInnerToSendAndIgnoresLaterOnes() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let c = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        outer.send(b.signal)
        #expect(a.live == 1 && b.live == 1, "both candidates are subscribed")
        b.send(1)
        #expect(a.live == 0, "the loser was disposed when b won")
        outer.send(c.signal)
        #expect(c.subscriptions.count == 0, "an inner after the race was decided is ignored")
        a.send(99)
        b.send(2)
        outer.complete()
        #expect(!recorder.isTerminated, "the winner still runs")
        b.complete()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(outer.live == 0 && b.live == 0)
    }

    @Test func raceBetweenSimultaneousCandidatesGoesToTheFirstToRun() {
        let scheduler = TestScheduler()
        // Each candidate sends its name twice, 1 s apart, then completes.
        func candidate(_ name: String, firstAfter delay: Duration) -> Signal<String, Never> {
            Signal { observer in
                let first = scheduler.schedule(after: delay) { observer.sendNext(name) }
                let second = scheduler.schedule(after: delay + .seconds(1)) {
                    observer.sendNext(name + "2")
                    observer.sendCompleted()
                }
                return CompoundDisposable([first, second])
            }
        }
        let (recorder, _) = Signal(sequence: [
            candidate("a", firstAfter: .seconds(2)),
            candidate("b", firstAfter: .seconds(1)),
            candidate("c", firstAfter: .seconds(1)),
        ]).flatten(.race).recordTimed(on: scheduler)
        scheduler.advance(by: .seconds(1))
        #expect(scheduler.pendingCount == 1, "b won at 1 s: a's and c's work was cancelled")
        scheduler.advance(by: .seconds(5))
        // b and c both send at 1 s; b was scheduled first, so b wins.
        #expect(recorder.history == [.at(.seconds(1), .next("b")), .at(.seconds(2), .next("b2")), .at(.seconds(2), .completed)])
    }

    @Test func raceIsWonByTheFirstEventEvenACompletion() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        outer.send(b.signal)
        a.complete()
        #expect(b.live == 0, "a won by completing: b was disposed")
        b.send(1)
        outer.send(.just(2))
        #expect(recorder.events == [], "the outer has not completed")
        outer.complete()
        #expect(recorder.events == [.completed])
        #expect(outer.live == 0 && a.live == 0)
    }

    @Test func raceIsWonByAnErrorSentFirst() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        outer.send(b.signal)
        b.fail(.boom)
        a.send(1)
        #expect(recorder.events == [.error(.boom)])
        #expect(outer.live == 0 && a.live == 0 && b.live == 0)
        #expect(disposable.isDisposed)
    }

    @Test func raceWinnerErrorEndsEverything() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        a.send(1)
        a.fail(.other(2))
        outer.send(.just(3))
        #expect(recorder.events == [.next(1), .error(.other(2))])
        #expect(outer.live == 0 && a.live == 0)
    }

    @Test func raceOuterErrorEndsEverything() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        outer.send(b.signal)
        outer.fail(.boom)
        a.send(1)
        #expect(recorder.events == [.error(.boom)])
        #expect(outer.live == 0 && a.live == 0 && b.live == 0)
    }

    @Test func raceCompletesAtOnceWhenTheOuterEndsBeforeAnyInner() {
        let (recorder, _) = Signal<Inner, TestError>.empty.flatten(.race).record()
        #expect(recorder.events == [.completed])
    }

    @Test func raceWaitsForAWinnerWhenTheOuterCompletesDuringTheRace() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        outer.send(b.signal)
        outer.complete()
        #expect(recorder.events == [], "candidates are still racing")
        a.send(1)
        #expect(b.live == 0)
        a.complete()
        #expect(recorder.events == [.next(1), .completed])
        #expect(a.live == 0)
    }

    @Test func raceDisposalDisposesEveryCandidate() {
        let outer = UpstreamProbe<Inner, TestError>()
        let a = UpstreamProbe<Int, TestError>()
        let b = UpstreamProbe<Int, TestError>()
        let (recorder, disposable) = outer.signal.flatten(.race).record()
        outer.send(a.signal)
        outer.send(b.signal)
        disposable.dispose()
        a.send(1)
        #expect(recorder.events == [])
        #expect(outer.live == 0 && a.live == 0 && b.live == 0)
        #expect(a.subject.subscriberCount == 0 && b.subject.subscriberCount == 0)
    }

    @Test func raceDropsEverythingFromALoserThatKeepsSending() {
        // A candidate that ignores disposal and keeps its sink.
        let stale = Mutex<Inner._Sink?>(nil)
        let rogue = Inner(_unchecked: { sink, _ in stale.withLock { $0 = sink } })
        let outer = Subject<Inner, TestError>()
        let b = Subject<Int, TestError>()
        let (recorder, _) = outer.signal.flatten(.race).record()
        outer.sendNext(rogue)
        outer.sendNext(b.signal)
        b.sendNext(1)
        let rogueSink = stale.withLock { $0 }!
        rogueSink(.next(2))
        rogueSink(.error(.boom))
        rogueSink(.completed)
        b.sendNext(3)
        #expect(recorder.events == [.next(1), .next(3)])
    }

    @Test func raceReleasesTheLosers() {
        let freed = Flag()
        let outer = Subject<Inner, TestError>()
        let loser = Inner { [tracked = Tracked { freed.set() }] _ in
            ActionDisposable { _ = tracked }
        }
        let winner = Subject<Int, TestError>()
        let (_, disposable) = outer.signal.flatten(.race).record()
        outer.sendNext(loser)
        _ = consume loser
        outer.sendNext(winner.signal)
        #expect(!freed.isSet)
        winner.sendNext(1)
        #expect(freed.isSet, "the loser's subscription was released when the race was decided")
        disposable.dispose()
    }

    @Test func raceStressHasExactlyOneWinner() {
        for _ in 0..<50 {
            let candidates = (0..<2).map { _ in Subject<Int, Never>() }
            let recorder = Recorder<Int, Never>()
            recorder.record(Signal(sequence: candidates.map(\.signal)).flatten(.race))
            runConcurrently(2) { index in
                for value in 0..<100 { candidates[index].sendNext(index * 1_000 + value) }
                candidates[index].sendCompleted()
            }
            let values = recorder.values
            let winner = values.first.map { $0 / 1_000 } ?? -1
            #expect(values == (0..<100).map { winner * 1_000 + $0 }, "every value of the winner, none of the loser")
            #expect(recorder.events.last == .completed)
            #expect(candidates.allSatisfy { $0.subscriberCount == 0 })
        }
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
