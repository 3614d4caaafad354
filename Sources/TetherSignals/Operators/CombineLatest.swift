extension Signal {
    /// Combines the latest values of two signals: once each has sent a value, sends a tuple of
    /// their latest values whenever either sends.
    ///
    /// Sends nothing until every source has sent a value. Completes when all sources have
    /// completed; an error from any source ends the result and disposes the others. A source
    /// that completes keeps its last value in the combination. Events from sources on different
    /// threads are delivered one at a time, in the order in which the sources' values arrived.
    ///
    /// ```swift
    /// Signal.combineLatest(username, password)
    ///     .map { user, pass in !user.isEmpty && pass.count >= 8 }   // is the form valid?
    /// ```
    @inlinable
    public static func combineLatest<B>(
        _ a: Signal, _ b: Signal<B, Failure>
    ) -> Signal<(Value, B), Failure> {
        Signal<(Value, B), Failure>(_unchecked: { sink, lifetime in
            let core = _CombineLatest<(Value?, B?), (Value, B), Failure>(
                latest: (nil, nil), sources: 2, sink: sink, lifetime: lifetime)
            core.run(a) { token in { core.receive($0, token, store: { _store(&$0.0, $1) }, output: _unwrapAll) } }
            core.run(b) { token in { core.receive($0, token, store: { _store(&$0.1, $1) }, output: _unwrapAll) } }
        })
    }

    /// Combines the latest values of three signals into tuples; see `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// Signal.combineLatest(red, green, blue)   // (r, g, b) whenever one of them changes
    /// ```
    @inlinable
    public static func combineLatest<B, C>(
        _ a: Signal, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>
    ) -> Signal<(Value, B, C), Failure> {
        Signal<(Value, B, C), Failure>(_unchecked: { sink, lifetime in
            let core = _CombineLatest<(Value?, B?, C?), (Value, B, C), Failure>(
                latest: (nil, nil, nil), sources: 3, sink: sink, lifetime: lifetime)
            core.run(a) { token in { core.receive($0, token, store: { _store(&$0.0, $1) }, output: _unwrapAll) } }
            core.run(b) { token in { core.receive($0, token, store: { _store(&$0.1, $1) }, output: _unwrapAll) } }
            core.run(c) { token in { core.receive($0, token, store: { _store(&$0.2, $1) }, output: _unwrapAll) } }
        })
    }

    /// Combines the latest values of four signals into tuples; see `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// Signal.combineLatest(top, left, bottom, right)   // insets
    /// ```
    @inlinable
    public static func combineLatest<B, C, D>(
        _ a: Signal, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>, _ d: Signal<D, Failure>
    ) -> Signal<(Value, B, C, D), Failure> {
        Signal<(Value, B, C, D), Failure>(_unchecked: { sink, lifetime in
            let core = _CombineLatest<(Value?, B?, C?, D?), (Value, B, C, D), Failure>(
                latest: (nil, nil, nil, nil), sources: 4, sink: sink, lifetime: lifetime)
            core.run(a) { token in { core.receive($0, token, store: { _store(&$0.0, $1) }, output: _unwrapAll) } }
            core.run(b) { token in { core.receive($0, token, store: { _store(&$0.1, $1) }, output: _unwrapAll) } }
            core.run(c) { token in { core.receive($0, token, store: { _store(&$0.2, $1) }, output: _unwrapAll) } }
            core.run(d) { token in { core.receive($0, token, store: { _store(&$0.3, $1) }, output: _unwrapAll) } }
        })
    }

    /// Combines the latest values of any number of signals into arrays (in the order of
    /// `signals`); see `combineLatest(_:_:)`. With no signals, the result completes at once
    /// without sending a value.
    ///
    /// ```swift
    /// Signal.combineLatest(downloads.map(\.progress))   // [Double], whenever one changes
    /// ```
    @inlinable
    public static func combineLatest(_ signals: [Signal]) -> Signal<[Value], Failure> {
        if signals.isEmpty { return .empty }
        return Signal<[Value], Failure>(_unchecked: { sink, lifetime in
            let core = _CombineLatest<ContiguousArray<Value?>, [Value], Failure>(
                latest: ContiguousArray(repeating: nil, count: signals.count),
                sources: signals.count, sink: sink, lifetime: lifetime)
            for (index, signal) in signals.enumerated() {
                core.run(signal) { token in {
                    core.receive($0, token, store: { _store(&$0[index], $1) }, output: { $0.map { $0! } })
                } }
            }
        })
    }

    /// Combines the latest values of two signals with `reduce`; see `combineLatest(_:_:)`.
    /// `reduce` runs outside any lock, one call at a time.
    ///
    /// ```swift
    /// Signal.combineLatest(price, quantity, reduce: { $0 * Double($1) })   // the total
    /// ```
    @inlinable
    public static func combineLatest<B, Result>(
        _ a: Signal, _ b: Signal<B, Failure>,
        reduce: @escaping @Sendable (Value, B) -> Result
    ) -> Signal<Result, Failure> {
        combineLatest(a, b).map { reduce($0.0, $0.1) }
    }

    /// Combines the latest values of three signals with `reduce`; see `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// Signal.combineLatest(a, b, c, reduce: { $0 + $1 + $2 })   // the sum, whenever one changes
    /// ```
    @inlinable
    public static func combineLatest<B, C, Result>(
        _ a: Signal, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>,
        reduce: @escaping @Sendable (Value, B, C) -> Result
    ) -> Signal<Result, Failure> {
        combineLatest(a, b, c).map { reduce($0.0, $0.1, $0.2) }
    }

    /// Combines the latest values of four signals with `reduce`; see `combineLatest(_:_:)`.
    ///
    /// ```swift
    /// Signal.combineLatest(top, left, bottom, right, reduce: Insets.init)
    /// ```
    @inlinable
    public static func combineLatest<B, C, D, Result>(
        _ a: Signal, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>, _ d: Signal<D, Failure>,
        reduce: @escaping @Sendable (Value, B, C, D) -> Result
    ) -> Signal<Result, Failure> {
        combineLatest(a, b, c, d).map { reduce($0.0, $0.1, $0.2, $0.3) }
    }

    /// Combines the latest values of any number of signals with `reduce`, which receives them
    /// in the order of `signals`; see `combineLatest(_:)`.
    ///
    /// ```swift
    /// Signal.combineLatest(checkboxes.map(\.isOn), reduce: { $0.allSatisfy { $0 } })
    /// ```
    @inlinable
    public static func combineLatest<Result>(
        _ signals: [Signal],
        reduce: @escaping @Sendable ([Value]) -> Result
    ) -> Signal<Result, Failure> {
        combineLatest(signals).map(reduce)
    }

    /// Combines the latest values of this signal and `other` into tuples; the same as
    /// `Signal.combineLatest(self, other)`.
    ///
    /// ```swift
    /// selection.combineLatest(with: items).map { index, items in items[index] }
    /// ```
    @inlinable
    public func combineLatest<Other>(with other: Signal<Other, Failure>) -> Signal<(Value, Other), Failure> {
        Signal.combineLatest(self, other)
    }
}

