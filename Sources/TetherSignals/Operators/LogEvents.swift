extension Signal {
    /// Logs each subscription's life: `subscribed`, every event, and `disposed`, each line
    /// labelled with `prefix` and the signal's `name` (set with `named(_:)`), for example
    /// `"search [results] next(3)"`. Events pass through unchanged, and the result keeps this
    /// signal's name. `output` receives each line; by default it is `print`.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2]).named("numbers").logEvents().subscribe()
    /// // [numbers] subscribed
    /// // [numbers] next(1)
    /// // [numbers] next(2)
    /// // [numbers] completed
    /// // [numbers] disposed
    /// ```
    @inlinable
    public func logEvents(_ prefix: String? = nil, to output: (@Sendable (String) -> Void)? = nil) -> Signal {
        let label = [prefix, name.map { "[\($0)]" }].compactMap { $0 }.joined(separator: " ")
        let tag = label.isEmpty ? "[signal]" : label
        let write: @Sendable (String) -> Void = output ?? { print($0) }
        let logged = on(
            subscribed: { write("\(tag) subscribed") },
            next: { write("\(tag) next(\($0))") },
            error: { write("\(tag) error(\($0))") },
            completed: { write("\(tag) completed") },
            disposed: { write("\(tag) disposed") }
        )
        return Signal(_unchecked: logged._run, name: name)
    }
}
