extension Signal where Value: Sendable {
    /// Subscribes, waits for the first value, and disposes the subscription at once.
    ///
    /// Returns nil if the signal completes without a value; throws the signal's error if it
    /// fails first. If the awaiting task is cancelled, the subscription is disposed and nil is
    /// returned. The subscription stops as soon as the first value arrives, so an endless
    /// signal is fine.
    ///
    /// ```swift
    /// let user = try await session.currentUser.first()   // User?
    /// let firstEven = await Signal(sequence: 1...).filter { $0.isMultiple(of: 2) }.first()   // 2
    /// ```
    public func first() async throws(Failure) -> Value? {
        try await _awaitResult(wantsFirst: true)
    }

    /// Subscribes and waits for the signal to complete, returning its last value (nil if it
    /// sent none). Throws the signal's error if it fails. If the awaiting task is cancelled,
    /// the subscription is disposed and nil is returned.
    ///
    /// ```swift
    /// let last = await Signal(sequence: [1, 2, 3]).map { $0 * 10 }.last()   // 30
    /// ```
    public func last() async throws(Failure) -> Value? {
        try await _awaitResult(wantsFirst: false)
    }

    func _awaitResult(wantsFirst: Bool) async throws(Failure) -> Value? {
        let awaiter = _SignalAwaiter<Value, Failure>(wantsFirst: wantsFirst)
        let run = _run
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                awaiter.start(continuation, run: run)
            }
        } onCancel: {
            awaiter.finish(.success(nil))
        }
        return try result.get()
    }
}

/// One `first()` or `last()` call: the subscription, and the continuation to resume once.
final class _SignalAwaiter<Value: Sendable, Failure: Error>: Sendable {
    typealias Continuation = CheckedContinuation<Result<Value?, Failure>, Never>

    struct State {
        var continuation: Continuation?
        /// The result, if it came before the continuation was installed (cancellation).
        var result: Result<Value?, Failure>?
        var latest: Value?
    }

    let wantsFirst: Bool
    let lifetime = CompoundDisposable()
    let state = _Locked(State())

    init(wantsFirst: Bool) {
        self.wantsFirst = wantsFirst
    }

    func start(
        _ continuation: Continuation,
        run: @Sendable (@escaping @Sendable (Event<Value, Failure>) -> Void, CompoundDisposable) -> Void
    ) {
        let early = state.withLock { state -> Result<Value?, Failure>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(returning: early)
            return
        }
        run({ [self] event in receive(event) }, lifetime)
    }

    private func receive(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value):
            if wantsFirst {
                finish(.success(value))
            } else {
                state.withLock { $0.latest = value }
            }
        case .error(let error):
            finish(.failure(error))
        case .completed:
            finish(.success(state.withLock { $0.latest }))
        }
    }

    /// Records the result (the first call wins), resumes the waiting task, ends the subscription.
    func finish(_ result: Result<Value?, Failure>) {
        let continuation = state.withLock { state -> Continuation? in
            if state.result != nil { return nil }
            state.result = result
            state.latest = nil
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: result)
        lifetime.dispose()
    }
}
