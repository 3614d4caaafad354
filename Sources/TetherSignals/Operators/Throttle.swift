extension Signal where Value: Sendable {
    /// Limits the rate of values to at most one per `interval`, delivering on `scheduler`
    /// (ReactiveSwift's `throttle(_:on:)`).
    ///
    /// The first value passes at once. After a value was sent, values arriving within
    /// `interval` are held back:
    /// - with `latest: true` (the default), the latest of them is sent when the interval is up
    ///   (so the last value of a burst is never lost);
    /// - with `latest: false`, they are dropped, and the next value after the interval passes.
    ///
    /// All events are delivered on `scheduler`. Completion waits for a value still held back
    /// (it follows that value); an error is delivered as soon as possible and drops it.
    ///
    /// ```swift
    /// // at most one save every two seconds, always saving the latest text
    /// editor.text
    ///     .throttle(.seconds(2), on: QueueScheduler(label: "autosave"))
    ///     .subscribe(next: { save($0) })
    /// ```
    @inlinable
    public func throttle<S: Scheduler>(_ interval: Duration, on scheduler: S, latest: Bool = true) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let state = _ThrottleState(
                sink: sink, lifetime: lifetime, scheduler: scheduler, interval: interval, latest: latest
            )
            upstream({ state.receive($0) }, lifetime)
        })
    }
}

/// The state of one `throttle` subscription.
@usableFromInline
final class _ThrottleState<Value: Sendable, Failure: Error, S: Scheduler>: Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    struct State {
        /// When the last value was sent (scheduler time).
        var lastSent: Duration?
        /// The value to send when the scheduled delivery runs.
        var held: Value?
        /// A delivery is scheduled and has not run yet.
        var deliveryScheduled = false
        /// Completion arrived while a delivery was scheduled: it follows the delivery.
        var completeAfterDelivery = false
        /// A terminal event was received.
        var ended = false
    }

    let out: _Gate<Value, Failure>
    let lifetime: CompoundDisposable
    let scheduler: S
    let interval: Duration
    let latest: Bool
    let state = _Locked(State())
    /// The scheduled delivery; assigned only from `receive` (upstream events arrive one at a time).
    let delivery = SerialDisposable()

    @usableFromInline
    init(sink: @escaping Sink, lifetime: CompoundDisposable, scheduler: S, interval: Duration, latest: Bool) {
        self.out = _Gate(sink: sink, lifetime: lifetime)
        self.lifetime = lifetime
        self.scheduler = scheduler
        self.interval = max(interval, .zero)
        self.latest = latest
        lifetime.add(delivery)
    }

    @usableFromInline
    func receive(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value):
            let now = scheduler.now
            let delay = state.withLock { state -> Duration? in
                if state.ended { return nil }
                let windowEnd = state.lastSent.map { $0 + interval }
                if latest {
                    state.held = value
                    if state.deliveryScheduled { return nil }   // it will send this value
                    state.deliveryScheduled = true
                    return max((windowEnd ?? now) - now, .zero)
                }
                if state.deliveryScheduled { return nil }       // the first value of the window wins
                if let windowEnd, now < windowEnd { return nil }
                state.held = value
                state.deliveryScheduled = true
                return .zero
            }
            if let delay {
                delivery.inner = scheduler.schedule(after: delay) { [self] in deliver() }
            }
        case .completed:
            let completeNow = state.withLock { state -> Bool in
                if state.ended { return false }
                state.ended = true
                if state.deliveryScheduled {
                    state.completeAfterDelivery = true
                    return false
                }
                return true
            }
            if completeNow {
                lifetime.add(scheduler.schedule { [out] in out.send(.completed) })
            }
        case .error:
            let first = state.withLock { state -> Bool in
                if state.ended { return false }
                state.ended = true
                state.held = nil
                state.completeAfterDelivery = false
                return true
            }
            guard first else { return }
            delivery.dispose()
            lifetime.add(scheduler.schedule { [out] in out.send(event) })
        }
    }

    /// Sends the held value (and completion, if it was waiting for this value).
    private func deliver() {
        let now = scheduler.now
        var claimed = false
        state.withLock { state in
            state.deliveryScheduled = false
            if let value = state.held {
                state.held = nil
                state.lastSent = now
                if out.offer(.next(value)) { claimed = true }
            }
            if state.completeAfterDelivery {
                state.completeAfterDelivery = false
                if out.offer(.completed) { claimed = true }
            }
        }
        if claimed { out.drain() }
    }
}
