extension Signal {
    /// Resubscribes after a failure, up to `count` times; if the last attempt fails too, its
    /// error is forwarded (RAC's `retry:`). Each failed attempt's subscription is disposed
    /// before the next one starts. Values of every attempt are sent on, so a signal that fails
    /// after some values sends them again. `retry(0)` forwards the first failure.
    ///
    /// Synchronous failures are retried in a loop, not by recursion, so the stack does not
    /// grow with the number of attempts.
    ///
    /// ```swift
    /// fetch(url).retry(3)   // up to four attempts in all
    /// ```
    @inlinable
    public func retry(_ count: Int) -> Signal {
        precondition(count >= 0, "retry(_:) needs a count that is not negative")
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            _RetryLoop(upstream: upstream, sink: sink, lifetime: lifetime, remaining: count).run()
        })
    }

    /// Resubscribes after every failure, until the signal completes or the subscription is
    /// disposed (RAC's `retry`). A signal that always fails synchronously makes this loop
    /// forever.
    ///
    /// ```swift
    /// connection.retry()   // reconnect whenever the connection fails
    /// ```
    @inlinable
    public func retry() -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            _RetryLoop(upstream: upstream, sink: sink, lifetime: lifetime, remaining: nil).run()
        })
    }
}

/// The state of one `retry` subscription: subscribes attempts one after another, each with its
/// own child lifetime, which is disposed and removed from the subscription's lifetime when the
/// attempt fails (so a long-lived retrying subscription does not grow).
@usableFromInline
final class _RetryLoop<Value, Failure: Error>: Sendable {
    @usableFromInline typealias Run = @Sendable (
        _ sink: @escaping @Sendable (Event<Value, Failure>) -> Void,
        _ lifetime: CompoundDisposable
    ) -> Void

    @usableFromInline
    struct State {
        /// Retries left; nil for unbounded.
        @usableFromInline var remaining: Int?
        /// Whether `run()` is inside a call to `upstream` right now.
        @usableFromInline var subscribing = false
        /// An attempt failed while `run()` was subscribing: `run()` starts the next one when
        /// the call returns (a trampoline instead of recursion).
        @usableFromInline var again = false
        @inlinable init(remaining: Int?) { self.remaining = remaining }
    }

    @usableFromInline
    enum Decision {
        case fail
        case deferToLoop
        case resubscribe
    }

    @usableFromInline let upstream: Run
    @usableFromInline let sink: @Sendable (Event<Value, Failure>) -> Void
    @usableFromInline let lifetime: CompoundDisposable
    @usableFromInline let state: _Locked<State>

    @inlinable
    init(
        upstream: @escaping Run,
        sink: @escaping @Sendable (Event<Value, Failure>) -> Void,
        lifetime: CompoundDisposable,
        remaining: Int?
    ) {
        self.upstream = upstream
        self.sink = sink
        self.lifetime = lifetime
        self.state = _Locked(State(remaining: remaining))
    }

    /// Subscribes attempts until one does not fail synchronously.
    @inlinable
    func run() {
        while !lifetime.isDisposed {
            state.withLock { state in
                state.subscribing = true
                state.again = false
            }
            let attempt = CompoundDisposable()
            lifetime.add(attempt)
            upstream({ [self] event in receive(event, from: attempt) }, attempt)
            let again = state.withLock { state -> Bool in
                state.subscribing = false
                defer { state.again = false }
                return state.again
            }
            if !again { return }
        }
    }

    @inlinable
    func receive(_ event: Event<Value, Failure>, from attempt: CompoundDisposable) {
        if attempt.isDisposed { return }
        guard case .error(let error) = event else {
            sink(event)
            return
        }
        attempt.dispose()
        lifetime.remove(attempt)
        let decision = state.withLock { state -> Decision in
            if let remaining = state.remaining {
                if remaining == 0 { return .fail }
                state.remaining = remaining - 1
            }
            if state.subscribing {
                state.again = true
                return .deferToLoop
            }
            return .resubscribe
        }
        switch decision {
        case .fail: sink(.error(error))
        case .deferToLoop: break
        case .resubscribe: run()
        }
    }
}
