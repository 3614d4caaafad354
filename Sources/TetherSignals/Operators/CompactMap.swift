extension Signal {
    /// Transforms each value with `transform` and sends the results that are not nil; values
    /// for which `transform` returns nil are dropped. Terminal events pass through.
    ///
    /// ```swift
    /// Signal(sequence: ["1", "x", "3"]).compactMap { Int($0) }   // 1, 3, completed
    /// ```
    @inlinable
    public func compactMap<NewValue>(
        _ transform: @escaping @Sendable (Value) -> NewValue?
    ) -> Signal<NewValue, Failure> {
        let upstream = _run
        return Signal<NewValue, Failure>(_unchecked: { sink, lifetime in
            upstream({ event in
                switch event {
                case .next(let value):
                    if let transformed = transform(value) { sink(.next(transformed)) }
                case .error(let error): sink(.error(error))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }
}
