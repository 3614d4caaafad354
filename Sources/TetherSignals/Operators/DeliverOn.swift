extension Signal where Value: Sendable {
    /// Delivers every event on `scheduler`, in the order it was sent (RAC's `deliverOn:`,
    /// ReactiveSwift's `observe(on:)`).
    ///
    /// Events are queued and delivered by one scheduled action at a time, so their order holds
    /// on any scheduler. Disposing the subscription drops the events still queued: once
    /// `dispose()` has returned, no further event is delivered (a callback already running on
    /// the scheduler's thread at that moment finishes).
    ///
    /// ```swift
    /// search.results
    ///     .deliver(on: .main)
    ///     .subscribe(next: { table.show($0) })   // runs on the main queue
    /// ```
    @inlinable
    public func deliver<S: Scheduler>(on scheduler: S) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let queue = _DeliveryQueue(sink: sink, lifetime: lifetime, scheduler: scheduler)
            upstream({ queue.receive($0) }, lifetime)
        })
    }
}

/// The state of one `deliver(on:)` subscription: the events waiting, and whether a delivery
/// is scheduled. At most one delivery action is scheduled at a time, and it empties the queue,
/// so the sink is called by one thread at a time, in order.
@usableFromInline
final class _DeliveryQueue<Value: Sendable, Failure: Error, S: Scheduler>: Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    struct State {
        var pending: [Event<Value, Failure>] = []
        var scheduled = false
    }

    let sink: Sink
    let lifetime: CompoundDisposable
    let scheduler: S
    let state = _Locked(State())
    /// The scheduled delivery; assigned only from `receive` (upstream events arrive one at a
    /// time), and disposed with the subscription.
    let delivery = SerialDisposable()

    @usableFromInline
    init(sink: @escaping Sink, lifetime: CompoundDisposable, scheduler: S) {
        self.sink = sink
        self.lifetime = lifetime
        self.scheduler = scheduler
        lifetime.add(delivery)
    }

    @usableFromInline
    func receive(_ event: Event<Value, Failure>) {
        let mustSchedule = state.withLock { state -> Bool in
            state.pending.append(event)
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if mustSchedule {
            delivery.inner = scheduler.schedule { [self] in deliverPending() }
        }
    }

    private func deliverPending() {
        while true {
            let batch = state.withLock { state -> [Event<Value, Failure>] in
                if state.pending.isEmpty {
                    state.scheduled = false
                    return []
                }
                defer { state.pending.removeAll() }
                return state.pending
            }
            if batch.isEmpty { return }
            for event in batch {
                if lifetime.isDisposed { return }
                sink(event)
            }
        }
    }
}
