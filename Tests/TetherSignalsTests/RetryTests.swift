import Testing
import TetherSignals
import TetherTestSupport

@Suite("retry")
struct RetryTests {
    /// Attempt n sends n, then fails while n < `succeedingAt`, else completes. Records how many
    /// earlier attempts were cleaned up when each attempt starts.
    final class Flaky: Sendable {
        let attempts = Counter()
        let cleanups = Counter()
        let cleanupsAtStart = Recorder<Int, Never>()
        let succeedingAt: Int

        init(succeedingAt: Int) { self.succeedingAt = succeedingAt }

        var signal: Signal<Int, TestError> {
            Signal { [self] observer in
                let n = attempts.increment()
                cleanupsAtStart.append(.next(cleanups.count))
                observer.sendNext(n)
                if n < succeedingAt { observer.sendError(.other(n)) } else { observer.sendCompleted() }
                return ActionDisposable { [cleanups] in cleanups.increment() }
            }
        }
    }

    @Test func resubscribesUntilSuccess() {
        let flaky = Flaky(succeedingAt: 3)
        let (recorder, disposable) = flaky.signal.retry(5).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(flaky.attempts.count == 3)
        #expect(disposable.isDisposed)
    }

    @Test func forwardsTheLastErrorWhenRetriesRunOut() {
        let flaky = Flaky(succeedingAt: .max)
        let (recorder, _) = flaky.signal.retry(2).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .error(.other(3))])
        #expect(flaky.attempts.count == 3)
        #expect(flaky.cleanups.count == 3)
    }

    @Test func retryZeroForwardsTheFirstError() {
        let flaky = Flaky(succeedingAt: .max)
        let (recorder, _) = flaky.signal.retry(0).record()
        #expect(recorder.events == [.next(1), .error(.other(1))])
        #expect(flaky.attempts.count == 1)
    }

    @Test func eachFailedAttemptIsDisposedBeforeTheNextOneStarts() {
        let flaky = Flaky(succeedingAt: 4)
        let (recorder, _) = flaky.signal.retry(10).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .next(4), .completed])
        #expect(flaky.cleanupsAtStart.values == [0, 1, 2, 3])
        #expect(flaky.cleanups.count == 4)
    }

    @Test func unboundedRetry() {
        let flaky = Flaky(succeedingAt: 50)
        let (recorder, _) = flaky.signal.retry().record()
        #expect(recorder.values == Array(1...50))
        #expect(recorder.events.last == .completed)
        #expect(flaky.cleanupsAtStart.values == Array(0..<50))
    }

    @Test func manySynchronousFailuresDoNotGrowTheStack() {
        // Each retry of a synchronous failure is looped, not recursed: 100,000 attempts would
        // overflow the stack if each nested a few frames.
        let attempts = Counter()
        let failing = Signal<Int, TestError> { observer in
            attempts.increment()
            observer.sendError(.boom)
            return nil
        }
        let (recorder, disposable) = failing.retry(100_000).record()
        #expect(recorder.events == [.error(.boom)])
        #expect(attempts.count == 100_001)
        #expect(disposable.isDisposed)
    }

    @Test func asynchronousFailuresResubscribeAndTheLifetimeDoesNotGrow() {
        // Every tick makes the current attempt fail; retry resubscribes from inside the
        // subject's delivery (the new subscription starts with the next tick).
        let ticks = Subject<Void, Never>()
        let attempts = Counter()
        let cleanups = Counter()
        let source = Signal<Int, TestError> { observer in
            let n = attempts.increment()
            observer.sendNext(n)
            let inner = ticks.signal.subscribe(next: { observer.sendError(.other(n)) })
            return ActionDisposable {
                cleanups.increment()
                inner.dispose()
            }
        }
        let (recorder, disposable) = source.retry().record()
        for _ in 0..<100 { ticks.sendNext(()) }
        #expect(recorder.values == Array(1...101))
        #expect(attempts.count == 101)
        #expect(cleanups.count == 100)
        #expect(ticks.subscriberCount == 1, "only the current attempt listens")
        #expect(childCount(of: disposable) == 1, "finished attempts are removed from the lifetime")
        disposable.dispose()
        #expect(cleanups.count == 101)
        #expect(ticks.subscriberCount == 0)
        ticks.sendNext(())
        #expect(attempts.count == 101)
    }

    @Test func boundedRetryWithAsynchronousFailures() {
        let source = CountingSource<Int, TestError>()
        let (recorder, _) = source.signal.retry(1).record()
        source.send(1)
        source.fail(.boom)   // the subject is now terminated: the retry sees its error at once
        #expect(recorder.events == [.next(1), .error(.boom)])
        #expect(source.subscriptions.count == 2)
        #expect(source.cleanups.count == 2)
        #expect(!source.isSubscribed)
    }

    @Test func completionAndValuesPassThrough() {
        let (recorder, _) = Signal<Int, TestError>(sequence: [1, 2]).retry(3).record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
    }

    @Test func takeDownstreamStopsRetrying() {
        let flaky = Flaky(succeedingAt: .max)
        let (recorder, _) = flaky.signal.retry().take(3).record()
        #expect(recorder.events == [.next(1), .next(2), .next(3), .completed])
        #expect(flaky.attempts.count == 3)
        #expect(flaky.cleanups.count == 3)
    }

    @Test func disposingFromInsideAValueStopsRetrying() {
        // Each tick fails the current attempt; attempt n sends n when it starts, inside the
        // retry (re-entrantly, from the subject's delivery). The subscriber disposes on 3.
        let ticks = Subject<Void, Never>()
        let attempts = Counter()
        let source = Signal<Int, TestError> { observer in
            let n = attempts.increment()
            observer.sendNext(n)
            return ticks.signal.subscribe(next: { observer.sendError(.other(n)) })
        }
        let holder = Recorder<any Disposable, Never>()
        let seen = Recorder<Int, Never>()
        let disposable = source.retry().subscribe(next: { value in
            seen.append(.next(value))
            if value == 3 { holder.values.first?.dispose() }
        })
        holder.append(.next(disposable))
        for _ in 0..<5 { ticks.sendNext(()) }
        #expect(seen.values == [1, 2, 3])
        #expect(attempts.count == 3)
        #expect(disposable.isDisposed)
        #expect(ticks.subscriberCount == 0)
    }
}
