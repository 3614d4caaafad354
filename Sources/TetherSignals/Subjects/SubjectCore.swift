import Synchronization

/// The broadcaster behind `Subject`, `ReplaySubject` and `BehaviorSubject`.
///
/// Every change to the subscriber list and every event goes through one gate: whoever finds it
/// free delivers, and whoever finds it busy (another thread, or a subscriber sending re-entrantly
/// from a callback) queues its work for the thread already delivering. So each subscriber sees
/// events one at a time, in one order, and a subscriber that sends into the subject it observes
/// neither deadlocks nor recurses. The lock is held only to read or swap state, never while a
/// subscriber runs.
@usableFromInline
final class _SubjectCore<Value, Failure: Error>: Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void

    @usableFromInline
    enum Pending {
        case event(Event<Value, Failure>)
        case attach(token: UInt64, sink: Sink)
    }

    @usableFromInline
    struct State {
        @usableFromInline var subscribers = _Bag<Sink>()
        /// A terminal event was accepted: later sends are dropped.
        @usableFromInline var closed = false
        /// The terminal event, once delivered (replayed to late subscribers).
        @usableFromInline var terminal: Event<Value, Failure>?
        /// The values delivered so far, up to the replay capacity.
        @usableFromInline var buffer: _RingBuffer<Value>
        @usableFromInline var delivering = false
        @usableFromInline var pending = _FIFO<Pending>()
        /// Removals requested while delivering, applied when delivery ends (so that disposing
        /// during delivery never copies the subscriber list).
        @usableFromInline var deferredRemovals: [UInt64] = []

        @inlinable init(capacity: Int) {
            buffer = _RingBuffer(capacity: capacity)
        }

        /// Records an event as delivered: it joins the replay buffer or becomes the terminal.
        @inlinable
        mutating func apply(_ event: Event<Value, Failure>) {
            switch event {
            case .next(let value): buffer.append(value)
            case .error, .completed: terminal = event
            }
        }
    }

    @usableFromInline let state: _Locked<State>

    @inlinable
    init(replay capacity: Int) {
        state = _Locked(State(capacity: capacity))
    }

    // MARK: Sending

    @inlinable
    func send(_ event: Event<Value, Failure>) {
        let snapshot = state.withLock { state -> ContiguousArray<_Bag<Sink>.Entry>? in
            if state.closed { return nil }
            if event.isTerminal { state.closed = true }
            if state.delivering {
                state.pending.append(.event(event))
                return nil
            }
            state.delivering = true
            state.apply(event)
            return state.subscribers.entries
        }
        guard let snapshot else { return }
        deliver(event, to: snapshot)
        finishDelivery()
    }

    @inlinable
    func deliver(_ event: Event<Value, Failure>, to snapshot: ContiguousArray<_Bag<Sink>.Entry>) {
        for entry in snapshot {
            entry.element?(event)
        }
    }

    /// Delivers queued work until the queue is empty, then frees the gate.
    @usableFromInline
    enum Work {
        case event(Event<Value, Failure>, ContiguousArray<_Bag<Sink>.Entry>)
        case replay(Sink, [Value], Event<Value, Failure>?)
    }

    @usableFromInline
    enum Start {
        case attached
        case queued
        case replay([Value], Event<Value, Failure>?)
    }

    /// Ends a delivery: frees the gate, unless work was queued meanwhile.
    @inlinable
    func finishDelivery() {
        let idle = state.withLock { state -> Bool in
            guard state.pending.isEmpty, state.deferredRemovals.isEmpty, state.terminal == nil else { return false }
            state.delivering = false
            return true
        }
        if !idle { drain() }
    }

    @usableFromInline
    func drain() {
        while true {
            let work = state.withLock { state -> Work? in
                if state.terminal != nil, !state.subscribers.isEmpty {
                    // The terminal event was delivered: release every subscriber.
                    _ = state.subscribers.removeAll()
                }
                for token in state.deferredRemovals { state.subscribers.remove(token: token) }
                state.deferredRemovals.removeAll()
                guard !state.pending.isEmpty else {
                    state.delivering = false
                    return nil
                }
                switch state.pending.removeFirst() {
                case .event(let event):
                    state.apply(event)
                    return .event(event, state.subscribers.entries)
                case .attach(let token, let sink):
                    if state.terminal == nil {
                        state.subscribers.insert(sink, token: token)
                    }
                    return .replay(sink, state.buffer.elements, state.terminal)
                }
            }
            switch work {
            case nil: return
            case .event(let event, let snapshot)?: deliver(event, to: snapshot)
            case .replay(let sink, let values, let terminal)?:
                for value in values { sink(Event.next(value)) }
                if let terminal { sink(terminal) }
            }
        }
    }

    // MARK: Subscribing

    @usableFromInline
    func attach(_ sink: @escaping Sink, lifetime: CompoundDisposable) {
        var token: UInt64 = 0
        let start = state.withLock { state -> Start in
            if state.delivering {
                token = state.subscribers.reserveToken()
                state.pending.append(.attach(token: token, sink: sink))
                return .queued
            }
            if state.buffer.isEmpty, state.terminal == nil {
                // The common case: nothing to replay.
                token = state.subscribers.insert(sink)
                return .attached
            }
            state.delivering = true
            if state.terminal == nil {
                token = state.subscribers.insert(sink)
            }
            return .replay(state.buffer.elements, state.terminal)
        }
        if case .replay(let values, let terminal) = start {
            for value in values {
                if lifetime.isDisposed { break }
                sink(.next(value))
            }
            if let terminal { sink(terminal) }
            drain()
            if terminal != nil { return }
        }
        lifetime.add(_SubjectRemoval(core: self, token: token))
    }

    @usableFromInline
    func detach(token: UInt64) {
        let removed = state.withLock { state -> Sink? in
            if state.delivering {
                state.deferredRemovals.append(token)
                if let index = state.pending.firstIndex(where: {
                    if case .attach(let t, _) = $0 { return t == token } else { return false }
                }) {
                    state.pending.remove(at: index)
                }
                return nil
            }
            return state.subscribers.remove(token: token)
        }
        // Release the subscriber's closure outside the lock: its deinit may run user code.
        withExtendedLifetime(removed) {}
    }

    @inlinable
    var currentValues: [Value] { state.withLock { $0.buffer.elements } }

    @inlinable
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    @inlinable
    var signal: Signal<Value, Failure> {
        Signal(_unchecked: { [self] sink, lifetime in attach(sink, lifetime: lifetime) })
    }
}

/// Removes one subscriber from a subject when its subscription is disposed. Holds the subject
/// weakly: a subscription must not keep a subject alive.
@usableFromInline
final class _SubjectRemoval<Value, Failure: Error>: Disposable {
    @usableFromInline weak let core: _SubjectCore<Value, Failure>?
    @usableFromInline let token: UInt64
    @usableFromInline let disposed = Atomic<Bool>(false)

    @inlinable
    init(core: _SubjectCore<Value, Failure>, token: UInt64) {
        self.core = core
        self.token = token
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
