import Testing
import TetherSignals
import TetherTestSupport

@Suite("catch")
struct CatchTests {
    @Test func replacesAFailureWithAnotherSignal() {
        let source = CountingSource<Int, TestError>()
        let (recorder, disposable) = source.signal.catch { error -> Signal<Int, Never> in
            error == .boom ? Signal(sequence: [10, 11]) : .empty
        }.record()
        source.send(1, 2)
        source.fail(.boom)
        #expect(recorder.events == [.next(1), .next(2), .next(10), .next(11), .completed])
        #expect(source.cleanups.count == 1)
        #expect(!source.isSubscribed)
        #expect(disposable.isDisposed)
    }

    @Test func withoutFailureTheHandlerIsNotCalled() {
        let calls = Counter()
        let (recorder, _) = Signal<Int, TestError>(sequence: [1, 2]).catch { _ -> Signal<Int, TestError> in
            calls.increment()
            return .empty
        }.record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(calls.count == 0)
    }

    @Test func aFailingReplacementFailsTheResult() {
        let (recorder, _) = Signal<Int, TestError>(error: .boom)
            .catch { _ in Signal<Int, TestError>(error: .other(2)) }
            .record()
        #expect(recorder.events == [.error(.other(2))])
    }

    @Test func failedUpstreamIsDisposedBeforeTheReplacementIsSubscribed() {
        // The failure is synchronous: it arrives while the upstream is still being subscribed,
        // before its producer returned its cleanup.
        let cleanups = Counter()
        let cleanupsSeenByReplacement = Recorder<Int, Never>()
        let failing = Signal<Int, TestError> { observer in
            observer.sendNext(1)
            observer.sendError(.boom)
            return ActionDisposable { cleanups.increment() }
        }
        let replacement = Signal<Int, Never> { observer in
            cleanupsSeenByReplacement.append(.next(cleanups.count))
            observer.sendNext(2)
            observer.sendCompleted()
            return nil
        }
        let (recorder, _) = failing.catch { _ in replacement }.record()
        #expect(recorder.events == [.next(1), .next(2), .completed])
        #expect(cleanupsSeenByReplacement.values == [1])
        #expect(cleanups.count == 1)
    }

    @Test func asynchronousFailureDisposesUpstreamBeforeTheReplacement() {
        let source = CountingSource<Int, TestError>()
        let seen = Recorder<Int, Never>()
        let replacement = Signal<Int, Never> { observer in
            seen.append(.next(source.cleanups.count))
            return nil
        }
        let (recorder, disposable) = source.signal.catch { _ in replacement }.record()
        source.send(1)
        #expect(seen.values == [])
        source.fail(.boom)
        #expect(seen.values == [1])
        #expect(recorder.events == [.next(1)])
        #expect(!disposable.isDisposed, "the replacement is still running")
        #expect(childCount(of: disposable) == 0, "the failed attempt was removed from the lifetime")
    }

    @Test func disposingDuringTheReplacementDisposesIt() {
        let source = CountingSource<Int, TestError>()
        let replacement = CountingSource<Int, Never>()
        let (recorder, disposable) = source.signal.catch { _ in replacement.signal }.record()
        source.fail(.boom)
        replacement.send(5)
        disposable.dispose()
        replacement.send(6)
        #expect(recorder.events == [.next(5)])
        #expect(replacement.cleanups.count == 1)
        #expect(!replacement.isSubscribed)
        #expect(source.cleanups.count == 1)
    }

    @Test func disposingBeforeAFailureNeverCallsTheHandler() {
        let calls = Counter()
        let source = CountingSource<Int, TestError>()
        let disposable = source.signal.catch { _ -> Signal<Int, Never> in
            calls.increment()
            return .empty
        }.subscribe()
        disposable.dispose()
        source.fail(.boom)
        #expect(calls.count == 0)
        #expect(source.cleanups.count == 1)
    }

    @Test func catchingInsideADeliveryOfTheSameSubject() {
        // The replacement subscribes to the subject that is delivering the failure: it is
        // already terminated, so the replacement sees its error at once and the outer catch
        // turns that into completion.
        let subject = Subject<Int, TestError>()
        let (recorder, _) = subject.signal
            .catch { _ in subject.signal.catch { _ in Signal<Int, Never>.just(99) } }
            .record()
        subject.sendNext(1)
        subject.sendError(.boom)
        #expect(recorder.events == [.next(1), .next(99), .completed])
        #expect(subject.subscriberCount == 0)
    }

    @Test func handlerIsReleasedWhenTheSubscriptionEnds() {
        let freed = Flag()
        let source = CountingSource<Int, TestError>()
        var tracked: Tracked? = Tracked { freed.set() }
        let disposable = source.signal
            .catch { [tracked] _ in withExtendedLifetime(tracked) { Signal<Int, Never>.never } }
            .subscribe()
        tracked = nil
        #expect(!freed.isSet)
        disposable.dispose()
        #expect(freed.isSet)
    }
}
