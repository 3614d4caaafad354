extension Signal {
    /// Runs side effects at points of each subscription's life, without changing its events
    /// (RAC's `initially:`, `doNext:`, `doError:`, `doCompleted:`, `finally:`). Every closure
    /// is optional.
    ///
    /// - `subscribed` runs when a subscription starts, before subscribing upstream.
    /// - `next`, `error`, `completed` run for each such event, before it is sent on;
    ///   `terminated` runs after `error` or `completed`, also before the event is sent on.
    /// - `disposed` runs exactly once when the subscription ends for any reason: after a
    ///   terminal event, or when it is disposed.
    ///
    /// Hooks are not called for events that arrive after the subscription ended.
    ///
    /// ```swift
    /// request
    ///     .on(subscribed: { spinner.start() }, disposed: { spinner.stop() })
    ///     .subscribe(next: show)
    /// ```
    @inlinable
    public func on(
        subscribed: (@Sendable () -> Void)? = nil,
        next: (@Sendable (Value) -> Void)? = nil,
        error: (@Sendable (Failure) -> Void)? = nil,
        completed: (@Sendable () -> Void)? = nil,
        terminated: (@Sendable () -> Void)? = nil,
        disposed: (@Sendable () -> Void)? = nil
    ) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            subscribed?()
            // Registered after subscribing upstream, so that it runs after upstream's own
            // cleanup; if the subscription already ended, `add` runs it at once.
            defer { if let disposed { lifetime.add(disposed) } }
            if lifetime.isDisposed { return }
            upstream({ event in
                if lifetime.isDisposed { return }
                switch event {
                case .next(let value):
                    next?(value)
                case .error(let failure):
                    error?(failure)
                    terminated?()
                case .completed:
                    completed?()
                    terminated?()
                }
                sink(event)
            }, lifetime)
        })
    }
}
