import Synchronization

/// Receives a signal's events: any number of values, then at most one error or completion.
///
/// Conform your own types to subscribe them with `Signal.subscribe(_:)`; a `Subject` is a
/// subscriber too, so a subject can be fed from a signal.
///
/// ```swift
/// struct Printer: Subscriber {
///     func sendNext(_ value: Int) { print(value) }
///     func sendError(_ error: Never) {}
///     func sendCompleted() { print("done") }
/// }
/// Signal(sequence: [1, 2]).subscribe(Printer())   // 1, 2, done
/// ```
public protocol Subscriber<Value, Failure>: Sendable {
    /// The type of values received.
    associatedtype Value
    /// The type of failure received.
    associatedtype Failure: Error

    /// Receives a value.
    func sendNext(_ value: Value)
    /// Receives a failure; nothing follows.
    func sendError(_ error: Failure)
    /// Receives completion; nothing follows.
    func sendCompleted()
}

extension Subscriber {
    /// Sends one event, dispatching to `sendNext`, `sendError` or `sendCompleted`.
    @inlinable
    public func send(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value): sendNext(value)
        case .error(let error): sendError(error)
        case .completed: sendCompleted()
        }
    }
}

/// The subscriber handed to the closure of `Signal { observer in ... }`: the producer's end of
/// one subscription.
///
/// It enforces the event grammar for the producer: values sent after a terminal event, or after
/// the subscription was disposed, are dropped; events sent from several threads at once are
/// delivered one at a time; an event sent from inside a callback of the same subscription is
/// delivered after the current one finishes (never re-entrantly, never a deadlock).
///
/// ```swift
/// let numbers = Signal<Int, Never> { observer in
///     for n in 1... {
///         if observer.isDisposed { break }   // stops when the subscriber has had enough
///         observer.sendNext(n)
///     }
///     return nil
/// }
/// numbers.take(3).subscribe(next: { print($0) })   // 1, 2, 3
/// ```
public struct Observer<Value, Failure: Error>: Subscriber {
    @usableFromInline let gate: _Gate<Value, Failure>

    @inlinable init(gate: _Gate<Value, Failure>) {
        self.gate = gate
    }

    @inlinable public func sendNext(_ value: Value) { gate.send(.next(value)) }
    @inlinable public func sendError(_ error: Failure) { gate.send(.error(error)) }
    @inlinable public func sendCompleted() { gate.send(.completed) }

    /// Whether the subscription has ended (disposed by the subscriber, or after a terminal
    /// event). Long-running producers check it to stop early.
    public var isDisposed: Bool { gate.lifetime.isDisposed || gate.isTerminated }

    /// Runs `action` when the subscription ends, however it ends.
    public func onDispose(_ action: @escaping @Sendable () -> Void) {
        gate.lifetime.add(action)
    }

    /// The subscription's disposable: add to it what the producer must clean up.
    public var lifetime: CompoundDisposable { gate.lifetime }
}

