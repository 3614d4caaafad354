import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

@Suite("publish, autoconnect and share")
struct PublishTests {
    /// A cold signal with a side effect: every subscription "makes a request".
    func request(_ requests: Counter) -> Signal<String, TestError> {
        Signal { observer in
            let number = requests.increment()
            observer.sendNext("response \(number)")
            observer.sendCompleted()
            return nil
        }
    }

    // MARK: publish + connect

    @Test func aColdSignalRunsOncePerSubscriberWithoutPublish() {
        let requests = Counter()
        let cold = request(requests)
        let (first, _) = cold.record()
        let (second, _) = cold.record()
        #expect(requests.count == 2, "the classic complaint: two subscribers, two requests")
        #expect(first.events == [.next("response 1"), .completed])
        #expect(second.events == [.next("response 2"), .completed])
    }

    @Test func publishRunsTheSideEffectOnceForAllSubscribers() {
        let requests = Counter()
        let shared = request(requests).publish()
        let (first, _) = shared.signal.record()
        let (second, _) = shared.signal.record()
        let (third, _) = shared.signal.record()
        #expect(requests.count == 0, "subscribing does not start the upstream")
        #expect(first.events == [])
        shared.connect()
        #expect(requests.count == 1)
        for recorder in [first, second, third] {
            #expect(recorder.events == [.next("response 1"), .completed])
        }
    }

    @Test func repeatedConnectWhileConnectedReturnsTheSameConnection() {
        let upstream = UpstreamProbe<Int, TestError>()
        let shared = upstream.signal.publish()
        let connection = shared.connect()
        let again = shared.connect()
        #expect(connection === again)
        #expect(upstream.subscriptions.count == 1)
        connection.dispose()
    }

    @Test func disposingTheConnectionDisposesTheUpstream() {
        let upstream = UpstreamProbe<Int, TestError>()
        let shared = upstream.signal.publish()
        let (recorder, _) = shared.signal.record()
        let connection = shared.connect()
        upstream.send(1)
        #expect(upstream.live == 1)
        connection.dispose()
        #expect(connection.isDisposed)
        #expect(upstream.live == 0, "disconnecting disposed the upstream subscription")
        #expect(upstream.subject.subscriberCount == 0)
        upstream.send(2)
        #expect(recorder.events == [.next(1)])
        // A new connection subscribes to the upstream again, as a new connection.
        let (later, _) = shared.signal.record()
        let reconnection = shared.connect()
        #expect(reconnection !== connection)
        #expect(upstream.subscriptions.count == 2)
        upstream.send(3)
        #expect(later.events == [.next(3)])
        #expect(recorder.events == [.next(1)], "a subscriber of the ended connection gets nothing more")
        reconnection.dispose()
    }

    @Test func subscribersDuringAConnectionGetLaterEventsAndTheTerminal() {
        let upstream = UpstreamProbe<Int, TestError>()
        let shared = upstream.signal.publish()
        let (early, _) = shared.signal.record()
        let connection = shared.connect()
        upstream.send(1)
        let (late, _) = shared.signal.record()
        upstream.send(2)
        upstream.fail(.boom)
        #expect(early.events == [.next(1), .next(2), .error(.boom)])
        #expect(late.events == [.next(2), .error(.boom)])
        #expect(connection.isDisposed, "the connection ended with its upstream")
        #expect(upstream.live == 0)
    }

    @Test func afterTheUpstreamEndedTheNextConnectStartsItAgain() {
        let requests = Counter()
        let shared = request(requests).publish()
        let (first, _) = shared.signal.record()
        shared.connect()
        let (waiting, _) = shared.signal.record()
        #expect(waiting.events == [], "a subscriber after the end waits for the next connection")
        shared.connect()
        #expect(requests.count == 2)
        #expect(first.events == [.next("response 1"), .completed])
        #expect(waiting.events == [.next("response 2"), .completed])
    }

    @Test func aDisconnectedPublishReleasesTheUpstreamSubscription() {
        let freed = Flag()
        let shared = Signal<Int, Never> { _ in
            let tracked = Tracked { freed.set() }
            return ActionDisposable { _ = tracked }
        }.publish()
        let connection = shared.connect()
        #expect(!freed.isSet)
        connection.dispose()
        #expect(freed.isSet)
    }

    // MARK: autoconnect

