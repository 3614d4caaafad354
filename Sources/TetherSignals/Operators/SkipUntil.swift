extension Signal {
    /// Drops values until `trigger` sends a value or completes, then forwards everything
    /// (ReactiveSwift's `skip(until:)`, RxSwift's `skipUntil`). The trigger is subscribed
    /// first, so a trigger that fires at once lets every value through; its subscription is
    /// disposed as soon as it fired, and when the result ends.
    ///
    /// Terminal events of this signal pass through, even while values are dropped. A failure
    /// of the trigger is ignored, as in `take(until:)`: the trigger stops watching without
    /// having fired, so values are dropped until this signal ends. Events of this signal and
    /// of the trigger may come from different threads; a value that races with the trigger is
    /// either dropped or sent, never sent twice.
    ///
    /// ```swift
    /// keystrokes.skip(until: editorDidLoad)   // keystrokes once the editor has loaded
    /// ```
    @inlinable
    public func skip<Trigger, TriggerFailure: Error>(
        until trigger: Signal<Trigger, TriggerFailure>
    ) -> Signal {
        let upstream = _run
        let triggerRun = trigger._run
        return Signal(_unchecked: { sink, lifetime in
            // Set once the trigger fired: values pass from then on.
            let open = _Locked(false)
            let triggerLifetime = CompoundDisposable()
            lifetime.add(triggerLifetime)
            @Sendable func stopTrigger() {
                triggerLifetime.dispose()
                lifetime.remove(triggerLifetime)
            }

            triggerRun({ event in
                switch event {
                case .next, .completed: open.withLock { $0 = true }
                case .error: break
                }
                stopTrigger()
            }, triggerLifetime)

            if lifetime.isDisposed { return }
            upstream({ event in
                switch event {
                case .next:
                    if open.withLock({ $0 }) { sink(event) }
                case .error, .completed:
                    stopTrigger()
                    sink(event)
                }
            }, lifetime)
        })
    }
}
