extension Signal {
    /// Sends only the values for which `isIncluded` returns true.
    ///
    /// ```swift
    /// Signal(sequence: 1...6).filter { $0.isMultiple(of: 2) }   // 2, 4, 6, completed
    /// ```
    @inlinable
    public func filter(_ isIncluded: @escaping @Sendable (Value) -> Bool) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            upstream({ event in
                if case .next(let value) = event, !isIncluded(value) { return }
                sink(event)
            }, lifetime)
        })
    }
}
