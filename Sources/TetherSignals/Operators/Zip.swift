extension Signal {
    /// Pairs the values of two signals by position: the first value of each, then the second
    /// of each, and so on (RAC's `zip`). Values that have no partner yet are buffered.
    ///
    /// Completes as soon as one source has completed and every value it sent has been paired
    /// (no further pair can be formed); the other source is then disposed. An error from any
    /// source ends the result and disposes the others. Events from sources on different
    /// threads are delivered one at a time.
    ///
    /// ```swift
    /// Signal.zip(requests, responses)   // (request, response), in order
    /// ```
    @inlinable
    public static func zip<B>(_ a: Signal, _ b: Signal<B, Failure>) -> Signal<(Value, B), Failure> {
        typealias Buffers = _ZipBuffers2<Value, B>
        return Signal<(Value, B), Failure>(_unchecked: { sink, lifetime in
            let core = _Zip<Buffers, (Value, B), Failure>(buffers: Buffers(), sources: 2, sink: sink, lifetime: lifetime)
            core.run(a) { token in { core.receive($0, 0, token, push: { $0.q0.append($1) }) } }
            core.run(b) { token in { core.receive($0, 1, token, push: { $0.q1.append($1) }) } }
        })
    }

    /// Pairs the values of three signals by position into tuples; see `zip(_:_:)`.
    ///
    /// ```swift
    /// Signal.zip(names, ages, emails)   // (name, age, email)
    /// ```
    @inlinable
    public static func zip<B, C>(
        _ a: Signal, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>
    ) -> Signal<(Value, B, C), Failure> {
        typealias Buffers = _ZipBuffers3<Value, B, C>
        return Signal<(Value, B, C), Failure>(_unchecked: { sink, lifetime in
            let core = _Zip<Buffers, (Value, B, C), Failure>(
                buffers: Buffers(), sources: 3, sink: sink, lifetime: lifetime)
            core.run(a) { token in { core.receive($0, 0, token, push: { $0.q0.append($1) }) } }
            core.run(b) { token in { core.receive($0, 1, token, push: { $0.q1.append($1) }) } }
            core.run(c) { token in { core.receive($0, 2, token, push: { $0.q2.append($1) }) } }
        })
    }

    /// Pairs the values of four signals by position into tuples; see `zip(_:_:)`.
    ///
    /// ```swift
    /// Signal.zip(a, b, c, d)   // (a1, b1, c1, d1), (a2, b2, c2, d2), ...
    /// ```
    @inlinable
    public static func zip<B, C, D>(
        _ a: Signal, _ b: Signal<B, Failure>, _ c: Signal<C, Failure>, _ d: Signal<D, Failure>
    ) -> Signal<(Value, B, C, D), Failure> {
        typealias Buffers = _ZipBuffers4<Value, B, C, D>
        return Signal<(Value, B, C, D), Failure>(_unchecked: { sink, lifetime in
            let core = _Zip<Buffers, (Value, B, C, D), Failure>(
                buffers: Buffers(), sources: 4, sink: sink, lifetime: lifetime)
            core.run(a) { token in { core.receive($0, 0, token, push: { $0.q0.append($1) }) } }
            core.run(b) { token in { core.receive($0, 1, token, push: { $0.q1.append($1) }) } }
            core.run(c) { token in { core.receive($0, 2, token, push: { $0.q2.append($1) }) } }
            core.run(d) { token in { core.receive($0, 3, token, push: { $0.q3.append($1) }) } }
        })
    }

    /// Pairs the values of any number of signals by position into arrays (in the order of
    /// `signals`); see `zip(_:_:)`. With no signals, the result completes at once.
    ///
    /// ```swift
    /// Signal.zip(pages.map { api.fetch($0) })   // [Page] once every fetch sent its page
    /// ```
    @inlinable
    public static func zip(_ signals: [Signal]) -> Signal<[Value], Failure> {
        if signals.isEmpty { return .empty }
        return Signal<[Value], Failure>(_unchecked: { sink, lifetime in
            let core = _Zip<_ZipBuffersArray<Value>, [Value], Failure>(
                buffers: _ZipBuffersArray(count: signals.count),
                sources: signals.count, sink: sink, lifetime: lifetime)
            for (index, signal) in signals.enumerated() {
                core.run(signal) { token in { core.receive($0, index, token, push: { $0.queues[index].append($1) }) } }
            }
        })
    }

    /// Pairs this signal's values with `other`'s by position; the same as
    /// `Signal.zip(self, other)`.
    ///
    /// ```swift
    /// questions.zip(with: answers)   // (question, answer)
    /// ```
    @inlinable
    public func zip<Other>(with other: Signal<Other, Failure>) -> Signal<(Value, Other), Failure> {
        Signal.zip(self, other)
    }
}

/// What zip needs of its buffers (a tuple of queues, or an array of queues).
@usableFromInline
protocol _ZipBuffers {
    associatedtype Output
    /// Removes the first value of every buffer, or returns nil (removing nothing) if one is empty.
    mutating func popFirst() -> Output?
    /// Whether the buffer of source `index` is empty.
    func isEmpty(_ index: Int) -> Bool
}

extension _ZipBuffers {
    /// Whether a completed source has an empty buffer: no further combination can be formed.
    @inlinable
    func exhausted(_ done: ContiguousArray<Bool>) -> Bool {
        for index in done.indices where done[index] && isEmpty(index) { return true }
        return false
    }
}

/// The state of one zip subscription: a buffer per source, which sources completed, and
/// whether the output ended. Per value: one state lock (push, maybe pop a combination and
/// offer it); delivery after the lock is released.
@usableFromInline
final class _Zip<Buffers: _ZipBuffers, Output, Failure: Error>: Sendable where Buffers.Output == Output {
    @usableFromInline
    struct State {
        @usableFromInline var buffers: Buffers
        @usableFromInline var done: ContiguousArray<Bool>
        @usableFromInline var anyDone = false
        @usableFromInline var terminated = false

