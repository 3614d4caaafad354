/// How `flatten(_:)` and `flatMap(_:_:)` combine the inner signals they subscribe to.
///
/// ```swift
/// searches.flatMap(.latest) { query in api.search(query) }   // only the newest search counts
/// uploads.flatMap(.concat) { file in api.upload(file) }     // one upload at a time, in order
/// clicks.flatMap(.merge) { _ in api.ping() }                // every ping, as they arrive
/// ```
public enum FlattenStrategy: Sendable, Hashable {
    /// Subscribes to every inner signal at once and forwards all their values as they arrive
    /// (RAC's `flatten`, Rx's `flatMap`).
    case merge
    /// Subscribes to one inner signal at a time, in the order they arrive; the next one is
    /// subscribed only after the previous one completed (RAC's `concat`, Rx's `concatMap`).
    case concat
    /// Forwards only the newest inner signal: a new inner signal disposes the previous one
    /// (RAC's `switchToLatest`, Rx's `flatMapLatest`).
    case latest
}

extension Signal {
    /// Flattens a signal of signals into one signal of their values, combining the inner
    /// signals as `strategy` says.
    ///
    /// The result completes when this signal and every inner signal it subscribed to have
    /// completed (with `.latest`, only the current inner matters). An error from this signal or
    /// from any inner signal ends everything at once: every subscription is disposed. Each inner
    /// subscription is released as soon as its inner signal ends (or is replaced), so a
    /// long-lived flatten keeps only the inner subscriptions that are still running.
    ///
    /// ```swift
    /// let pages: Signal<Signal<Page, APIError>, APIError> = pageURLs.map { api.fetch($0) }
    /// pages.flatten(.concat)   // pages in order, one request at a time
    /// ```
    @inlinable
    public func flatten<Inner>(_ strategy: FlattenStrategy) -> Signal<Inner, Failure>
    where Value == Signal<Inner, Failure> {
        let upstream = _run
        switch strategy {
        case .merge:
            return Signal<Inner, Failure>(_unchecked: { sink, lifetime in
                let merge = _FlattenMerge<Inner, Failure>(sink: sink, lifetime: lifetime)
                upstream({ event in
                    switch event {
                    case .next(let inner): merge.subscribe(inner)
                    case .error(let error): merge.fail(.error(error))
                    case .completed: merge.end(nil)
                    }
                }, lifetime)
            })
        case .concat:
            return Signal<Inner, Failure>(_unchecked: { sink, lifetime in
                let concat = _FlattenConcat<Inner, Failure>(sink: sink, lifetime: lifetime)
                upstream({ event in
                    switch event {
                    case .next(let inner): concat.enqueue(inner)
                    case .error(let error): concat.fail(.error(error))
                    case .completed: concat.outerCompleted()
                    }
                }, lifetime)
            })
        case .latest:
            return Signal<Inner, Failure>(_unchecked: { sink, lifetime in
                let latest = _FlattenLatest<Inner, Failure>(sink: sink, lifetime: lifetime)
                upstream({ event in
                    switch event {
                    case .next(let inner): latest.subscribe(inner)
                    case .error(let error): latest.fail(.error(error), from: nil)
                    case .completed: latest.outerCompleted()
                    }
                }, lifetime)
            })
        }
    }

    /// Maps each value to a signal with `transform`, and flattens those signals into one, as
    /// `strategy` says (`.merge` by default). Equivalent to `map(transform).flatten(strategy)`.
    ///
    /// Completion and errors are as for `flatten(_:)`: the result completes when this signal
    /// and all inner signals completed; an error from any of them ends everything.
    ///
    /// ```swift
    /// let results = query.flatMap(.latest) { text in api.search(text) }
    /// let all = userIDs.flatMap { id in api.user(id) }   // .merge
    /// ```
    @inlinable
    public func flatMap<NewValue>(
        _ strategy: FlattenStrategy = .merge,
        _ transform: @escaping @Sendable (Value) -> Signal<NewValue, Failure>
    ) -> Signal<NewValue, Failure> {
        map(transform).flatten(strategy)
    }
}

// MARK: - Merge

/// The state of one `flatten(.merge)` subscription.
///
/// Per inner value the cost is the output gate alone: no state lock, no allocation. Values need
/// no state: the gate serialises them, and drops them once the output has ended. The state
/// lock is taken only when an upstream starts or ends (to count the running upstreams).
@usableFromInline
final class _FlattenMerge<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        /// Upstreams still running: the outer signal (until it completes) and each inner.
        @usableFromInline var active = 1
        @usableFromInline var terminated = false
        @inlinable init() {}
    }

    @usableFromInline let out: _Gate<Value, Failure>
    @usableFromInline let inners: _ChildSubscriptions
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        out = _Gate(sink: sink, lifetime: lifetime)
        inners = _ChildSubscriptions(in: lifetime)
    }

    /// Subscribes to one more inner signal.
    @inlinable
    func subscribe(_ inner: Signal<Value, Failure>) {
        let started = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.active += 1
            return true
        }
        guard started, let (child, token) = inners.make() else { return }
        inner._run({ [self] event in
            switch event {
            case .next: out.send(event)
            case .error: fail(event)
            case .completed: end(token)
            }
        }, child)
    }

    /// One upstream completed: the inner with `token`, or the outer signal (nil).
    @inlinable
    func end(_ token: UInt64?) {
        if let token { inners.end(token) }
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.active -= 1
            guard state.active == 0 else { return false }
            state.terminated = true
            return out.offer(.completed)
        }
        if claimed { out.drain() }
    }

    @inlinable
    func fail(_ event: Event<Value, Failure>) {
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.terminated = true
            return out.offer(event)
        }
        if claimed { out.drain() }
        inners.dispose()
    }
}

