extension Signal {
    /// Replaces a failure with another signal: when this signal fails, its subscription is
    /// disposed, then `handler` makes the signal to continue with, which is subscribed in its
    /// place (RAC's `catch:`). Values and completion pass through unchanged.
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
            upstream({ event in
                if attempt.isDisposed { return }
                switch event {
                case .next(let value): sink(.next(value))
                case .completed: sink(.completed)
                case .error(let error):
                    attempt.dispose()
                    lifetime.remove(attempt)
                    if lifetime.isDisposed { return }
                    handler(error)._run(sink, lifetime)
                }
            }, attempt)
        })
    }
}
