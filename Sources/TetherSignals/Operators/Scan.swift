extension Signal {
    /// Sends the running accumulation of the values: each value is combined with the previous
    /// accumulation (starting from `initial`), and each new accumulation is sent (RAC's
    /// `scanWithStart:reduce:`). Each subscription starts again from `initial`.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3]).scan(0, +)   // 1, 3, 6, completed
    /// ```
    @inlinable
    public func scan<Result: Sendable>(
        _ initial: Result,
        _ combine: @escaping @Sendable (Result, Value) -> Result
    ) -> Signal<Result, Failure> {
        let upstream = _run
        return Signal<Result, Failure>(_unchecked: { sink, lifetime in
            // The upstream sends one event at a time: no lock needed (see `_SerialBox`).
            let accumulation = _SerialBox(initial)
            upstream({ event in
                switch event {
                case .next(let value):
                    let next = combine(accumulation.value, value)
                    accumulation.value = next
                    sink(.next(next))
                case .error(let error): sink(.error(error))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }

    /// Like `scan(_:_:)`, but `update` mutates the accumulation in place, which avoids copying
    /// a large accumulation (an array, a dictionary) for each value.
    ///
    /// ```swift
    /// Signal(sequence: ["a", "b"]).scan(into: [String]()) { $0.append($1) }
    /// // ["a"], ["a", "b"], completed
    /// ```
    @inlinable
    public func scan<Result: Sendable>(
        into initial: Result,
        _ update: @escaping @Sendable (inout Result, Value) -> Void
    ) -> Signal<Result, Failure> {
        let upstream = _run
        return Signal<Result, Failure>(_unchecked: { sink, lifetime in
            // The upstream sends one event at a time: no lock needed (see `_SerialBox`).
            let accumulation = _SerialBox(initial)
            upstream({ event in
                switch event {
                case .next(let value):
                    update(&accumulation.value, value)
                    sink(.next(accumulation.value))
                case .error(let error): sink(.error(error))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }
}
