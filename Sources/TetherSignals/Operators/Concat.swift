extension Signal {
    /// Sends the values of each signal in turn: subscribes to the first, and to each next one
    /// only after the previous one completed (RAC's `concat:`).
    ///
    /// The result completes after the last signal completed (at once if `signals` is empty).
    /// An error from any signal ends the result; the signals after it are never subscribed.
    /// Each signal's subscription is released when it completes, before the next one starts.
    ///
    /// ```swift
    /// Signal.concat([cache.load(key), network.fetch(key)])   // cached value first, then fresh
    /// ```
    @inlinable
    public static func concat(_ signals: [Signal]) -> Signal {
        Signal<Signal, Failure>(sequence: signals).flatten(.concat)
    }

    /// Sends this signal's values, then, once it completed, `other`'s.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2]).concat(Signal(sequence: [3]))   // 1, 2, 3, completed
    /// ```
    @inlinable
    public func concat(_ other: Signal) -> Signal {
        Signal.concat([self, other])
    }
}
