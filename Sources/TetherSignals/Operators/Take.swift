extension Signal {
    /// Sends the first `count` values, then completes (RAC's `take:`). Completing ends the
    /// subscription, so the upstream is disposed and stops: even an infinite synchronous source
    /// stops after `count` values. `take(0)` completes at once without subscribing upstream.
    /// An error or completion before `count` values is forwarded.
    ///
    /// ```swift
    /// Signal(sequence: 1...).take(3)   // 1, 2, 3, completed
    /// ```
    @inlinable
    public func take(_ count: Int) -> Signal {
        precondition(count >= 0, "take(_:) needs a count that is not negative")
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            if count == 0 {
                sink(.completed)
                return
            }
            // How many values may still pass; 0 once a terminal event was sent.
            let remaining = _Locked(count)
            upstream({ event in
                switch event {
                case .next(let value):
                    let isLast = remaining.withLock { remaining -> Bool? in
                        guard remaining > 0 else { return nil }
                        remaining -= 1
                        return remaining == 0
                    }
                    guard let isLast else { return }
                    sink(.next(value))
                    if isLast { sink(.completed) }
                case .error, .completed:
                    let open = remaining.withLock { remaining -> Bool in
                        defer { remaining = 0 }
                        return remaining > 0
                    }
                    if open { sink(event) }
                }
            }, lifetime)
        })
    }

    /// Sends values while `predicate` returns true; completes instead of sending the first
    /// value for which it returns false (RAC's `takeWhileBlock:`). Completing ends the
    /// subscription, so the upstream is disposed and stops, even an infinite synchronous one.
    ///
    /// ```swift
    /// Signal(sequence: 1...).take(while: { $0 < 4 })   // 1, 2, 3, completed
    /// ```
    @inlinable
    public func take(while predicate: @escaping @Sendable (Value) -> Bool) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            // Set once this operator, or the upstream, ended the signal.
            let done = _Locked(false)
            upstream({ event in
                if done.withLock({ $0 }) { return }
                switch event {
                case .next(let value):
                    if predicate(value) {
                        sink(.next(value))
                        return
                    }
                    let claimed = done.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if claimed { sink(.completed) }
                case .error, .completed:
                    let claimed = done.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if claimed { sink(event) }
                }
            }, lifetime)
        })
    }
}