/// Serialises the events of one producer into one sink and enforces the event grammar.
///
/// Senders never block each other: a send that arrives while another is being delivered (from
/// another thread, or re-entrantly from inside the sink) is queued and delivered, in order, by
/// the thread already delivering, before it returns. The gate is owned by one thread at a time
/// through a work-in-progress counter (`_WorkInProgress`); a send that finds it free costs two
/// atomic read-modify-writes and no lock.
///
/// Why `@unchecked Sendable` is safe: the only mutable stored property, `owned`, is read and
/// written only by the current owner of `wip` (between a successful `tryClaim()`/`join()` and
/// the release that brings the counter back to 0). At most one thread owns the gate at a time,
/// and successive owners are ordered by the acquire/release read-modify-writes on the counter,
/// so no two threads ever access `owned` concurrently. A sink that re-enters the gate cannot
/// claim it (the counter is not 0) and only appends to `pending`, under its own lock; so even
/// on the owner's thread no access to `owned` overlaps another, which is why exclusivity
/// checking of `owned` is turned off (it could never fire). `isTerminated`, read from any
/// thread, is the atomic `terminated`.
@usableFromInline
final class _Gate<Value, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    /// The state only the owner touches.
    @usableFromInline
    struct Owned {
        /// A terminal event was delivered (or dropped after disposal): nothing follows.
        @usableFromInline var closed = false
        /// The event of an `offer(_:)` that claimed the gate, for the `drain()` that follows.
        @usableFromInline var handoff: Event<Value, Failure>?
        @inlinable init() {}
    }

    @usableFromInline let sink: Sink
    @usableFromInline let lifetime: CompoundDisposable
    @usableFromInline let wip = _WorkInProgress()
    /// A terminal event was accepted: later events are refused at once.
    @usableFromInline let terminated = Atomic<Bool>(false)
    @exclusivity(unchecked) @usableFromInline var owned = Owned()
    @usableFromInline let pending = _Locked(_FIFO<Event<Value, Failure>>())

    @inlinable
    init(sink: @escaping Sink, lifetime: CompoundDisposable) {
        self.sink = sink
        self.lifetime = lifetime
    }

    @usableFromInline var isTerminated: Bool { terminated.load(ordering: .acquiring) }

    /// Refuses an event that follows an accepted terminal event; accepts one terminal event.
    ///
    /// Two senders racing (a value and a terminal event) may both pass and queue their events
    /// in either order; the owner's `closed` flag then drops whatever comes after the terminal.
    @inlinable @inline(__always)
    func accept(_ event: Event<Value, Failure>) -> Bool {
        switch event {
        case .next: !terminated.load(ordering: .relaxed)
        case .error, .completed: !terminated.exchange(true, ordering: .acquiringAndReleasing)
        }
    }

    /// Delivers one event, unless a terminal event came before it. Owner only.
    @inlinable @inline(__always)
    func deliver(_ event: Event<Value, Failure>) {
        if owned.closed { return }
        if event.isTerminal { owned.closed = true }
        if !lifetime.isDisposed { sink(event) }
    }

    /// Sends one event: delivers it now, or queues it for the thread already delivering.
    @inlinable
    func send(_ event: Event<Value, Failure>) {
        if lifetime.isDisposed || !accept(event) { return }
        if wip.tryClaim() {
            deliver(event)
            let missed = wip.tryRelease()
            if missed != 0 { drainQueue(missed) }
        } else {
            pending.withLock { $0.append(event) }
            if wip.join() { drainQueue(1) }
        }
    }

    /// Accepts `event` without delivering it, and returns true if the caller claimed delivery
    /// and must call `drain()` (after releasing any lock of its own).
    ///
    /// Operators with several upstreams (combineLatest, zip, merge, flatten) call this while
    /// holding their own state lock, so that the order of events out is the order in which
    /// their state changed; then they call `drain()` outside that lock. Nothing is called out
    /// from here. If the gate is free, the caller becomes its owner and the event waits in
    /// `owned.handoff` (no queue, no lock); any event offered after it, by this caller or
    /// another, finds the gate owned and is queued behind it.
    @inlinable
    func offer(_ event: Event<Value, Failure>) -> Bool {
        if lifetime.isDisposed || !accept(event) { return false }
        if wip.tryClaim() {
            owned.handoff = event
            return true
        }
        pending.withLock { $0.append(event) }
        return wip.join()
    }

    /// Delivers the offered events until none is left, then frees the gate. Call only after
    /// `offer(_:)` returned true.
    @inlinable
    func drain() {
        // The caller owns the gate: either its offer claimed it (the event is in `handoff`), or
        // its offer was queued and found the counter at 0 (the event is in the queue).
        if let event = owned.handoff.take() {
            deliver(event)
            let missed = wip.tryRelease()
            if missed != 0 { drainQueue(missed) }
        } else {
            drainQueue(1)
        }
    }

    /// Delivers queued events until the queue is empty and nothing more was announced, then
    /// frees the gate. Owner only; `missed` is the count to pass to `_WorkInProgress.leave(_:)`.
    @usableFromInline
    func drainQueue(_ missed: Int) {
        var missed = missed
        repeat {
            while let event = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                deliver(event)
            }
            missed = wip.leave(missed)
        } while missed != 0
    }
}

/// The last stage of every subscription: calls the subscriber's closures, drops anything after
/// a terminal event or after disposal, and disposes the subscription when a terminal event
/// arrives (RAC's `didSubscribeWithDisposable:` contract).
@usableFromInline
package final class _TerminalSubscriber<Value, Failure: Error>: Sendable {
    @usableFromInline let next: (@Sendable (Value) -> Void)?
    @usableFromInline let error: (@Sendable (Failure) -> Void)?
    @usableFromInline let completed: (@Sendable () -> Void)?
    /// The subscription's lifetime.
    @usableFromInline package let lifetime: CompoundDisposable
    @usableFromInline let terminated = Atomic<Bool>(false)

    @inlinable
    package init(
        next: (@Sendable (Value) -> Void)?,
        error: (@Sendable (Failure) -> Void)?,
        completed: (@Sendable () -> Void)?,
        lifetime: CompoundDisposable
    ) {
        self.next = next
        self.error = error
        self.completed = completed
        self.lifetime = lifetime
    }

    /// Receives a value (the subscription's closure tests the event's case itself).
    ///
    /// Why the closure tests the case: the subscription's closure is stored with the generic
    /// type of a sink, which takes its event in memory. Specialised for a concrete value type,
    /// the closure's body takes the event in registers, and the optimizer puts a thunk in front
    /// of it that loads the event: for an `Event<Int, Never>` it loaded the one-byte tag with a
    /// four-byte load, right after the sender stored that byte (a load that cannot be served
    /// from the pending one-byte store: a store-forwarding stall, which profiles showed as the
    /// hottest instruction of a model observation). A closure that only tests the case and
    /// calls this (not inlined: inlined, the closure is no longer merged with the thunk) reads
    /// the tag with a one-byte load. (Model observations bypass this closure altogether: see
    /// `Signal._runDirect`.)
    @inlinable
    package func receiveNext(_ value: Value) {
        if terminated.load(ordering: .relaxed) || lifetime.isDisposed { return }
        next?(value)
    }

    /// Receives an event (see `receiveNext` for values).
    @inlinable
    package func receive(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value):
            if terminated.load(ordering: .relaxed) || lifetime.isDisposed { return }
            next?(value)
        case .error(let failure):
            guard !terminated.exchange(true, ordering: .acquiringAndReleasing), !lifetime.isDisposed else { return }
            error?(failure)
            lifetime.dispose()
        case .completed:
            guard !terminated.exchange(true, ordering: .acquiringAndReleasing), !lifetime.isDisposed else { return }
            completed?()
            lifetime.dispose()
        }
    }
}
