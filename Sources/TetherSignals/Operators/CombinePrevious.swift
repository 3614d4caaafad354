extension Signal {
    /// Sends each value paired with the value before it, as `(previous, current)`; the first
    /// value is paired with `initial` (ReactiveSwift's `combinePrevious(_:)`). Each
    /// subscription starts again from `initial`. Terminal events pass through.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3]).combinePrevious(0)   // (0, 1), (1, 2), (2, 3), completed
    /// ```
    @inlinable
    public func combinePrevious(_ initial: Value) -> Signal<(Value, Value), Failure> where Value: Sendable {
        _combinePrevious { initial }
    }

    /// Sends each value paired with the value before it, as `(previous, current)`, from the
    /// second value on: the first value only becomes the previous one of the second
    /// (ReactiveSwift's `combinePrevious()`). Terminal events pass through.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3]).combinePrevious()   // (1, 2), (2, 3), completed
    /// ```
    @inlinable
    public func combinePrevious() -> Signal<(Value, Value), Failure> {
        _combinePrevious { nil }
    }

    /// The stage of both `combinePrevious` forms: `initial` makes, for each subscription, the
    /// previous value of the first value, or nil to send nothing for the first value.
    @inlinable
    func _combinePrevious(
        _ initial: @escaping @Sendable () -> Value?
    ) -> Signal<(Value, Value), Failure> {
        let upstream = _run
        return Signal<(Value, Value), Failure>(_unchecked: { sink, lifetime in
            // The upstream sends one event at a time: no lock needed (see `_SerialBox`).
            let previous = _SerialBox(initial())
            upstream({ event in
                switch event {
                case .next(let value):
                    let last = previous.value
                    previous.value = value
                    if let last { sink(.next((last, value))) }
                case .error(let error): sink(.error(error))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }
}
