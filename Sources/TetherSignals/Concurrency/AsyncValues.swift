extension Signal where Value: Sendable {
    /// This signal's values as an `AsyncSequence`, for `for await` loops.
    ///
    /// Each iteration subscribes anew when it starts (`makeAsyncIterator()`), and ends after
    /// the signal completes; if the signal fails, the loop throws its error (typed: a signal
    /// that cannot fail gives a sequence that needs no `try`). Values that arrive while the loop
    /// body runs are buffered, without limit, so none is lost.
    ///
    /// Cancelling the consuming task disposes the subscription and ends the loop (`next()`
    /// returns nil); so does dropping the iterator. A signal that sends forever *synchronously*
    /// while being subscribed never lets the loop start; use a scheduler or `take` for those.
    ///
    /// ```swift
    /// for await count in Signal.interval(.seconds(1), on: QueueScheduler()).values {
    ///     print(count)                  // 0, 1, 2, ...
    ///     if count == 2 { break }       // leaving the loop disposes the subscription
    /// }
    /// do {
    ///     for try await page in pages.values { render(page) }
    /// } catch {
    ///     show(error)                   // `error` has the signal's failure type
    /// }
    /// ```
    public var values: AsyncValues { AsyncValues(signal: self) }

    /// The values of a signal as an `AsyncSequence`; see `Signal.values`.
    public struct AsyncValues: AsyncSequence, Sendable {
        /// The values.
        public typealias Element = Value

        let signal: Signal

        /// Subscribes to the signal; the iterator receives its events.
        public func makeAsyncIterator() -> Iterator {
            Iterator(subscription: _AsyncValuesSubscription(signal))
        }

        /// Iterates the values of one subscription. Use it from one task at a time.
        public struct Iterator: AsyncIteratorProtocol {
            /// The values.
            public typealias Element = Value

            let subscription: _AsyncValuesSubscription<Value, Failure>

            /// The next value; nil once the signal completed, or the task was cancelled.
            /// Throws the signal's error if it failed.
            public mutating func next() async throws(Failure) -> Value? {
                try await subscription.next(isolation: nil)
            }

            /// The next value, awaited without leaving `actor`'s isolation.
            public mutating func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Value? {
                try await subscription.next(isolation: actor)
            }
        }
    }
}

/// The subscription behind one `values` iterator: buffers events until the iterator asks for
/// them, and disposes the subscription when the iterator is freed or its task is cancelled.
///
/// The iterator holds this object; the signal's sink holds only `_AsyncValuesBuffer`, so
/// dropping the iterator frees this object, whose deinit disposes the subscription.
final class _AsyncValuesSubscription<Value: Sendable, Failure: Error>: Sendable {
    let buffer: _AsyncValuesBuffer<Value, Failure>

    init(_ signal: Signal<Value, Failure>) {
        buffer = _AsyncValuesBuffer()
        let buffer = buffer
        signal._run({ buffer.receive($0) }, buffer.lifetime)
    }

    deinit { buffer.cancel() }

    func next(isolation actor: isolated (any Actor)?) async throws(Failure) -> Value? {
        if let ready = buffer.take() { return try ready.get() }
        let buffer = buffer
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation(isolation: actor) { continuation in
                buffer.wait(continuation)
            }
        } onCancel: {
            buffer.cancel()
        }
        return try result.get()
    }
}

/// The events of one `values` subscription, waiting for the iterator.
final class _AsyncValuesBuffer<Value: Sendable, Failure: Error>: Sendable {
    typealias Waiter = CheckedContinuation<Result<Value?, Failure>, Never>

    struct State {
        var values: [Value] = []
        var head = 0
        /// The signal's terminal event, once received (`.success` for completion).
        var end: Result<Void, Failure>?
        /// The end was handed to the iterator (or the iteration was cancelled): only nil follows.
        var finished = false
        var waiter: Waiter?

        /// The next result for the iterator, if one is ready.
        mutating func take() -> Result<Value?, Failure>? {
            if head < values.count {
                let value = values[head]
                head += 1
                if head == values.count {
                    values.removeAll(keepingCapacity: true)
                    head = 0
                } else if head > 64, head * 2 > values.count {
                    values.removeFirst(head)
                    head = 0
                }
                return .success(value)
            }
            if finished { return .success(nil) }
            if let end {
                finished = true
                return end.map { nil }
            }
            return nil
        }
    }

    let lifetime = CompoundDisposable()
    let state = _Locked(State())

    init() {}

    func receive(_ event: Event<Value, Failure>) {
        let (waiter, result, ended) = state.withLock { state -> (Waiter?, Result<Value?, Failure>?, Bool) in
            if state.end != nil || state.finished { return (nil, nil, false) }
            switch event {
            case .next(let value): state.values.append(value)
            case .error(let error): state.end = .failure(error)
            case .completed: state.end = .success(())
            }
            guard let waiter = state.waiter else { return (nil, nil, event.isTerminal) }
            state.waiter = nil
            return (waiter, state.take(), event.isTerminal)
        }
        if let waiter, let result { waiter.resume(returning: result) }
        if ended { lifetime.dispose() }
    }

    /// The next result, if one is ready without waiting.
    func take() -> Result<Value?, Failure>? {
        state.withLock { $0.take() }
    }

    /// Resumes `waiter` with the next result, now or when it arrives.
    func wait(_ waiter: Waiter) {
        let ready = state.withLock { state -> Result<Value?, Failure>? in
            if let ready = state.take() { return ready }
            precondition(state.waiter == nil, "a signal's values iterator was used from two tasks at once")
            state.waiter = waiter
            return nil
        }
        if let ready { waiter.resume(returning: ready) }
    }

    /// Ends the iteration: disposes the subscription, and the waiting `next()` returns nil.
    func cancel() {
        let waiter = state.withLock { state -> Waiter? in
            state.finished = true
            state.values = []
            state.head = 0
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: .success(nil))
        lifetime.dispose()
    }
}

/// A signal is not itself an `AsyncSequence`: `for await x in signal` does not compile, and says
/// to iterate `signal.values` instead. The values must be `Sendable` to cross from the thread
/// that sends them into the task that iterates them, and Swift does not let a conformance to
/// `AsyncSequence` depend on `Value: Sendable` ("conditional conformance to non-marker protocol
/// cannot depend on conformance to marker protocol 'Sendable'"); `values` is where that
/// requirement lives.
///
/// ```swift
/// for await quantity in observe(invoice, \.quantity).values { print(quantity) }
/// ```
@available(*, unavailable, message: "iterate the signal's values: `for await value in signal.values`")
extension Signal: AsyncSequence {
    public typealias Element = Value

    public struct AsyncIterator: AsyncIteratorProtocol {
        public mutating func next() async throws(Failure) -> Value? { nil }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
}
