extension Signal {
    /// Sends the latest value of this signal each time `sampler` sends a value (ReactiveSwift's
    /// `sample(on:)`). Before this signal has sent a value, the sampler's values send nothing.
    ///
    /// As in ReactiveSwift, every value of the sampler sends the latest value, even if it was
    /// already sent by an earlier one (RxSwift's `sample` sends it only once). After this
    /// signal completes, the sampler goes on sending its last value.
    ///
    /// Completes when both this signal and the sampler have completed (each one's subscription
    /// is disposed as soon as it completes); a failure of either fails the result at once and
    /// disposes the other. A sampler that cannot fail is promoted with `promoteError()`. Events
    /// of this signal and of the sampler may come from different threads; they are delivered
    /// one at a time, in the order in which they changed the state.
    ///
    /// ```swift
    /// position.sample(on: Signal.interval(.seconds(1), on: scheduler))
    /// // the latest position, once a second
    /// ```
    @inlinable
    public func sample<Sampler>(on sampler: Signal<Sampler, Failure>) -> Signal {
        let upstream = _run
        let samplerRun = sampler._run
        return Signal(_unchecked: { sink, lifetime in
            let core = _Sample<Value, Failure>(sink: sink, lifetime: lifetime)
            guard let (upstreamLifetime, upstreamToken) = core.sources.make() else { return }
            upstream({ event in core.receive(event, upstreamToken) }, upstreamLifetime)
            guard let (samplerLifetime, samplerToken) = core.sources.make() else { return }
            samplerRun({ event in core.receiveSampler(event, samplerToken) }, samplerLifetime)
        })
    }
}

/// The state of one `sample(on:)` subscription: the latest value of the sampled signal, and
/// which of the two upstreams have completed.
///
/// Each event takes the state lock once; an output is offered to the gate inside the lock (so
/// outputs leave in the order of state changes) and delivered after the lock is released.
@usableFromInline
final class _Sample<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var latest: Value?
        @usableFromInline var upstreamCompleted = false
        @usableFromInline var samplerCompleted = false
        @usableFromInline var terminated = false
        @inlinable init() {}
    }

    @usableFromInline let out: _Gate<Value, Failure>
    @usableFromInline let sources: _ChildSubscriptions
    @usableFromInline let state = _Locked(State())

    @inlinable
    init(sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        out = _Gate(sink: sink, lifetime: lifetime)
        sources = _ChildSubscriptions(in: lifetime)
    }

    /// Handles an event of the sampled signal (`token` is its subscription's).
    @inlinable
    func receive(_ event: Event<Value, Failure>, _ token: UInt64) {
        switch event {
        case .next(let value):
            state.withLock { state in
                if !state.terminated { state.latest = value }
            }
        case .error(let error):
            fail(error)
        case .completed:
            complete(token) { $0.upstreamCompleted = true }
        }
    }

    /// Handles an event of the sampler (`token` is its subscription's).
    @inlinable
    func receiveSampler<Sampler>(_ event: Event<Sampler, Failure>, _ token: UInt64) {
        switch event {
        case .next:
            let claimed = state.withLock { state -> Bool in
                guard !state.terminated, let latest = state.latest else { return false }
                return out.offer(.next(latest))
            }
            if claimed { out.drain() }
        case .error(let error):
            fail(error)
        case .completed:
            complete(token) { $0.samplerCompleted = true }
        }
    }

    @inlinable
    func fail(_ error: Failure) {
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            state.terminated = true
            state.latest = nil
            return out.offer(.error(error))
        }
        if claimed { out.drain() }
        sources.dispose()
    }

    /// Ends the subscription of the upstream that completed, records it with `mark`, and
    /// completes the result once both have completed.
    @inlinable
    func complete(_ token: UInt64, _ mark: (inout State) -> Void) {
        sources.end(token)
        let claimed = state.withLock { state -> Bool in
            if state.terminated { return false }
            mark(&state)
            guard state.upstreamCompleted, state.samplerCompleted else { return false }
            state.terminated = true
            state.latest = nil
            return out.offer(.completed)
        }
        if claimed { out.drain() }
    }
}
