import Dispatch
import Testing
import TetherSignals
import TetherTestSupport

/// Something a test can await: `signal()` once, from any thread, and `wait()` returns.
private struct Milestone: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream<Void>.makeStream()
    }

    func signal() { continuation.yield() }

    func wait() async {
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
    }
}

@Suite("Swift concurrency: values, Signal(asyncSequence), first(), last()")
struct AsyncTests {
    // MARK: values

    @Test func valuesOfAFiniteSignal() async {
        var collected: [Int] = []
        for await value in Signal(sequence: [1, 2, 3]).values {   // no `try`: the signal cannot fail
            collected.append(value)
        }
        #expect(collected == [1, 2, 3])
    }

    @Test func valuesSentFromAnotherThreadAreBufferedInOrder() async {
        let subject = Subject<Int, Never>()
        let values = subject.signal.values
        var iterator = values.makeAsyncIterator()   // subscribes
        #expect(subject.subscriberCount == 1)
        DispatchQueue.global().async {
            for n in 0..<1000 { subject.sendNext(n) }
            subject.sendCompleted()
        }
        var collected: [Int] = []
        while let value = await iterator.next() { collected.append(value) }
        #expect(collected == Array(0..<1000))
        #expect(await iterator.next() == nil, "nil again after the end")
        #expect(subject.subscriberCount == 0)
    }

    @Test func aFailureIsThrownWithItsType() async {
        let signal = Signal<Int, TestError> { observer in
            observer.sendNext(1)
            observer.sendError(.boom)
            return nil
        }
        var collected: [Int] = []
        var caught: TestError?
        do {
            for try await value in signal.values { collected.append(value) }
        } catch {
            caught = error   // typed: `error` is a TestError
        }
        #expect(collected == [1])
        #expect(caught == .boom)
    }

    @Test func cancellingTheConsumingTaskDisposesTheSubscription() async {
        let subject = Subject<Int, Never>()
        let cleaned = Flag()
        let signal = Signal<Int, Never> { observer in
            let inner = subject.signal.subscribe(observer)
            return ActionDisposable {
                cleaned.set()
                inner.dispose()
            }
        }
        let firstValue = Milestone()
        let consumer = Task {
            var received: [Int] = []
            for await value in signal.values {
                received.append(value)
                firstValue.signal()
            }
            return received
        }
        // Send until the consumer has subscribed and received a value.
        let sender = Task.detached {
            while !Task.isCancelled {
                if subject.subscriberCount > 0 { subject.sendNext(1); return }
                await Task.yield()
            }
        }
        await firstValue.wait()
        #expect(!cleaned.isSet)
        consumer.cancel()
        let received = await consumer.value
        await sender.value
        #expect(received == [1], "the loop ended after cancellation")
        #expect(cleaned.isSet, "cancellation disposed the subscription")
        #expect(subject.subscriberCount == 0)
    }

    @Test func leavingTheLoopDisposesTheSubscription() async {
        let cleaned = Flag()
        let signal = Signal<Int, Never> { observer in
            observer.sendNext(1)
            observer.sendNext(2)
            return ActionDisposable { cleaned.set() }
        }
        for await value in signal.values {
            if value == 1 { break }
        }
        #expect(cleaned.isSet)
    }

    // MARK: Signal(asyncSequence)

    /// Records a signal's events and returns them once it terminates.
    private func events<V: Sendable, F: Error>(of signal: Signal<V, F>) async -> [Event<V, F>] {
        let recorder = Recorder<V, F>()
        let done = Milestone()
        signal.subscribe(events: { event in
            recorder.append(event)
            if event.isTerminal { done.signal() }
        })
        await done.wait()
        return recorder.events
    }

    @Test func signalFromAnAsyncStream() async {
        let stream = AsyncStream<Int> { continuation in
            for n in 1...3 { continuation.yield(n) }
            continuation.finish()
        }
        let signal = Signal(stream)   // Signal<Int, Never>
        #expect(await events(of: signal) == [.next(1), .next(2), .next(3), .completed])
    }

    @Test func signalFromAThrowingSequenceFails() async {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            continuation.yield(1)
            continuation.finish(throwing: TestError.boom)
        }
        let recorded = await events(of: Signal.from(stream))
        #expect(recorded.count == 2)
        #expect(recorded.first?.value == 1)
        #expect(recorded.last?.error as? TestError == .boom)
    }

    @Test func eachSubscriptionIteratesAnew() async {
        let sequence = Counted(limit: 3)
        let signal = Signal(sequence)
        #expect(await events(of: signal) == [.next(0), .next(1), .next(2), .completed])
        #expect(await events(of: signal) == [.next(0), .next(1), .next(2), .completed])
    }

    @Test func disposingCancelsTheIteratingTask() async {
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let terminated = Milestone()
        continuation.onTermination = { _ in terminated.signal() }
        let received = Recorder<Int, Never>()
        let firstValue = Milestone()
        let disposable = Signal(stream).subscribe(next: { value in
            received.append(.next(value))
            firstValue.signal()
        })
        continuation.yield(1)
        await firstValue.wait()
        disposable.dispose()
        await terminated.wait()   // the task was cancelled, which ended the stream's iteration
        continuation.yield(2)
        #expect(received.values == [1])
    }

    // MARK: first() and last()

    @Test func firstTakesOneValueAndStopsTheSignal() async {
        #expect(await Signal(sequence: 1...).first() == 1, "an endless synchronous signal is fine")
        #expect(await Signal<Int, Never>.empty.first() == nil)
        let subject = Subject<Int, Never>()
        let waiting = Task { await subject.signal.first() }
        let sender = Task.detached {
            while subject.subscriberCount == 0 { await Task.yield() }
            subject.sendNext(7)
            subject.sendNext(8)
        }
        #expect(await waiting.value == 7)
        await sender.value
        #expect(subject.subscriberCount == 0)
    }

    @Test func firstThrowsTheSignalsError() async {
        await #expect(throws: TestError.boom) {
            try await Signal<Int, TestError>(error: .boom).first()
        }
    }

    @Test func lastWaitsForCompletion() async throws {
        #expect(await Signal(sequence: [1, 2, 3]).last() == 3)
        #expect(await Signal<Int, Never>.empty.last() == nil)
        let failing = Signal<Int, TestError> { observer in
            observer.sendNext(1)
            observer.sendError(.other(2))
            return nil
        }
        await #expect(throws: TestError.other(2)) { try await failing.last() }
    }

    @Test func cancellingFirstDisposesTheSubscription() async {
        let cleaned = Flag()
        let subscribed = Milestone()
        let signal = Signal<Int, Never> { _ in
            subscribed.signal()
            return ActionDisposable { cleaned.set() }
        }
        let waiting = Task { await signal.first() }
        await subscribed.wait()
        waiting.cancel()
        #expect(await waiting.value == nil)
        #expect(cleaned.isSet)
    }

    @Test func firstInAnAlreadyCancelledTaskDoesNotSubscribe() async {
        let subscriptions = Counter()
        let signal = Signal<Int, Never> { observer in
            subscriptions.increment()
            observer.sendNext(1)
            return nil
        }
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await signal.first()
        }
        #expect(await waiting.value == nil)
        #expect(subscriptions.count == 0)
    }
}

/// An async sequence of 0..<limit, made anew for each iteration.
private struct Counted: AsyncSequence, Sendable {
    let limit: Int
    struct AsyncIterator: AsyncIteratorProtocol {
        let limit: Int
        var next = 0
        mutating func next() async -> Int? {
            guard next < limit else { return nil }
            defer { next += 1 }
            return next
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(limit: limit) }
}
