extension Signal {
    /// Sends the last `count` values when the signal completes, then completes (ReactiveSwift's
    /// `take(last:)`, RxSwift's `takeLast`). Nothing is sent before completion; at most `count`
    /// values are kept meanwhile. An error is forwarded and the kept values are dropped.
    /// `take(last: 0)` sends only the completion. If the subscription is disposed while the
    /// values are being sent, the rest is not sent.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3, 4]).take(last: 2)   // 3, 4, completed (all at completion)
    /// ```
    @inlinable
    public func take(last count: Int) -> Signal {
        precondition(count >= 0, "take(last:) needs a count that is not negative")
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            // The upstream sends one event at a time: no lock needed (see `_SerialBox`).
            let kept = _SerialBox(_FIFO<Value>())
            upstream({ event in
                switch event {
                case .next(let value):
                    guard count > 0 else { return }
                    if kept.value.count == count { _ = kept.value.removeFirst() }
                    kept.value.append(value)
                case .error(let error):
                    kept.value = _FIFO()
                    sink(.error(error))
                case .completed:
                    var values = kept.value
                    kept.value = _FIFO()
                    while let value = values.popFirst() {
                        if lifetime.isDisposed { return }
                        sink(.next(value))
                    }
                    if !lifetime.isDisposed { sink(.completed) }
                }
            }, lifetime)
        })
    }
}
