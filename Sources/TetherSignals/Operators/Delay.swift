extension Signal where Value: Sendable {
    /// Delays each value, and completion, by `interval`, delivering them on `scheduler`
    /// (ReactiveSwift's `delay(_:on:)`).
    ///
    /// An error is not delayed: it is delivered on `scheduler` as soon as possible, and the
    /// values still waiting are dropped (a failure is news that should not wait behind stale
    /// values). Events keep their order.
    ///
    /// ```swift
    /// let toast = Subject<String, Never>()
    /// toast.signal
    ///     .delay(.seconds(2), on: .main)
    ///     .subscribe(next: { hide($0) })   // each toast is hidden two seconds after it appeared
    /// ```
    @inlinable
    public func delay<S: Scheduler>(_ interval: Duration, on scheduler: S) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let state = _DelayState(sink: sink, lifetime: lifetime, scheduler: scheduler, interval: interval)
            upstream({ state.receive($0) }, lifetime)
        })
    }
}

/// The state of one `delay` subscription: the events waiting with their due times, and one
/// timer for the earliest of them (so the order of events never depends on how the scheduler
/// orders timers).
@usableFromInline
final class _DelayState<Value: Sendable, Failure: Error, S: Scheduler>: Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    struct State {
        var waiting: [(due: Duration, event: Event<Value, Failure>)] = []
        var head = 0
        var timerScheduled = false
        var failed = false
    }

    let out: _Gate<Value, Failure>
    let lifetime: CompoundDisposable
    let scheduler: S
    let interval: Duration
    let state = _Locked(State())
    /// The timer for the earliest waiting event. Assigned by `receive` when no timer is
    /// scheduled, or by the firing timer when events remain; never by both at once.
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
        if case .error = event {
            let first = state.withLock { state -> Bool in
                if state.failed { return false }
                state.failed = true
                state.waiting = []
                state.head = 0
                return true
            }
            guard first else { return }
            timer.dispose()
            lifetime.add(scheduler.schedule { [out] in out.send(event) })
            return
        }
        let due = scheduler.now + interval
        let mustSchedule = state.withLock { state -> Bool in
            if state.failed { return false }
            state.waiting.append((due, event))
            if state.timerScheduled { return false }
            state.timerScheduled = true
            return true
        }
        if mustSchedule {
            timer.inner = scheduler.schedule(after: interval) { [self] in fire() }
        }
    }

    /// Delivers every event that is due, and schedules the timer for the next one.
    private func fire() {
        let now = scheduler.now
        var claimed = false
        let nextDelay = state.withLock { state -> Duration? in
            while state.head < state.waiting.count, state.waiting[state.head].due <= now {
                if out.offer(state.waiting[state.head].event) { claimed = true }
                state.head += 1
            }
            if state.head == state.waiting.count {
                state.waiting.removeAll(keepingCapacity: true)
                state.head = 0
                state.timerScheduled = false
                return nil
            }
            if state.head > 64, state.head * 2 > state.waiting.count {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return state.waiting[state.head].due - now
        }
        if claimed { out.drain() }
        if let nextDelay {
            timer.inner = scheduler.schedule(after: nextDelay) { [self] in fire() }
        }
    }
}
