extension Signal {
    /// Turns every event into a value: each event of this signal is sent as `.next(event)`,
    /// and after the terminal event's value the signal completes (RAC's `materialize`). The
    /// result cannot fail; `dematerialize()` reverses it.
    ///
    /// ```swift
    /// Signal<Int, MyError>(error: .offline).materialize()
    /// // .next(.error(.offline)), completed
    /// ```
    @inlinable
    public func materialize() -> Signal<Event<Value, Failure>, Never> {
        let upstream = _run
        return Signal<Event<Value, Failure>, Never>(_unchecked: { sink, lifetime in
            upstream({ event in
                sink(.next(event))
                if event.isTerminal, !lifetime.isDisposed { sink(.completed) }
            }, lifetime)
        })
    }
}

extension Signal where Failure == Never {
    /// Turns values that are events back into events (RAC's `dematerialize`): `.next(.next(v))`
    /// sends `v`, `.next(.error(e))` fails with `e`, `.next(.completed)` completes. After such
    /// a terminal event, anything more from upstream is ignored; if upstream completes first,
    /// the result completes.
    ///
    /// ```swift
    /// Signal(sequence: [Event<Int, MyError>.next(1), .error(.offline)]).dematerialize()
    /// // 1, error(offline)
    /// ```
    @inlinable
    public func dematerialize<NewValue, NewFailure: Error>() -> Signal<NewValue, NewFailure>
    where Value == Event<NewValue, NewFailure> {
        let upstream = _run
        return Signal<NewValue, NewFailure>(_unchecked: { sink, lifetime in
            let done = _Locked(false)
            upstream({ outer in
                let inner: Event<NewValue, NewFailure>
                switch outer {
                case .next(let event): inner = event
                case .completed: inner = .completed
                }
                if inner.isTerminal {
                    let claimed = done.withLock { done -> Bool in
                        defer { done = true }
                        return !done
                    }
                    if claimed { sink(inner) }
                } else if !done.withLock({ $0 }) {
                    sink(inner)
                }
            }, lifetime)
        })
    }
}
