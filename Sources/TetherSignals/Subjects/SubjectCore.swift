import Synchronization

/// The broadcaster behind `Subject`, `ReplaySubject` and `BehaviorSubject`.
///
/// Every event and every change to the subscriber list goes through one owner at a time
/// (`_WorkInProgress`): whoever finds the subject free becomes its owner and does its own work
/// at once; whoever finds it busy (another thread, or a subscriber sending, subscribing or
/// disposing re-entrantly from a callback) queues its work, and the owner runs that work, in
/// order, before it gives ownership up. So each subscriber sees events one at a time, in one
/// order, and a subscriber that sends into the subject it observes neither deadlocks nor
/// recurses. Nothing is locked while a subscriber runs.
///
/// The fast path — a send that finds the subject free — costs two atomic read-modify-writes
/// (claim, release) and a walk over the subscriber list in place: no lock, no copy.
///
/// Why `@unchecked Sendable` is safe: the only mutable stored property, `owned`, is read and
/// written only by the current owner of `wip` — between a successful `tryClaim()`/`join()`
/// and the release that brings the counter back to 0 (see `_WorkInProgress`). At most one
/// thread is the owner at any time, and successive owners are ordered by the acquire/release
/// read-modify-writes on the counter, so no two threads ever access `owned` concurrently. A
/// callback that re-enters the subject while its owner is delivering cannot claim it (the
/// counter is not 0): it only appends to `pending` (under its own lock), so even on the
/// owner's thread no access to `owned` overlaps another — which is also why exclusivity
/// checking of `owned` is turned off (`@exclusivity(unchecked)`: it could never fire, and it
/// costs two runtime calls per access). Everything read from other threads lives elsewhere:
/// `liveCount` (an atomic) and `replay` (a `_Locked`).
///
/// Each subscriber is a `_SubjectSubscription`, which holds its sink in a `let`: delivery calls
/// the sink through an unretained (+0) reference, which is safe because the subscriber list —
/// and so the strong reference it holds — cannot change while the owner walks it.
@usableFromInline
final class _SubjectCore<Value, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    /// Work queued for the owner.
    @usableFromInline
    enum Work {
        case event(Event<Value, Failure>)
        case attach(_SubjectSubscription<Value, Failure>, lifetime: CompoundDisposable)
    }

    @usableFromInline
    struct Pending {
        @usableFromInline var queue = _FIFO<Work>()
        /// Subscriptions disposed while the subject was owned. The owner applies them before
        /// anything else queued, so that a disposed subscriber gets no further event.
        @usableFromInline var removals: [UInt64] = []
        @inlinable init() {}
    }

    /// What the owner does next.
    @usableFromInline
    enum Next {
        case removals([UInt64])
        case work(Work)
    }

    /// The state only the owner touches.
    @usableFromInline
    struct Owned {
        @usableFromInline var subscribers = _Bag<_SubjectSubscription<Value, Failure>>()
        /// The terminal event, once accepted: later events are dropped, late subscribers get it.
        @usableFromInline var terminal: Event<Value, Failure>?
        @inlinable init() {}
    }

    @usableFromInline let wip = _WorkInProgress()
    @exclusivity(unchecked) @usableFromInline var owned = Owned()
    @usableFromInline let pending = _Locked(Pending())
    /// The values to replay (latest last); nil for a plain subject, which replays nothing. The
    /// owner appends under this lock so that `currentValues` can read it from any thread.
    @usableFromInline let replay: _Locked<_RingBuffer<Value>>?
    /// The number of subscribers, kept by the owner for `subscriberCount`.
    @usableFromInline let liveCount = Atomic<Int>(0)
    @usableFromInline let tokens = Atomic<UInt64>(0)

    @inlinable
    init(replay capacity: Int) {
        replay = capacity > 0 ? _Locked(_RingBuffer(capacity: capacity)) : nil
    }

    // MARK: Sending

    @inlinable
    func send(_ event: Event<Value, Failure>) {
        if wip.tryClaim() {
            process(event)
            let missed = wip.tryRelease()
            if missed != 0 { drain(missed) }
        } else {
            pending.withLock { $0.queue.append(.event(event)) }
            if wip.join() { drain(1) }
        }
    }

    /// Delivers one event to every subscriber. Owner only.
    @inlinable
    func process(_ event: Event<Value, Failure>) {
        if owned.terminal != nil { return }
        switch event {
        case .next(let value):
            if let replay { replay.withLock { $0.append(value) } }
        case .error, .completed:
            owned.terminal = event
        }
        // The subscriber list cannot change during this loop: only the owner changes it, and
        // the owner is here (a subscriber that subscribes or disposes re-entrantly only queues
        // its change). So walk the list in place, without copying it.
        // Each subscriber is called through an unretained reference: the list's strong reference
        // keeps it alive, for the same reason. (Retaining it would cost two more atomic
        // operations per subscriber and event.)
        var index = 0
        while index < owned.subscribers.entries.count {
            if let subscriber = owned.subscribers.entries[index].element.map({ Unmanaged.passUnretained($0) }) {
                subscriber._withUnsafeGuaranteedRef { $0.sink(event) }
            }
            index += 1
        }
        if event.isTerminal {
            // The terminal event was delivered: release every subscriber.
            let released = owned.subscribers.removeAll()
            liveCount.store(0, ordering: .releasing)
            withExtendedLifetime(released) {}
        }
    }

    /// Runs queued work until none is left and nothing more was announced, then gives up
    /// ownership. Owner only; `missed` is the count to pass to `_WorkInProgress.leave(_:)`.
    @usableFromInline
    func drain(_ missed: Int) {
        var missed = missed
        repeat {
            while let next = pending.withLock({ pending -> Next? in
                if !pending.removals.isEmpty {
                    defer { pending.removals = [] }
                    return .removals(pending.removals)
                }
                return pending.queue.isEmpty ? nil : .work(pending.queue.removeFirst())
            }) {
                switch next {
                case .removals(let tokens):
                    var removed: [_SubjectSubscription<Value, Failure>] = []
                    for token in tokens {
                        if let sink = owned.subscribers.remove(token: token) { removed.append(sink) }
                    }
                    liveCount.store(owned.subscribers.count, ordering: .releasing)
                    withExtendedLifetime(removed) {}
                case .work(.event(let event)):
                    process(event)
                case .work(.attach(let subscription, let lifetime)):
                    _ = admit(subscription, lifetime: lifetime)
                }
            }
            missed = wip.leave(missed)
        } while missed != 0
    }

    // MARK: Subscribing

    /// Adds a subscriber (unless the subject has ended) and replays to it. Owner only.
    /// Returns whether the subscriber was added.
    @usableFromInline
    func admit(_ subscription: _SubjectSubscription<Value, Failure>, lifetime: CompoundDisposable) -> Bool {
        if lifetime.isDisposed { return false }
        let terminal = owned.terminal
        if terminal == nil {
            owned.subscribers.insert(subscription, token: subscription.token)
            liveCount.store(owned.subscribers.count, ordering: .releasing)
        }
        let sink = subscription.sink
        if let replay {
            for value in replay.withLock({ $0.elements }) {
                if lifetime.isDisposed { break }
                sink(.next(value))
            }
        }
        if let terminal {
            sink(terminal)
            return false
        }
        return true
    }

    @usableFromInline
    func attach(_ sink: @escaping Sink, lifetime: CompoundDisposable) {
        let subscription: _SubjectSubscription<Value, Failure>
        if wip.tryClaim() {
            subscription = _SubjectSubscription(
                core: self, token: tokens.wrappingAdd(1, ordering: .relaxed).oldValue, sink: sink)
            let added = admit(subscription, lifetime: lifetime)
            let missed = wip.tryRelease()
            if missed != 0 { drain(missed) }
            if !added { return }
        } else {
            // Reserving the token under the queue's lock keeps tokens in queue order, so the
            // owner nearly always appends to the sorted subscriber list.
            subscription = pending.withLock { pending in
                let subscription = _SubjectSubscription(
                    core: self, token: tokens.wrappingAdd(1, ordering: .relaxed).oldValue, sink: sink)
                pending.queue.append(.attach(subscription, lifetime: lifetime))
                return subscription
            }
            if wip.join() { drain(1) }
        }
        lifetime.add(subscription)
    }

    @usableFromInline
    func detach(token: UInt64) {
        if wip.tryClaim() {
            let removed = owned.subscribers.remove(token: token)
            liveCount.store(owned.subscribers.count, ordering: .releasing)
            let missed = wip.tryRelease()
            if missed != 0 { drain(missed) }
            // Release the subscriber's closure last: its deinit may run user code.
            withExtendedLifetime(removed) {}
            return
        }
        var withdrawn: Work?
        let queued = pending.withLock { pending -> Bool in
            // Not admitted yet: withdraw the subscription before it starts.
            if let index = pending.queue.firstIndex(where: {
                if case .attach(let subscription, _) = $0 { subscription.token == token } else { false }
            }) {
                withdrawn = pending.queue.remove(at: index)
                return false
            }
            pending.removals.append(token)
            return true
        }
        withExtendedLifetime(withdrawn) {}
        if queued, wip.join() { drain(1) }
    }

    @inlinable
    var currentValues: [Value] { replay?.withLock { $0.elements } ?? [] }

    /// The latest value delivered, if the subject replays any.
    @inlinable
    var latestValue: Value? { replay?.withLock { $0.last } }

    @inlinable
    var subscriberCount: Int { liveCount.load(ordering: .acquiring) }

    @inlinable
    var signal: Signal<Value, Failure> {
        Signal(_unchecked: { [self] sink, lifetime in attach(sink, lifetime: lifetime) })
    }
}

