extension Signal {
    /// Pairs each value of this signal with the latest value of `other` (ReactiveSwift's
    /// `withLatest(from:)`, RxSwift's `withLatestFrom`). Values sent before `other` has sent a
    /// value are dropped; `other`'s values alone send nothing.
    ///
    /// `other` is subscribed first, so a source that sends at once (a `BehaviorSubject`, `just`)
    /// is there for this signal's first value. Completes when this signal completes; `other`'s
    /// completion does not end the result (its last value stays the latest, and its
    /// subscription is disposed), but its failure fails the result and disposes this signal.
    /// A failure or completion of this signal disposes `other`. Events of the two may come from
    /// different threads; they are delivered one at a time.
    ///
    /// ```swift
    /// saveTaps.withLatest(from: document).map { _, document in document }   // what to save
    /// ```
    @inlinable
    public func withLatest<Other>(from other: Signal<Other, Failure>) -> Signal<(Value, Other), Failure> {
        let upstream = _run
        let otherRun = other._run
        return Signal<(Value, Other), Failure>(_unchecked: { sink, lifetime in
            let core = _WithLatest<Value, Other, Failure>(sink: sink, lifetime: lifetime)
            guard let (otherLifetime, otherToken) = core.sources.make() else { return }
            otherRun({ event in core.receiveOther(event, otherToken) }, otherLifetime)
            // Nil if `other` already ended the result (its failure disposed the sources).
            guard let (upstreamLifetime, _) = core.sources.make() else { return }
            upstream({ event in core.receive(event) }, upstreamLifetime)
        })
    }
}

/// The state of one `withLatest(from:)` subscription: the latest value of `other`.
///
/// Each event takes the state lock once; an output is offered to the gate inside the lock (so
/// outputs leave in the order of state changes) and delivered after the lock is released.
@usableFromInline
final class _WithLatest<Value, Other, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var latest: Other?
        @usableFromInline var terminated = false
        @inlinable init() {}
    }

    @usableFromInline let out: _Gate<(Value, Other), Failure>
    @usableFromInline let sources: _ChildSubscriptions
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(sink: @escaping Signal<(Value, Other), Failure>._Sink, lifetime: CompoundDisposable) {
        out = _Gate(sink: sink, lifetime: lifetime)
        sources = _ChildSubscriptions(in: lifetime)
    }

    /// Handles an event of this signal.
    @inlinable
    func receive(_ event: Event<Value, Failure>) {
        switch event {
        case .next(let value):
            let claimed = state.withLock { state -> Bool in
                guard !state.terminated, let latest = state.latest else { return false }
                return out.offer(.next((value, latest)))
            }
            if claimed { out.drain() }
        case .error(let error):
            finish(.error(error))
        case .completed:
            finish(.completed)
        }
    }

    /// Handles an event of `other` (`token` is its subscription's).
    @inlinable
    func receiveOther(_ event: Event<Other, Failure>, _ token: UInt64) {
        switch event {
        case .next(let value):
            state.withLock { state in
                if !state.terminated { state.latest = value }
            }
        case .error(let error):
            finish(.error(error))
        case .completed:
            sources.end(token)
        }
    }

    /// Ends the result with `event` (a terminal event), once, and disposes both upstreams.
    @inlinable
    func finish(_ event: Event<(Value, Other), Failure>) {
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.terminated = true
            state.latest = nil
            return out.offer(event)
        }
        if claimed { out.drain() }
        sources.dispose()
    }
}
