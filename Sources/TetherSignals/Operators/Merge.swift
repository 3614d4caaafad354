extension Signal {
    /// Merges the values of several signals into one signal, as they arrive.
    ///
    /// All signals are subscribed at once, in order. The result completes when every one of
    /// them has completed (at once if `signals` is empty); an error from any of them ends the
    /// result and disposes the others. Each source's subscription is released as soon as that
    /// source ends. Events from sources on different threads are delivered one at a time.
    ///
    /// ```swift
    /// let taps = Signal.merge([button1.taps, button2.taps, button3.taps])
    /// ```
    @inlinable
    public static func merge(_ signals: [Signal]) -> Signal {
        Signal<Signal, Failure>(sequence: signals).flatten(.merge)
    }

    /// Merges the values of the given signals into one signal, as they arrive; see
    /// `merge(_:)` for an array.
    ///
    /// ```swift
    /// let saves = Signal.merge(saveButton.taps, saveShortcut.presses, autosave.ticks)
    /// ```
    @inlinable
    public static func merge(_ signals: Signal...) -> Signal {
        merge(signals)
    }

    /// Merges this signal's values with `other`'s, as they arrive. The result completes when
    /// both completed; an error from either ends it.
    ///
    /// ```swift
    /// let refreshes = pullToRefresh.merge(with: appBecameActive)
    /// ```
    @inlinable
    public func merge(with other: Signal) -> Signal {
        Signal.merge([self, other])
    }
}