/// One subscriber of a subject: its sink, and the disposable that removes it from the subject.
/// The subject's subscriber list holds it (until the subscriber is removed or the subject
/// ends), and so does the subscription's lifetime. Holds the subject weakly: a subscription
/// must not keep a subject alive.
@usableFromInline
final class _SubjectSubscription<Value, Failure: Error>: Disposable {
    @usableFromInline weak let core: _SubjectCore<Value, Failure>?
    @usableFromInline let token: UInt64
    /// A `let`, so that the subject can call it through an unretained reference to `self`.
    @usableFromInline let sink: @Sendable (Event<Value, Failure>) -> Void
    @usableFromInline let disposed = Atomic<Bool>(false)

    @inlinable
    init(core: _SubjectCore<Value, Failure>, token: UInt64, sink: @escaping @Sendable (Event<Value, Failure>) -> Void) {
        self.core = core
        self.token = token
        self.sink = sink
    }

    @usableFromInline var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        core?.detach(token: token)
    }
}

/// A fixed-capacity FIFO that drops its oldest element when full.
@usableFromInline
struct _RingBuffer<Element> {
    @usableFromInline let capacity: Int
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    @inlinable var isEmpty: Bool { storage.isEmpty }

    @inlinable
    mutating func append(_ element: Element) {
        guard capacity > 0 else { return }
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    /// Oldest first.
    @inlinable var elements: [Element] {
        if head == 0 { return storage }
        return Array(storage[head...] + storage[..<head])
    }

    @inlinable var last: Element? {
        if storage.isEmpty { return nil }
        return storage[(head + storage.count - 1) % storage.count]
    }
}
