extension Signal {
    /// Replaces a failure with another signal: when this signal fails, its subscription is
    /// disposed, then `handler` makes the signal to continue with, which is subscribed in its
    /// place (RAC's `catch:`). Values and completion pass through unchanged.
    ///
    /// If the failure arrives while this signal is still being subscribed (a synchronous
    /// failure), the replacement is subscribed once that subscribing returned, so everything
    /// the failed subscription set up has been disposed first.
    ///
    /// ```swift
    /// fetchRemote()
    ///     .catch { _ in loadCached() }   // on failure, fall back to the cache
    ///     .subscribe(next: show)
    /// ```
    @inlinable
    public func `catch`<NewFailure: Error>(
        _ handler: @escaping @Sendable (Failure) -> Signal<Value, NewFailure>
    ) -> Signal<Value, NewFailure> {
        let upstream = _run
        return Signal<Value, NewFailure>(_unchecked: { sink, lifetime in
            // The failing upstream gets a lifetime of its own, so that it can be disposed (and
            // dropped from `lifetime`) before the replacement starts.
            let attempt = CompoundDisposable()
            lifetime.add(attempt)
            let phase = _Locked(_CatchPhase<Failure>.subscribing)
            upstream({ event in
                if attempt.isDisposed { return }
                switch event {
                case .next(let value): sink(.next(value))
                case .completed: sink(.completed)
                case .error(let error):
                    attempt.dispose()
                    lifetime.remove(attempt)
                    let replaceNow = phase.withLock { phase -> Bool in
                        guard case .subscribing = phase else { return true }
                        phase = .failedWhileSubscribing(error)
                        return false
                    }
                    if replaceNow, !lifetime.isDisposed { handler(error)._run(sink, lifetime) }
                }
            }, attempt)
            let failure = phase.withLock { phase -> Failure? in
                defer { phase = .subscribed }
                if case .failedWhileSubscribing(let error) = phase { return error }
                return nil
            }
            if let failure, !lifetime.isDisposed { handler(failure)._run(sink, lifetime) }
        })
    }
}

/// Where a `catch` subscription is in subscribing its upstream.
@usableFromInline
enum _CatchPhase<Failure> {
    /// The upstream is being subscribed (its `_run` has not returned).
    case subscribing
    /// The upstream failed before its `_run` returned; the replacement starts when it does.
    case failedWhileSubscribing(Failure)
    /// The upstream's `_run` returned; a failure now starts the replacement at once.
    case subscribed
}
