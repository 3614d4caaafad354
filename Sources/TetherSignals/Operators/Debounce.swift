extension Signal where Value: Sendable {
    /// Sends a value only after `interval` has passed without another value, delivering on
    /// `scheduler` (RAC 2's `throttle:`, Rx's `debounce`).
    ///
    /// Each value restarts the wait; a value followed by another within `interval` is dropped.
    /// When the signal completes, a value still waiting is sent at once, then completion. An
    /// error is delivered as soon as possible and drops a waiting value. All events are
    /// delivered on `scheduler`.
    ///
    /// ```swift
    /// searchField.text
    ///     .debounce(.milliseconds(300), on: .main)   // search once the user pauses typing
    ///     .subscribe(next: { search($0) })
    /// ```
    @inlinable
    public func debounce<S: Scheduler>(_ interval: Duration, on scheduler: S) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let state = _DebounceState(sink: sink, lifetime: lifetime, scheduler: scheduler, interval: interval)
            upstream({ state.receive($0) }, lifetime)
        })
    }
}

/// The state of one `debounce` subscription.
@usableFromInline
final class _DebounceState<Value: Sendable, Failure: Error, S: Scheduler>: Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    struct State {
        var waiting: Value?
        /// Counts values, so that a timer that fires after being replaced sends nothing.
        var generation: UInt64 = 0
        var ended = false
    }

    let out: _Gate<Value, Failure>
    let lifetime: CompoundDisposable
    let scheduler: S
    let interval: Duration
    let state = _Locked(State())
    /// The timer of the waiting value; assigned only from `receive` (upstream events arrive
    /// one at a time).
    let timer = SerialDisposable()

    @usableFromInline
    init(sink: @escaping Sink, lifetime: CompoundDisposable, scheduler: S, interval: Duration) {
        self.out = _Gate(sink: sink, lifetime: lifetime)
        self.lifetime = lifetime
        self.scheduler = scheduler
        self.interval = max(interval, .zero)
        lifetime.add(timer)
    }

    @usableFromInline
    func receive(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value):
            let generation = state.withLock { state -> UInt64? in
                if state.ended { return nil }
                state.waiting = value
                state.generation &+= 1
                return state.generation
            }
            guard let generation else { return }
            timer.inner = scheduler.schedule(after: interval) { [self] in fire(generation) }
        case .completed, .error:
            let waiting = state.withLock { state -> Value?? in
                if state.ended { return .none }
                state.ended = true
                defer { state.waiting = nil }
                return .some(state.waiting)
            }
            guard case .some(let waiting) = waiting else { return }
            timer.dispose()
            var flush: Value?
            if case .completed = event { flush = waiting }   // an error drops the waiting value
            lifetime.add(scheduler.schedule { [out, flush] in
                if let flush { out.send(.next(flush)) }
                out.send(event)
            })
        }
    }

    private func fire(_ generation: UInt64) {
        var claimed = false
        state.withLock { state in
            guard state.generation == generation, !state.ended, let value = state.waiting else { return }
            state.waiting = nil
            claimed = out.offer(.next(value))
        }
        if claimed { out.drain() }
    }
}