    @Test func autoconnectConnectsAtTheFirstSubscriberAndDisconnectsAfterTheLast() {
        let upstream = UpstreamProbe<Int, TestError>()
        let shared = upstream.signal.publish().autoconnect()
        #expect(upstream.subscriptions.count == 0)
        let (first, firstSubscription) = shared.record()
        #expect(upstream.subscriptions.count == 1)
        upstream.send(1)
        let (second, secondSubscription) = shared.record()
        #expect(upstream.subscriptions.count == 1, "the second subscriber shares the connection")
        upstream.send(2)
        firstSubscription.dispose()
        #expect(upstream.live == 1, "one subscriber is left")
        upstream.send(3)
        secondSubscription.dispose()
        #expect(upstream.live == 0, "the last subscriber left: disconnected")
        #expect(first.events == [.next(1), .next(2)])
        #expect(second.events == [.next(2), .next(3)])
        // The next subscriber connects again.
        let (third, thirdSubscription) = shared.record()
        #expect(upstream.subscriptions.count == 2)
        upstream.send(4)
        #expect(third.events == [.next(4)])
        thirdSubscription.dispose()
        #expect(upstream.live == 0)
    }

    @Test func autoconnectForwardsTheTerminalToAllAndReconnectsAfterwards() {
        let upstream = UpstreamProbe<Int, TestError>()
        let shared = upstream.signal.publish().autoconnect()
        let (first, _) = shared.record()
        let (second, _) = shared.record()
        upstream.send(1)
        upstream.complete()
        #expect(first.events == [.next(1), .completed])
        #expect(second.events == [.next(1), .completed])
        #expect(upstream.live == 0)
        let (third, _) = shared.record()
        #expect(upstream.subscriptions.count == 2, "a subscriber after the end starts a new run")
        // The probe's subject has ended, so the new run completes at once.
        #expect(third.events == [.completed])
        #expect(upstream.live == 0)
    }

    // MARK: share(replay:)

    @Test func shareRunsTheSideEffectOnceForConcurrentSubscribers() {
        let scheduler = TestScheduler()
        let requests = Counter()
        let delayedRequest = Signal<String, Never> { observer in
            let number = requests.increment()
            return scheduler.schedule(after: .seconds(1)) {
                observer.sendNext("response \(number)")
                observer.sendCompleted()
            }
        }.share()
        let (first, _) = delayedRequest.record()
        let (second, _) = delayedRequest.record()
        let (third, _) = delayedRequest.record()
        scheduler.advance(by: .seconds(1))
        #expect(requests.count == 1)
        for recorder in [first, second, third] {
            #expect(recorder.events == [.next("response 1"), .completed])
        }
        #expect(scheduler.pendingCount == 0)
    }

    @Test func shareDisposesTheUpstreamWhenTheLastSubscriberLeaves() {
        let scheduler = TestScheduler()
        let cancelled = Counter()
        let delayed = Signal<Int, Never> { observer in
            let work = scheduler.schedule(after: .seconds(1)) { observer.sendNext(1) }
            return ActionDisposable {
                work.dispose()
                cancelled.increment()
            }
        }.share()
        let (_, a) = delayed.record()
        let (_, b) = delayed.record()
        a.dispose()
        #expect(cancelled.count == 0)
        b.dispose()
        #expect(cancelled.count == 1, "the shared upstream was disposed once")
        #expect(scheduler.pendingCount == 0)
    }

    @Test func shareReplaysTheLatestValuesToLateSubscribers() {
        let upstream = UpstreamProbe<Int, Never>()
        let shared = upstream.signal.share(replay: 2)
        let (first, firstSubscription) = shared.record()
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        let (late, lateSubscription) = shared.record()
        upstream.send(4)
        #expect(first.events == [.next(1), .next(2), .next(3), .next(4)])
        #expect(late.events == [.next(2), .next(3), .next(4)])
        #expect(upstream.subscriptions.count == 1)
        firstSubscription.dispose()
        lateSubscription.dispose()
        #expect(upstream.live == 0)
        // A new run starts with an empty replay buffer.
        let (fresh, freshSubscription) = shared.record()
        #expect(fresh.events == [], "values of the previous run are not replayed")
        #expect(upstream.subscriptions.count == 2)
        upstream.send(5)
        #expect(fresh.events == [.next(5)])
        freshSubscription.dispose()
    }

    @Test func shareReplaysTheTerminalWithinARun() {
        let upstream = UpstreamProbe<Int, TestError>()
        let shared = upstream.signal.share(replay: 1)
        let (first, _) = shared.record()
        upstream.send(1)
        upstream.fail(.boom)
        #expect(first.events == [.next(1), .error(.boom)])
        #expect(upstream.live == 0)
    }