/// Stores `value` as a source's latest value; returns whether it is the source's first value.
@inlinable @inline(__always)
func _store<T>(_ slot: inout T?, _ value: T) -> Bool {
    let first = slot == nil
    slot = value
    return first
}

/// The combination of the latest values, once every source has one.
@inlinable @inline(__always)
func _unwrapAll<A, B>(_ latest: (A?, B?)) -> (A, B) { (latest.0!, latest.1!) }

@inlinable @inline(__always)
func _unwrapAll<A, B, C>(_ latest: (A?, B?, C?)) -> (A, B, C) { (latest.0!, latest.1!, latest.2!) }

@inlinable @inline(__always)
func _unwrapAll<A, B, C, D>(_ latest: (A?, B?, C?, D?)) -> (A, B, C, D) {
    (latest.0!, latest.1!, latest.2!, latest.3!)
}

/// The state of one combineLatest subscription: the latest value of each source (`Latest`,
/// a tuple of optionals or an array of optionals), how many sources have not sent a value
/// yet, and how many are still running.
///
/// Per update: one state lock, inside which the value is stored, the output built (a tuple: no
/// allocation) and offered to the gate; delivery happens after the lock is released.
@usableFromInline
final class _CombineLatest<Latest, Output, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var latest: Latest
        /// Sources that have not sent a value yet.
        @usableFromInline var missing: Int
        /// Sources that have not completed yet.
        @usableFromInline var active: Int
        @usableFromInline var terminated = false

        @inlinable init(latest: Latest, sources: Int) {
            self.latest = latest
            self.missing = sources
            self.active = sources
        }
    }

    @usableFromInline let out: _Gate<Output, Failure>
    @usableFromInline let sources: _ChildSubscriptions
    @usableFromInline let state: _Locked<State>

    @inlinable
    init(latest: Latest, sources count: Int, sink: @escaping Signal<Output, Failure>._Sink, lifetime: CompoundDisposable) {
        state = _Locked(State(latest: latest, sources: count))
        out = _Gate(sink: sink, lifetime: lifetime)
        sources = _ChildSubscriptions(in: lifetime)
    }

    /// Subscribes one source, with its own child lifetime, to the sink `makeSink` makes for
    /// the source's token.
    @inlinable
    func run<V>(
        _ source: Signal<V, Failure>,
        _ makeSink: (_ token: UInt64) -> Signal<V, Failure>._Sink
    ) {
        guard let (child, token) = sources.make() else { return }
        source._run(makeSink(token), child)
    }

    /// Handles one event of the source with `token`. `store` records a value in the state (and
    /// returns whether it is the source's first), `output` builds the combination; both run
    /// under the state lock and must not call out.
    @inlinable
    func receive<V>(
        _ event: Event<V, Failure>,
        _ token: UInt64,
        store: (inout Latest, V) -> Bool,
        output: ((Latest)) -> Output
    ) {
        switch event {
        case .next(let value):
            let claimed = state.withLock { state -> Bool in
                if state.terminated { return false }
                if store(&state.latest, value) { state.missing -= 1 }
                guard state.missing == 0 else { return false }
                return out.offer(.next(output(state.latest)))
            }
            if claimed { out.drain() }
        case .error(let error):
            let claimed = state.withLock { state -> Bool in
                if state.terminated { return false }
                state.terminated = true
                return out.offer(.error(error))
            }
            if claimed { out.drain() }
            sources.dispose()
        case .completed:
            sources.end(token)
            let claimed = state.withLock { state -> Bool in
                if state.terminated { return false }
                state.active -= 1
                guard state.active == 0 else { return false }
                state.terminated = true
                return out.offer(.completed)
            }
            if claimed { out.drain() }
        }
    }
}
