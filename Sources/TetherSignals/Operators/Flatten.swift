/// How `flatten(_:)` and `flatMap(_:_:)` combine the inner signals they subscribe to.
///
/// ```swift
/// searches.flatMap(.latest) { query in api.search(query) }          // the newest search only
/// uploads.flatMap(.concat) { file in api.upload(file) }            // one at a time, in order
/// clicks.flatMap(.merge) { _ in api.ping() }                       // every ping, as they come
/// images.flatMap(.concurrent(limit: 4)) { url in api.fetch(url) }  // at most 4 at once
/// mirrors.flatMap(.race) { mirror in mirror.fetch(file) }          // the first mirror to answer
/// ```
///
/// For every strategy, an error from the outer signal or from an inner signal whose events are
/// forwarded ends the result at once and disposes every subscription.
public enum FlattenStrategy: Sendable, Hashable {
    /// Subscribes to every inner signal at once and forwards all their values as they arrive
    /// (RAC's `flatten`, Rx's `flatMap`). Completes when the outer signal and every inner
    /// signal completed.
    case merge
    /// Subscribes to one inner signal at a time, in the order they arrive; the next one is
    /// subscribed only after the previous one completed (RAC's `concat`, Rx's `concatMap`).
    /// Behaves as `.concurrent(limit: 1)`. Completes when the outer signal and every inner
    /// signal completed.
    case concat
    /// Forwards only the newest inner signal: a new inner signal disposes the previous one
    /// (RAC's `switchToLatest`, Rx's `flatMapLatest`). Completes when the outer signal and the
    /// current inner signal (if any) completed.
    case latest
    /// Subscribes to at most `limit` inner signals at once, forwarding the values of all of
    /// them as they arrive (ReactiveSwift's `.concurrent(limit:)`, Rx's
    /// `flatMap(maxConcurrent:)`).
    ///
    /// An inner signal that arrives while `limit` are running waits in a queue; the waiting
    /// signals start in the order they arrived, each one as soon as a running one completes
    /// (the completed one's subscription is disposed first, so never more than `limit` are
    /// subscribed). Completes when the outer signal completed, no inner signal is waiting and
    /// every running one completed. An error from the outer signal or from a running inner
    /// signal ends everything at once: the running inners are disposed and the waiting ones are
    /// never subscribed. `limit` must be at least 1; `.concurrent(limit: 1)` behaves as
    /// `.concat`.
    ///
    /// ```swift
    /// let thumbnails = urls.flatMap(.concurrent(limit: 4)) { url in api.thumbnail(url) }
    /// ```
    case concurrent(limit: Int)
    /// Forwards only the events of the first inner signal to send an event — a value, an error
    /// or its completion (ReactiveSwift's `.race`, Rx's `amb` over a signal of signals).
    ///
    /// Every inner signal is subscribed as soon as it arrives, until one of them sends its
    /// first event: that one wins, every other inner subscription is disposed at once, and inner
    /// signals that arrive later are ignored (never subscribed). An inner signal that completes
    /// (or fails) before anyone sent a value wins too: the result then forwards that completion
    /// (once the outer signal completed too) or that error. Completes when the outer signal and
    /// the winner completed — or at once when the outer signal completes before any inner signal
    /// arrived. An error from the outer signal, or from the winner, ends everything at once.
    ///
    /// ```swift
    /// let fastest = Signal(sequence: mirrors).flatMap(.race) { mirror in mirror.fetch(file) }
    /// ```
    case race
}