    @Test func shareReleasesSubscriberClosuresOnDisposal() {
        let upstream = UpstreamProbe<Int, Never>()
        let shared = upstream.signal.share()
        let freed = Flag()
        var tracked: Tracked? = Tracked { freed.set() }
        let subscription = shared.subscribe(next: { [tracked] _ in _ = tracked })
        tracked = nil
        #expect(!freed.isSet)
        subscription.dispose()
        #expect(freed.isSet)
        #expect(upstream.live == 0)
    }

    @Test func stressConcurrentSubscribeAndDisposeNeverLeaksAConnection() {
        let upstream = UpstreamProbe<Int, Never>()
        let shared = upstream.signal.share(replay: 1)
        runConcurrently(4) { index in
            for round in 0..<300 {
                let subscription = shared.subscribe(next: { _ in })
                if round % 7 == index { upstream.send(round) }
                subscription.dispose()
            }
        }
        #expect(upstream.live == 0, "every connection was disposed")
        #expect(upstream.subject.subscriberCount == 0)
        #expect(upstream.subscriptions.count >= 1)
        // Still usable afterwards.
        let (recorder, subscription) = shared.record()
        upstream.send(-1)
        #expect(recorder.events == [.next(-1)])
        subscription.dispose()
        #expect(upstream.live == 0)
    }

    @Test func stressSubscribersThatOverlapShareOneRun() {
        let upstream = UpstreamProbe<Int, Never>()
        let shared = upstream.signal.share()
        let anchor = shared.subscribe(next: { _ in })   // keeps the connection up throughout
        let received = Counter()
        runConcurrently(4) { index in
            for _ in 0..<200 {
                let subscription = shared.subscribe(next: { _ in received.increment() })
                if index == 0 { upstream.send(1) }
                subscription.dispose()
            }
        }
        #expect(upstream.subscriptions.count == 1, "one run while a subscriber was always attached")
        #expect(received.count >= 200, "the sender's own subscriber got each of its values")
        anchor.dispose()
        #expect(upstream.live == 0)
    }

    @Test func shareAfterTheSourceEndedStartsANewRunWithoutReplay() {
        let scheduler = TestScheduler()
        let requests = Counter()
        let shared = Signal<Int, Never> { observer in
            let number = requests.increment()
            return scheduler.schedule(after: .seconds(1)) {
                observer.sendNext(number)
                observer.sendCompleted()
            }
        }.share(replay: 1)
        let (first, _) = shared.record()
        scheduler.advance(by: .seconds(1))
        let (late, _) = shared.record()
        #expect(late.events == [], "the ended run's value and completion are not replayed")
        #expect(requests.count == 2, "the late subscriber started a new run")
        scheduler.advance(by: .seconds(1))
        #expect(first.events == [.next(1), .completed])
        #expect(late.events == [.next(2), .completed])
    }

    // MARK: replayLazily(upTo:)

    @Test func replayLazilyStartsTheSourceAtTheFirstSubscriberOnly() {
        let upstream = UpstreamProbe<Int, TestError>()
        let cached = upstream.signal.replayLazily(upTo: 2)
        #expect(upstream.subscriptions.count == 0, "nothing runs before a subscriber arrives")
        let (first, _) = cached.record()
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        let (second, _) = cached.record()
        upstream.send(4)
        #expect(upstream.subscriptions.count == 1)
        #expect(first.events == [.next(1), .next(2), .next(3), .next(4)])
        #expect(second.events == [.next(2), .next(3), .next(4)], "the latest two, then what follows")
    }

    @Test func replayLazilyReplaysTheLatestValuesAndTheCompletionAfterTheSourceEnded() {
        let upstream = UpstreamProbe<Int, TestError>()
        let cached = upstream.signal.replayLazily(upTo: 2)
        let (first, _) = cached.record()
        upstream.send(1)
        upstream.send(2)
        upstream.send(3)
        upstream.complete()
        #expect(upstream.live == 0, "the ended run's subscription was released at once")
        let (late, _) = cached.record()
        let (later, _) = cached.record()
        #expect(upstream.subscriptions.count == 1, "the source is not run again")
        #expect(first.events == [.next(1), .next(2), .next(3), .completed])
        #expect(late.events == [.next(2), .next(3), .completed])
        #expect(later.events == [.next(2), .next(3), .completed])
    }