// MARK: - Concat

/// The state of one `flatten(.concat)` subscription: a queue of inner signals waiting their
/// turn, and at most one running.
///
/// Starting the next inner is trampolined (`pump()`): an inner that completes synchronously
/// while it is being subscribed only marks itself done, and the loop already running starts
/// the next one — so concatenating many synchronous signals uses constant stack.
@usableFromInline
final class _FlattenConcat<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var waiting = _FIFO<Signal<Value, Failure>>()
        /// An inner signal is subscribed and has not completed.
        @usableFromInline var running = false
        /// A thread is inside `pump()`'s loop, starting inners.
        @usableFromInline var pumping = false
        @usableFromInline var outerDone = false
        @usableFromInline var terminated = false
        @inlinable init() {}

        /// Ends the output if nothing is left to run; returns whether the caller claimed delivery.
        @inlinable
        mutating func completeIfDone(_ out: _Gate<Value, Failure>) -> Bool {
            guard outerDone, !running, waiting.isEmpty, !terminated else { return false }
            terminated = true
            return out.offer(.completed)
        }
    }

    @usableFromInline let out: _Gate<Value, Failure>
    @usableFromInline let inners: _ChildSubscriptions
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        out = _Gate(sink: sink, lifetime: lifetime)
        inners = _ChildSubscriptions(in: lifetime)
    }

    @inlinable
    func enqueue(_ inner: Signal<Value, Failure>) {
        let accepted = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.waiting.append(inner)
            return true
        }
        if accepted { pump() }
    }

    @inlinable
    func outerCompleted() {
        state.withLock { $0.outerDone = true }
        pump()
    }

    /// Starts waiting inners one after another while none is running; ends the output when
    /// everything is done.
    @inlinable
    func pump() {
        var claimed = false
        var next = state.withLock { state -> Signal<Value, Failure>? in
            guard !state.pumping, !state.running, !state.terminated else { return nil }
            if let inner = state.waiting.popFirst() {
                state.pumping = true
                state.running = true
                return inner
            }
            claimed = state.completeIfDone(out)
            return nil
        }
        while let inner = next {
            start(inner)
            next = state.withLock { state -> Signal<Value, Failure>? in
                if !state.running, !state.terminated, let inner = state.waiting.popFirst() {
                    state.running = true
                    return inner
                }
                state.pumping = false
                claimed = state.completeIfDone(out)
                return nil
            }
        }
        if claimed { out.drain() }
    }

    @inlinable
    func start(_ inner: Signal<Value, Failure>) {
        guard let (child, token) = inners.make() else { return }
        inner._run({ [self] event in
            switch event {
            case .next: out.send(event)
            case .error: fail(event)
            case .completed:
                inners.end(token)
                state.withLock { $0.running = false }
                pump()
            }
        }, child)
    }

    @inlinable
    func fail(_ event: Event<Value, Failure>) {
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.terminated = true
            state.waiting = _FIFO()
            return out.offer(event)
        }
        if claimed { out.drain() }
        inners.dispose()
    }
}

// MARK: - Latest

/// The state of one `flatten(.latest)` subscription: the token of the current inner. Events of
/// an inner that has been replaced are dropped (checked under the state lock, so nothing of a
/// replaced inner is sent after the switch).
@usableFromInline
final class _FlattenLatest<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        /// The token of the current inner subscription, nil when none is running.
        @usableFromInline var current: UInt64?
        @usableFromInline var outerDone = false
        @usableFromInline var terminated = false
        @inlinable init() {}
    }

    @usableFromInline let out: _Gate<Value, Failure>
    @usableFromInline let inners: _ChildSubscriptions
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        out = _Gate(sink: sink, lifetime: lifetime)
        inners = _ChildSubscriptions(in: lifetime)
    }

    @inlinable
    func subscribe(_ inner: Signal<Value, Failure>) {
        guard let (child, token) = inners.make() else { return }
        var started = false
        let previous = state.withLock { state -> UInt64? in
            if state.terminated { return nil }
            started = true
            defer { state.current = token }
            return state.current
        }
        if let previous { inners.end(previous) }
        guard started else {
            inners.end(token)
            return
        }
        inner._run({ [self] event in
            switch event {
            case .next:
                let claimed = state.withLock { state -> Bool in
                    state.current == token ? out.offer(event) : false
                }
                if claimed { out.drain() }
            case .error:
                fail(event, from: token)
            case .completed:
                inners.end(token)
                let claimed = state.withLock { state -> Bool in
                    guard state.current == token else { return false }
                    state.current = nil
                    guard state.outerDone, !state.terminated else { return false }
                    state.terminated = true
                    return out.offer(.completed)
                }
                if claimed { out.drain() }
            }
        }, child)
    }

    @inlinable
    func outerCompleted() {
        let claimed = state.withLock { state -> Bool in
            state.outerDone = true
            guard state.current == nil, !state.terminated else { return false }
            state.terminated = true
            return out.offer(.completed)
        }
        if claimed { out.drain() }
    }

    /// Fails the output with `event`, from the inner with `token` (ignored if it was
    /// replaced) or from the outer signal (nil).
    @inlinable
    func fail(_ event: Event<Value, Failure>, from token: UInt64?) {
        var accepted = false
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            if let token, state.current != token { return false }
            state.terminated = true
            accepted = true
            return out.offer(event)
        }
        if claimed { out.drain() }
        if accepted { inners.dispose() }
    }
}
