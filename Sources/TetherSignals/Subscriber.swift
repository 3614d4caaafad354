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
/// the thread already delivering, before it returns.
@usableFromInline
final class _Gate<Value, Failure: Error>: Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    @usableFromInline
    struct State {
        @usableFromInline var terminated = false
        @usableFromInline var delivering = false
        @usableFromInline var pending = _FIFO<Event<Value, Failure>>()
        @inlinable init() {}
    }

    @usableFromInline let sink: Sink
    @usableFromInline let lifetime: CompoundDisposable
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(sink: @escaping Sink, lifetime: CompoundDisposable) {
        self.sink = sink
        self.lifetime = lifetime
    }

    @usableFromInline var isTerminated: Bool { state.withLock { $0.terminated } }

    /// Sends one event: delivers it now, or queues it for the thread already delivering.
    @inlinable
    func send(_ event: Event<Value, Failure>) {
        if lifetime.isDisposed { return }
        let deliverNow = state.withLock { state -> Bool in
            if state.terminated { return false }
            if event.isTerminal { state.terminated = true }
            if state.delivering {
                state.pending.append(event)
                return false
            }
            state.delivering = true
            return true
        }
        guard deliverNow else { return }
        if !lifetime.isDisposed { sink(event) }
        drain()
    }

    /// Queues `event` without delivering it, and returns true if the caller claimed delivery
    /// and must call `drain()` (after releasing any lock of its own).
    ///
    /// Operators with several upstreams (combineLatest, zip, merge, flatten) call this while
    /// holding their own state lock, so that the order of events out is the order in which
    /// their state changed; then they call `drain()` outside that lock. The gate's lock is a
    /// leaf: nothing is called while it is held.
    @inlinable
    func offer(_ event: Event<Value, Failure>) -> Bool {
        if lifetime.isDisposed { return false }
        return state.withLock { state -> Bool in
            if state.terminated { return false }
            if event.isTerminal { state.terminated = true }
            state.pending.append(event)
            if state.delivering { return false }
            state.delivering = true
            return true
        }
    }

    /// Delivers queued events until none is left, then frees the gate. Call only after
    /// `offer(_:)` returned true (or from `send(_:)`).
    @inlinable
    func drain() {
        while true {
            let next = state.withLock { state -> Event<Value, Failure>? in
                if state.pending.isEmpty {
                    state.delivering = false
                    return nil
                }
                return state.pending.removeFirst()
            }
            guard let next else { return }
            if !lifetime.isDisposed { sink(next) }
        }
    }
}

/// The last stage of every subscription: calls the subscriber's closures, drops anything after
/// a terminal event or after disposal, and disposes the subscription when a terminal event
/// arrives (RAC's `didSubscribeWithDisposable:` contract).
@usableFromInline
final class _TerminalSubscriber<Value, Failure: Error>: Sendable {
    @usableFromInline let next: (@Sendable (Value) -> Void)?
    @usableFromInline let error: (@Sendable (Failure) -> Void)?
    @usableFromInline let completed: (@Sendable () -> Void)?
    @usableFromInline let lifetime: CompoundDisposable
    @usableFromInline let terminated = Atomic<Bool>(false)

    @inlinable
    init(
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

    @inlinable
    func receive(_ event: Event<Value, Failure>) {
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
