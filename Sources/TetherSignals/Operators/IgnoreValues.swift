extension Signal {
    /// Drops every value and forwards only the terminal event (RAC's `ignoreValues`): useful
    /// to wait for a signal to finish.
    ///
    /// ```swift
    /// save.ignoreValues().subscribe(completed: { print("saved") })
    /// ```
    @inlinable
    public func ignoreValues() -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            upstream({ event in
                if case .next = event { return }
                sink(event)
            }, lifetime)
        })
    }
}
