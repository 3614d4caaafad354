extension Signal where Value: Sendable {
    /// Creates a signal that iterates `sequence` in a new task for each subscription, sending
    /// each element, then completion, or the error the iteration throws.
    ///
    /// Disposing the subscription cancels the task; nothing is sent after that. Events arrive
    /// on the task's executor (the global concurrent executor), after `subscribe` has returned.
    ///
    /// ```swift
    /// let lines = Signal(file.lines)        // Signal<String, any Error>
    /// let numbers = Signal(AsyncStream<Int> { continuation in
    ///     continuation.yield(1)
    ///     continuation.finish()
    /// })                                    // Signal<Int, Never>
    /// ```
    public init<S: AsyncSequence & Sendable>(_ sequence: S) where S.Element == Value, S.Failure == Failure {
        self.init(_unchecked: { sink, lifetime in
            let task = Task {
                var iterator = sequence.makeAsyncIterator()
                do throws(Failure) {
                    while let element = try await iterator.next(isolation: nil) {
                        if lifetime.isDisposed { return }
                        sink(.next(element))
                    }
                    if !lifetime.isDisposed { sink(.completed) }
                } catch {
                    if !lifetime.isDisposed { sink(.error(error)) }
                }
            }
            lifetime.add { task.cancel() }
        })
    }

    /// Creates a signal from an async sequence; the same as `Signal(sequence)`.
    ///
    /// ```swift
    /// let updates = Signal.from(notifications)   // iterates once per subscription
    /// ```
    public static func from<S: AsyncSequence & Sendable>(_ sequence: S) -> Signal
    where S.Element == Value, S.Failure == Failure {
        Signal(sequence)
    }
}
