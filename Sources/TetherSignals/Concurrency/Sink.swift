import Synchronization

extension Signal {
    /// Subscribes with closures that run in the caller's isolation, so they may capture and
    /// change its state: a local variable, a `@MainActor` view's properties, an actor's state.
    ///
    /// `subscribe(next:error:completed:)` takes `@Sendable` closures and calls them on whatever
    /// thread sends each event. `sink` calls its closures only where it was called:
    ///
    /// - **From an actor** (a `@MainActor` function, an actor's method): an event sent while
    ///   that actor runs is delivered at once, synchronously; an event sent elsewhere is
    ///   delivered on the actor soon after, in order (the events that arrive meanwhile wait,
    ///   and later events wait behind them).
    /// - **From code on no actor** (a synchronous function, a test): events are delivered
    ///   synchronously on the calling thread. An event sent on another thread stops the process
    ///   with a message: there is nowhere safe to run the closures. Deliver on the calling
    ///   thread first, call `sink` from an actor, or use `subscribe` with `@Sendable` closures.
    ///
    /// Disposing ends delivery at once, wherever it is called: nothing is delivered after
    /// `dispose()` returns, not even an event that was waiting for the actor.
    ///
    /// ```swift
    /// var seen: [Int] = []
    /// let subscription = observe(counter, \.count).sink { seen.append($0) }
    /// counter.count = 1
    /// // seen == [0, 1]
    ///
    /// @MainActor final class Screen {
    ///     var title = ""
    ///     func show(_ names: Signal<String, Never>) -> any Disposable {
    ///         names.sink { self.title = $0 }   // runs on the main actor
    ///     }
    /// }
    /// ```
    @discardableResult
    public func sink(
        isolation: isolated (any Actor)? = #isolation,
        next: ((Value) -> Void)? = nil,
        error: ((Failure) -> Void)? = nil,
        completed: (() -> Void)? = nil
    ) -> any Disposable {
        let delivery = _IsolatedDelivery<Value, Failure>(isolation: isolation, next: next, error: error, completed: completed)
        let subscription = subscribe(events: { delivery.receive($0) })
        delivery.upstream.withLock { $0 = subscription }
        if delivery.isDisposed { subscription.dispose() }
        return delivery
    }
}

/// The subscriber behind `sink`: delivers events where the closures may run, or queues them
/// for the actor they belong to.
///
/// Why `@unchecked Sendable` is safe: the closures (not `Sendable`) are called only where they
/// were made: on the thread or actor recorded in `owner`, checked before every call (`deliver`
/// runs either after `_Owner.isCurrent(owner)` said yes, or inside `drain`, which is isolated
/// to that actor). Everything else is behind locks (`_Locked`) and atomics. The closures are
/// released with the object.
final class _IsolatedDelivery<Value, Failure: Error>: Disposable, @unchecked Sendable {
    /// The actor the closures belong to, or nil for the thread in `owner`.
    private let isolation: (any Actor)?
    /// Where the closures may run (see `_Owner`).
    private let owner: UInt
    private let next: ((Value) -> Void)?
    private let error: ((Failure) -> Void)?
    private let completed: (() -> Void)?
    /// Events waiting for the actor, and whether a task to deliver them is on its way.
    private let waiting = _Locked<(events: [Event<Value, Failure>], scheduled: Bool)>(([], false))
    /// Set by `dispose()` or by delivering the terminal event; nothing is delivered after it.
    private let ended = Atomic<Bool>(false)
    /// The subscription to the signal.
    let upstream = _Locked<(any Disposable)?>(nil)

    init(
        isolation: (any Actor)?,
        next: ((Value) -> Void)?,
        error: ((Failure) -> Void)?,
        completed: (() -> Void)?
    ) {
        self.isolation = isolation
        // Called from `sink`, which runs isolated to `isolation`: the current executor is that
        // actor's. The main actor also runs on the main thread outside tasks, which its owner
        // word covers (see `_Owner`).
        self.owner = isolation is MainActor ? _Owner.mainActor : (isolation == nil ? _currentThreadID() : _Owner.current)
        self.next = next
        self.error = error
        self.completed = completed
    }

    var isDisposed: Bool { ended.load(ordering: .acquiring) }

    func dispose() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        waiting.withLock { $0.events.removeAll() }
        upstream.withLock { $0 }?.dispose()
    }

    /// An event from the signal, on whatever thread sent it.
    func receive(_ event: Event<Value, Failure>) {
        guard !isDisposed else { return }
        if _Owner.isCurrent(owner), waiting.withLock({ $0.events.isEmpty && !$0.scheduled }) {
            deliver(event)
            return
        }
        guard let isolation else {
            preconditionFailure(
                "Tether: sink(next:) was called from code on no actor, so it delivers on the thread that called it, "
                    + "and this event was sent on another thread. Deliver on that thread first (deliver(on:)), "
                    + "call sink from an actor (for example a @MainActor function), "
                    + "or subscribe(next:) with @Sendable closures"
            )
        }
        let schedule = waiting.withLock { waiting in
            waiting.events.append(event)
            defer { waiting.scheduled = true }
            return !waiting.scheduled
        }
        if schedule {
            Task { await self.drain(on: isolation) }
        }
    }

    /// Delivers the waiting events on their actor, oldest first, until none is left.
    private func drain(on actor: isolated any Actor) {
        while true {
            let events = waiting.withLock { waiting in
                defer { waiting.events.removeAll() }
                if waiting.events.isEmpty { waiting.scheduled = false }
                return waiting.events
            }
            if events.isEmpty { return }
            for event in events where !isDisposed {
                deliver(event)
            }
        }
    }

    /// Calls the closure for `event`, where the closures may run.
    private func deliver(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value):
            next?(value)
        case .error(let failure):
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            error?(failure)
        case .completed:
            guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
            completed?()
        }
    }
}
