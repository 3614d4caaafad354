extension Signal {
    /// Drops the first `count` values, then sends the rest (RAC's `skip:`). Terminal events
    /// pass through, even during the skipped part.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3, 4]).skip(2)   // 3, 4, completed
    /// ```
    @inlinable
    public func skip(_ count: Int) -> Signal {
        precondition(count >= 0, "skip(_:) needs a count that is not negative")
        if count == 0 { return Signal(_unchecked: _run) }
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let remaining = _Locked(count)
            upstream({ event in
                if case .next = event {
                    let skipped = remaining.withLock { remaining -> Bool in
                        guard remaining > 0 else { return false }
                        remaining -= 1
                        return true
                    }
                    if skipped { return }
                }
                sink(event)
            }, lifetime)
        })
    }

    /// Drops values while `predicate` returns true; from the first value for which it returns
    /// false, sends everything (RAC's `skipWhileBlock:`). The predicate is not called again
    /// after it first returned false.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 5, 1]).skip(while: { $0 < 3 })   // 5, 1, completed
    /// ```
    @inlinable
    public func skip(while predicate: @escaping @Sendable (Value) -> Bool) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            let skipping = _Locked(true)
            upstream({ event in
                if case .next(let value) = event, skipping.withLock({ $0 }) {
                    if predicate(value) { return }
                    skipping.withLock { $0 = false }
                }
                sink(event)
            }, lifetime)
        })
    }
}
