extension Signal {
    /// Drops each value that `isEquivalent` finds equivalent to the last value sent (RAC's
    /// `distinctUntilChanged`). The first value is always sent. A dropped value does not
    /// replace the one it is compared with, so a slow drift of "equivalent" values is still
    /// compared with the last value that was sent.
    ///
    /// ```swift
    /// Signal(sequence: ["a", "A", "b"]).distinctUntilChanged(by: { $0.lowercased() == $1.lowercased() })
    /// // "a", "b", completed
    /// ```
    @inlinable
    public func distinctUntilChanged(by isEquivalent: @escaping @Sendable (Value, Value) -> Bool) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let last = _Locked<Value?>(nil)
            upstream({ event in
                if case .next(let value) = event {
                    // The upstream sends one event at a time; `isEquivalent` runs unlocked.
                    if let previous = last.withLock({ $0 }), isEquivalent(previous, value) { return }
                    last.withLock { $0 = value }
                }
                sink(event)
            }, lifetime)
        })
    }
}

// `SendableMetatype`: the comparison runs in a `@Sendable` closure, so the `Equatable`
// conformance must not be isolated to an actor (every ordinary conformance qualifies).
extension Signal where Value: Equatable & SendableMetatype {
    /// Drops each value equal to the last value sent (RAC's `distinctUntilChanged`).
    ///
    /// ```swift
    /// Signal(sequence: [1, 1, 2, 2, 1]).distinctUntilChanged()   // 1, 2, 1, completed
    /// ```
    @inlinable
    public func distinctUntilChanged() -> Signal {
        distinctUntilChanged(by: { $0 == $1 })
    }
}
