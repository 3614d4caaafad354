import Synchronization

extension Signal {
    /// Subscribes to this signal on `scheduler`: the subscription's side effects (the body of
    /// `Signal { observer in ... }`, subscribing to a subject) run there, and so does its
    /// cleanup when the subscription is disposed (RAC's `subscribeOn:`, Rx's `subscribeOn`).
    ///
    /// Events are delivered on whatever thread the producer sends them from; combine with
    /// `deliver(on:)` to choose that too. Disposing stops delivery at once; the upstream's
    /// cleanup is then scheduled on `scheduler`. One exception: if the disposal happens while
    /// the upstream is still being subscribed (a synchronous producer, typically stopped by a
    /// downstream `take`), the upstream is disposed at once, since the scheduler is busy
    /// running that very producer and a queued cleanup could never stop it.
    ///
    /// ```swift
    /// let contents = Signal<String, FileError> { observer in
    ///     observer.sendNext(readFile(path))   // blocking work, on the background queue
    ///     observer.sendCompleted()
    ///     return nil
    /// }
    /// contents
    ///     .subscribe(on: QueueScheduler(label: "io"))
    ///     .deliver(on: .main)
    ///     .subscribe(next: { editor.text = $0 })
    /// ```
    @inlinable
    public func subscribe<S: Scheduler>(on scheduler: S) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let start = _SubscribeOnStart(lifetime: lifetime, scheduler: scheduler)
            lifetime.add(scheduler.schedule {
                start.run { upstreamLifetime in upstream(sink, upstreamLifetime) }
            })
            lifetime.add { start.disposeUpstream() }
        })
    }
}

/// Tracks one `subscribe(on:)` subscription: whether the upstream was subscribed yet, and so
/// how its disposal must happen.
@usableFromInline
final class _SubscribeOnStart<S: Scheduler>: Sendable {
    static var notStarted: Int { 0 }
    static var starting: Int { 1 }
    static var started: Int { 2 }

    let lifetime: CompoundDisposable
    let scheduler: S
    /// The upstream's own lifetime, so that its cleanup can be moved to the scheduler.
    let upstreamLifetime = CompoundDisposable()
    let phase = Atomic<Int>(0)

    @usableFromInline
    init(lifetime: CompoundDisposable, scheduler: S) {
        self.lifetime = lifetime
        self.scheduler = scheduler
    }

    /// Subscribes upstream (on the scheduler), unless the subscription was disposed already.
    @usableFromInline
    func run(_ subscribe: (CompoundDisposable) -> Void) {
        phase.store(Self.starting, ordering: .sequentiallyConsistent)
        if lifetime.isDisposed {
            upstreamLifetime.dispose()
            return
        }
        subscribe(upstreamLifetime)
        phase.store(Self.started, ordering: .sequentiallyConsistent)
    }

    /// Called when the subscription is disposed.
    @usableFromInline
    func disposeUpstream() {
        switch phase.load(ordering: .sequentiallyConsistent) {
        case Self.notStarted:
            // The scheduled start was cancelled, or will see the disposal and not subscribe.
            upstreamLifetime.dispose()
        case Self.starting:
            upstreamLifetime.dispose()
        default:
            scheduler.schedule { [upstreamLifetime] in upstreamLifetime.dispose() }
        }
    }
}
