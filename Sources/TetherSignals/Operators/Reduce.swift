extension Signal {
    /// Combines all the values into one accumulation, starting from `initial`, and sends it
    /// when the signal completes, then completes (RAC's `aggregateWithStart:reduce:`). A signal
    /// that completes without values sends `initial`. An error is forwarded and nothing is
    /// sent for the values seen so far.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3]).reduce(0, +)   // 6, completed
    /// ```
    @inlinable
    public func reduce<Result: Sendable>(
        _ initial: Result,
        _ combine: @escaping @Sendable (Result, Value) -> Result
    ) -> Signal<Result, Failure> {
        reduce(into: initial) { accumulation, value in accumulation = combine(accumulation, value) }
    }

    /// Like `reduce(_:_:)`, but `update` mutates the accumulation in place.
    ///
    /// ```swift
    /// Signal(sequence: ["a", "b", "a"]).reduce(into: [String: Int]()) { $0[$1, default: 0] += 1 }
    /// // ["a": 2, "b": 1], completed
    /// ```
    @inlinable
    public func reduce<Result: Sendable>(
        into initial: Result,
        _ update: @escaping @Sendable (inout Result, Value) -> Void
    ) -> Signal<Result, Failure> {
        let upstream = _run
        return Signal<Result, Failure>(_unchecked: { sink, lifetime in
            let accumulation = _Locked<Result?>(initial)
            upstream({ event in
                // Moving the accumulation out leaves it uniquely referenced, so `update` does
                // not copy it; the upstream sends one event at a time, so nothing else reads
                // the state meanwhile.
                let taken = accumulation.withLock { state -> Result? in
                    defer { state = nil }
                    return state
                }
                switch event {
                case .next(let value):
                    guard var current = taken else { return }
                    update(&current, value)
                    accumulation.withLock { $0 = current }
                case .error(let error):
                    sink(.error(error))
                case .completed:
                    guard let result = taken else { return }
                    sink(.next(result))
                    if !lifetime.isDisposed { sink(.completed) }
                }
            }, lifetime)
        })
    }

    /// Collects all the values into one array, sent when the signal completes, then completes
    /// (RAC's `collect`). A signal that completes without values sends `[]`. An error is
    /// forwarded and the values seen so far are dropped.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3]).collect()   // [1, 2, 3], completed
    /// ```
    @inlinable
    public func collect() -> Signal<[Value], Failure> {
        let upstream = _run
        return Signal<[Value], Failure>(_unchecked: { sink, lifetime in
            // nil once the array was sent (or the signal failed).
            let values = _Locked<[Value]?>([])
            upstream({ event in
                switch event {
                case .next(let value):
                    values.withLock { $0?.append(value) }
                case .error(let error):
                    values.withLock { $0 = nil }
                    sink(.error(error))
                case .completed:
                    let collected = values.withLock { state -> [Value]? in
                        defer { state = nil }
                        return state
                    }
                    guard let collected else { return }
                    sink(.next(collected))
                    if !lifetime.isDisposed { sink(.completed) }
                }
            }, lifetime)
        })
    }
}