        @inlinable init(buffers: Buffers, sources: Int) {
            self.buffers = buffers
            self.done = ContiguousArray(repeating: false, count: sources)
        }
    }

    @usableFromInline let out: _Gate<Output, Failure>
    @usableFromInline let sources: _ChildSubscriptions
    @usableFromInline let state: _Locked<State>

    @inlinable
    init(buffers: Buffers, sources count: Int, sink: @escaping Signal<Output, Failure>._Sink, lifetime: CompoundDisposable) {
        state = _Locked(State(buffers: buffers, sources: count))
        out = _Gate(sink: sink, lifetime: lifetime)
        sources = _ChildSubscriptions(in: lifetime)
    }

    /// Subscribes one source, with its own child lifetime, to the sink `makeSink` makes for
    /// the source's token.
    @inlinable
    func run<V>(_ source: Signal<V, Failure>, _ makeSink: (_ token: UInt64) -> Signal<V, Failure>._Sink) {
        guard let (child, token) = sources.make() else { return }
        source._run(makeSink(token), child)
    }

    /// Handles one event of source `index` (with `token`); `push` appends a value to that
    /// source's buffer, under the state lock.
    @inlinable
    func receive<V>(_ event: Event<V, Failure>, _ index: Int, _ token: UInt64, push: (inout Buffers, V) -> Void) {
        var ended = false
        let claimed: Bool
        switch event {
        case .next(let value):
            claimed = state.withLock { state -> Bool in
                if state.terminated { return false }
                push(&state.buffers, value)
                guard let output = state.buffers.popFirst() else { return false }
                let claimed = out.offer(.next(output))
                guard state.anyDone, state.buffers.exhausted(state.done) else { return claimed }
                state.terminated = true
                ended = true
                let claimedEnd = out.offer(.completed)
                return claimed || claimedEnd
            }
        case .error(let error):
            claimed = state.withLock { state -> Bool in
                if state.terminated { return false }
                state.terminated = true
                ended = true
                return out.offer(.error(error))
            }
        case .completed:
            sources.end(token)
            claimed = state.withLock { state -> Bool in
                if state.terminated { return false }
                state.done[index] = true
                state.anyDone = true
                guard state.buffers.isEmpty(index) else { return false }
                state.terminated = true
                ended = true
                return out.offer(.completed)
            }
        }
        if claimed { out.drain() }
        if ended { sources.dispose() }
    }
}

/// The buffers of the array form: one queue per source.
@usableFromInline
struct _ZipBuffersArray<Element>: _ZipBuffers {
    @usableFromInline var queues: ContiguousArray<_FIFO<Element>>

    @inlinable init(count: Int) {
        queues = ContiguousArray(repeating: _FIFO(), count: count)
    }

    @inlinable
    mutating func popFirst() -> [Element]? {
        for queue in queues where queue.isEmpty { return nil }
        var output: [Element] = []
        output.reserveCapacity(queues.count)
        for index in queues.indices { output.append(queues[index].popFirst()!) }
        return output
    }

    @inlinable
    func isEmpty(_ index: Int) -> Bool { queues[index].isEmpty }
}

// Tuples cannot conform to protocols: the tuple forms keep their queues in these.

@usableFromInline
struct _ZipBuffers2<A, B>: _ZipBuffers {
    @usableFromInline var q0 = _FIFO<A>()
    @usableFromInline var q1 = _FIFO<B>()
    @inlinable init() {}

    @inlinable
    mutating func popFirst() -> (A, B)? {
        if q0.isEmpty || q1.isEmpty { return nil }
        return (q0.popFirst()!, q1.popFirst()!)
    }

    @inlinable
    func isEmpty(_ index: Int) -> Bool {
        switch index {
        case 0: return q0.isEmpty
        default: return q1.isEmpty
        }
    }
}

@usableFromInline
struct _ZipBuffers3<A, B, C>: _ZipBuffers {
    @usableFromInline var q0 = _FIFO<A>()
    @usableFromInline var q1 = _FIFO<B>()
    @usableFromInline var q2 = _FIFO<C>()
    @inlinable init() {}

    @inlinable
    mutating func popFirst() -> (A, B, C)? {
        if q0.isEmpty || q1.isEmpty || q2.isEmpty { return nil }
        return (q0.popFirst()!, q1.popFirst()!, q2.popFirst()!)
    }

    @inlinable
    func isEmpty(_ index: Int) -> Bool {
        switch index {
        case 0: return q0.isEmpty
        case 1: return q1.isEmpty
        default: return q2.isEmpty
        }
    }
}

@usableFromInline
struct _ZipBuffers4<A, B, C, D>: _ZipBuffers {
    @usableFromInline var q0 = _FIFO<A>()
    @usableFromInline var q1 = _FIFO<B>()
    @usableFromInline var q2 = _FIFO<C>()
    @usableFromInline var q3 = _FIFO<D>()
    @inlinable init() {}

    @inlinable
    mutating func popFirst() -> (A, B, C, D)? {
        if q0.isEmpty || q1.isEmpty || q2.isEmpty || q3.isEmpty { return nil }
        return (q0.popFirst()!, q1.popFirst()!, q2.popFirst()!, q3.popFirst()!)
    }

    @inlinable
    func isEmpty(_ index: Int) -> Bool {
        switch index {
        case 0: return q0.isEmpty
        case 1: return q1.isEmpty
        case 2: return q2.isEmpty
        default: return q3.isEmpty
        }
    }
}