extension Signal {
    /// Flattens a signal of signals into one signal of their values, combining the inner
    /// signals as `strategy` says.
    ///
    /// The result completes when this signal and every inner signal it subscribed to have
    /// completed (with `.latest`, only the current inner matters; with `.race`, only the
    /// winner). An error from this signal or from an inner signal whose events are forwarded
    /// ends everything at once: every subscription is disposed. Each inner subscription is
    /// released as soon as its inner signal ends (or is replaced, or loses the race), so a
    /// long-lived flatten keeps only the inner subscriptions that are still running. See
    /// `FlattenStrategy` for each strategy's rules.
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
            return _flattenConcurrent(limit: 1)
        case .concurrent(let limit):
            precondition(limit >= 1, "flatten(.concurrent(limit:)) needs a limit of at least 1")
            return _flattenConcurrent(limit: limit)
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
        case .race:
            return Signal<Inner, Failure>(_unchecked: { sink, lifetime in
                let race = _FlattenRace<Inner, Failure>(sink: sink, lifetime: lifetime)
                upstream({ event in
                    switch event {
                    case .next(let inner): race.subscribe(inner)
                    case .error(let error): race.fail(.error(error))
                    case .completed: race.outerCompleted()
                    }
                }, lifetime)
            })
        }
    }

    /// `flatten(.concat)` and `flatten(.concurrent(limit:))`: at most `limit` inners at once.
    @inlinable
    func _flattenConcurrent<Inner>(limit: Int) -> Signal<Inner, Failure>
    where Value == Signal<Inner, Failure> {
        let upstream = _run
        return Signal<Inner, Failure>(_unchecked: { sink, lifetime in
            let concurrent = _FlattenConcurrent<Inner, Failure>(limit: limit, sink: sink, lifetime: lifetime)
            upstream({ event in
                switch event {
                case .next(let inner): concurrent.enqueue(inner)
                case .error(let error): concurrent.fail(.error(error))
                case .completed: concurrent.outerCompleted()
                }
            }, lifetime)
        })
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

// MARK: - Concurrent (and concat)

/// The state of one `flatten(.concurrent(limit:))` or `flatten(.concat)` (limit 1)
/// subscription: a queue of inner signals waiting their turn, and at most `limit` running.
///
/// Starting inners is trampolined (`pump()`): one thread at a time starts the waiting inners
/// while there is room; an inner that completes meanwhile (synchronously while it is being
/// subscribed, or on another thread) only frees its slot, and the loop already running starts
/// the next one — so concatenating many synchronous signals uses constant stack. The slot count
/// is checked and taken under the state lock, so no more than `limit` inners are ever running,
/// and a freed slot is never missed: the pumping thread looks again before it stops pumping.
///
/// `.merge` keeps its own implementation (`_FlattenMerge`), which takes no lock per inner
/// value and has no queue: that is what W4 (docs/PERFORMANCE.md) measures.
@usableFromInline
final class _FlattenConcurrent<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var waiting = _FIFO<Signal<Value, Failure>>()
        /// Inner signals subscribed that have not completed (at most `limit`).
        @usableFromInline var running = 0
        /// A thread is inside `pump()`'s loop, starting inners.
        @usableFromInline var pumping = false
        @usableFromInline var outerDone = false
        @usableFromInline var terminated = false
        @inlinable init() {}

        /// Ends the output if nothing is left to run; returns whether the caller claimed delivery.
        @inlinable
        mutating func completeIfDone(_ out: _Gate<Value, Failure>) -> Bool {
            guard outerDone, running == 0, waiting.isEmpty, !terminated else { return false }
            terminated = true
            return out.offer(.completed)
        }
    }

    @usableFromInline let limit: Int
    @usableFromInline let out: _Gate<Value, Failure>
    @usableFromInline let inners: _ChildSubscriptions
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(limit: Int, sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        self.limit = limit
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

    /// Starts waiting inners one after another while fewer than `limit` are running; ends the
    /// output when everything is done.
    @inlinable
    func pump() {
        var claimed = false
        var next = state.withLock { state -> Signal<Value, Failure>? in
            guard !state.pumping, !state.terminated else { return nil }
            if state.running < limit, let inner = state.waiting.popFirst() {
                state.pumping = true
                state.running += 1
                return inner
            }
            claimed = state.completeIfDone(out)
            return nil
        }
        while let inner = next {
            start(inner)
            next = state.withLock { state -> Signal<Value, Failure>? in
                if state.running < limit, !state.terminated, let inner = state.waiting.popFirst() {
                    state.running += 1
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
                // Dispose the finished inner before freeing its slot: the next one starts only
                // after it, so never more than `limit` inner subscriptions exist.
                inners.end(token)
                state.withLock { $0.running -= 1 }
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

// MARK: - Race

/// The state of one `flatten(.race)` subscription: the inners subscribed while no winner is
/// known, then the winner. The first inner whose event reaches the state lock wins; events of
/// any other inner are dropped under that lock, so nothing of a loser is sent, even if it keeps
/// sending after it was disposed.
@usableFromInline
final class _FlattenRace<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        /// The tokens of the inners racing (subscribed while there is no winner yet).
        @usableFromInline var candidates: [UInt64] = []
        /// The token of the inner that sent the first event.
        @usableFromInline var winner: UInt64?
        /// No inner was subscribed yet, or the winner completed: the outer's completion ends
        /// the output (ReactiveSwift's `innerSignalComplete`).
        @usableFromInline var innerDone = true
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

    /// Subscribes to one more candidate, unless the race is decided (or the output ended).
    @inlinable
    func subscribe(_ inner: Signal<Value, Failure>) {
        guard let (child, token) = inners.make() else { return }
        let racing = state.withLock { state -> Bool in
            if state.terminated || state.winner != nil { return false }
            state.candidates.append(token)
            state.innerDone = false
            return true
        }
        guard racing else {
            inners.end(token)
            return
        }
        inner._run({ [self] event in receive(event, from: token) }, child)
    }

    /// An event of the inner with `token`: decides the race if nobody won yet; forwarded only
    /// if that inner is the winner.
    @inlinable
    func receive(_ event: Event<Value, Failure>, from token: UInt64) {
        var losers: [UInt64] = []
        var forwarded = false
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            if state.winner == nil {
                state.winner = token
                losers = state.candidates.filter { $0 != token }
                state.candidates = []
            } else if state.winner != token {
                return false
            }
            forwarded = true
            switch event {
            case .next:
                return out.offer(event)
            case .error:
                state.terminated = true
                return out.offer(event)
            case .completed:
                state.innerDone = true
                guard state.outerDone else { return false }
                state.terminated = true
                return out.offer(event)
            }
        }
        // The losers are disposed before the winner's first event is delivered.
        for loser in losers { inners.end(loser) }
        if claimed { out.drain() }
        guard forwarded else { return }
        switch event {
        case .next: break
        case .error: inners.dispose()
        case .completed: inners.end(token)
        }
    }

    @inlinable
    func outerCompleted() {
        let claimed = state.withLock { state -> Bool in
            state.outerDone = true
            guard state.innerDone, !state.terminated else { return false }
            state.terminated = true
            return out.offer(.completed)
        }
        if claimed { out.drain() }
    }

    /// The outer signal failed: ends everything.
    @inlinable
    func fail(_ event: Event<Value, Failure>) {
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.terminated = true
            state.candidates = []
            return out.offer(event)
        }
        if claimed { out.drain() }
        inners.dispose()
    }
}
