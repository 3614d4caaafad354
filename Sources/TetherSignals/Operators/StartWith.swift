extension Signal {
    /// Sends `value` first, then subscribes upstream and forwards its events (RAC's
    /// `startWith:`).
    ///
    /// ```swift
    /// Signal(sequence: [2, 3]).startWith(1)   // 1, 2, 3, completed
    /// ```
    @inlinable
    public func startWith(_ value: Value) -> Signal where Value: Sendable {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            sink(.next(value))
            if !lifetime.isDisposed { upstream(sink, lifetime) }
        })
    }

    /// Sends `values` first, in order, then subscribes upstream and forwards its events. If
    /// the subscription is disposed meanwhile, the rest is skipped and upstream is never
    /// subscribed.
    ///
    /// ```swift
    /// Signal(sequence: [3]).startWith(values: [1, 2])   // 1, 2, 3, completed
    /// ```
    @inlinable
    public func startWith(values: [Value]) -> Signal where Value: Sendable {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            for value in values {
                if lifetime.isDisposed { return }
                sink(.next(value))
            }
            if !lifetime.isDisposed { upstream(sink, lifetime) }
        })
    }
}
