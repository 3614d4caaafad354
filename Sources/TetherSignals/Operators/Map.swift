extension Signal {
    /// Transforms each value with `transform`.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3]).map { $0 * 10 }   // 10, 20, 30, completed
    /// ```
    @inlinable
    public func map<NewValue>(_ transform: @escaping @Sendable (Value) -> NewValue) -> Signal<NewValue, Failure> {
        let upstream = _run
        return Signal<NewValue, Failure>(_unchecked: { sink, lifetime in
            upstream({ event in
                switch event {
                case .next(let value): sink(.next(transform(value)))
                case .error(let error): sink(.error(error))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }

    /// Transforms each failure with `transform`.
    ///
    /// ```swift
    /// request.mapError { StoreError.network($0) }
    /// ```
    @inlinable
    public func mapError<NewFailure: Error>(
        _ transform: @escaping @Sendable (Failure) -> NewFailure
    ) -> Signal<Value, NewFailure> {
        let upstream = _run
        return Signal<Value, NewFailure>(_unchecked: { sink, lifetime in
            upstream({ event in
                switch event {
                case .next(let value): sink(.next(value))
                case .error(let error): sink(.error(transform(error)))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }
}

extension Signal where Failure == Never {
    /// Gives a signal that cannot fail any failure type, so it can be combined with signals
    /// that can.
    ///
    /// ```swift
    /// let ticks: Signal<Int, StoreError> = clock.promoteError()
    /// ```
    @inlinable
    public func promoteError<NewFailure: Error>(_: NewFailure.Type = NewFailure.self) -> Signal<Value, NewFailure> {
        let upstream = _run
        return Signal<Value, NewFailure>(_unchecked: { sink, lifetime in
            upstream({ event in
                switch event {
                case .next(let value): sink(.next(value))
                case .completed: sink(.completed)
                }
            }, lifetime)
        })
    }
}