    @Test func replayLazilyReplaysTheErrorAfterTheSourceFailed() {
        let upstream = UpstreamProbe<Int, TestError>()
        let cached = upstream.signal.replayLazily(upTo: 1)
        let (first, _) = cached.record()
        upstream.send(1)
        upstream.send(2)
        upstream.fail(.boom)
        let (late, _) = cached.record()
        #expect(upstream.subscriptions.count == 1)
        #expect(first.events == [.next(1), .next(2), .error(.boom)])
        #expect(late.events == [.next(2), .error(.boom)])
    }

    @Test func replayLazilyWithoutCapacityReplaysOnlyTheTerminal() {
        let requests = Counter()
        let cached = request(requests).replayLazily(upTo: 0)
        let (first, _) = cached.record()
        let (late, _) = cached.record()
        #expect(requests.count == 1)
        #expect(first.events == [.next("response 1"), .completed])
        #expect(late.events == [.completed])
    }

    @Test func replayLazilyKeepsRunningWhenEverySubscriberLeft() {
        let upstream = UpstreamProbe<Int, TestError>()
        let cached = upstream.signal.replayLazily(upTo: 1)
        let (first, subscription) = cached.record()
        upstream.send(1)
        subscription.dispose()
        #expect(upstream.live == 1, "the signal is alive: its run goes on")
        upstream.send(2)
        let (late, _) = cached.record()
        upstream.send(3)
        #expect(first.events == [.next(1)])
        #expect(late.events == [.next(2), .next(3)])
        #expect(upstream.subscriptions.count == 1)
    }

    @Test func replayLazilyReleasesTheRunAndTheBufferWhenTheSignalAndItsSubscriptionsAreGone() {
        let upstream = UpstreamProbe<Tracked, Never>()
        let freed = Flag()
        var cached: Signal<Tracked, Never>? = upstream.signal.replayLazily(upTo: 1)
        let subscription = cached!.subscribe(next: { _ in })
        upstream.send(Tracked { freed.set() })
        cached = nil
        #expect(upstream.live == 1, "a subscription keeps the run")
        #expect(!freed.isSet)
        subscription.dispose()
        #expect(upstream.live == 0, "the signal and its subscriptions are gone: the run was disposed")
        #expect(upstream.subject.subscriberCount == 0)
        #expect(freed.isSet, "the replay buffer was freed")
    }

    @Test func replayLazilyKeepsTheBufferOfAnEndedRunOnlyWhileTheSignalLives() {
        let upstream = UpstreamProbe<Tracked, Never>()
        let freedValue = Flag()
        let freedRun = Flag()
        var cached: Signal<Tracked, Never>? = Signal<Tracked, Never> { observer in
            let tracked = Tracked { freedRun.set() }
            let inner = upstream.signal.subscribe(observer)
            return ActionDisposable {
                _ = tracked
                inner.dispose()
            }
        }.replayLazily(upTo: 1)
        // Count the events: a recorder would keep the value alive.
        let firstEvents = Counter()
        _ = cached!.subscribe(events: { _ in firstEvents.increment() })
        upstream.send(Tracked { freedValue.set() })
        upstream.complete()
        #expect(freedRun.isSet, "the ended run's subscription was released")
        #expect(!freedValue.isSet, "the replay buffer keeps the last value")
        let lateValues = Counter()
        let lateCompleted = Flag()
        _ = cached!.subscribe(next: { _ in lateValues.increment() }, completed: { lateCompleted.set() })
        #expect(lateValues.count == 1 && lateCompleted.isSet, "the late subscriber got the value and completed")
        #expect(firstEvents.count == 2)
        #expect(!freedValue.isSet)
        cached = nil
        #expect(freedValue.isSet, "the signal is gone: its replay buffer was freed")
    }

    @Test func stressReplayLazilyRunsTheSourceOnceForConcurrentSubscribers() {
        let upstream = UpstreamProbe<Int, Never>()
        let cached = upstream.signal.replayLazily(upTo: 1)
        let completed = Counter()
        runConcurrently(4) { index in
            for round in 0..<200 {
                let subscription = cached.subscribe(next: { _ in }, completed: { completed.increment() })
                if index == 0 && round % 10 == 0 { upstream.send(round) }
                if round % 2 == 0 { subscription.dispose() }
            }
        }
        #expect(upstream.subscriptions.count == 1)
        upstream.send(-1)
        upstream.complete()
        #expect(completed.count == 4 * 100, "every subscriber still attached got the completion")
        let (late, _) = cached.record()
        #expect(late.events == [.next(-1), .completed])
        #expect(upstream.subscriptions.count == 1)
        #expect(upstream.live == 0)
    }
}
