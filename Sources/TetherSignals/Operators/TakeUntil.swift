extension Signal {
    /// Forwards events until `trigger` sends a value or completes, then completes (RAC's
    /// `takeUntil:`). The trigger is subscribed first; if it fires at once, upstream is never
    /// subscribed. A failure of the trigger is ignored, as in RAC: the trigger just stops
    /// watching, and the signal goes on until it ends by itself. So is the completion a subject
    /// sends because it was freed (as ReactiveSwift ignores an interrupted trigger): nobody can
    /// fire that trigger any more, which is not firing it. A `lifetime(of:)` signal, which
    /// completes when its model is freed, is a trigger that fires.
    ///
    /// The trigger's subscription is disposed as soon as either side ends, and upstream's when
    /// the result ends. Events from upstream and trigger may come from different threads.
    ///
    /// ```swift
    /// ticks.take(until: viewDidDisappear)   // ticks until the view goes away
    /// ```
    @inlinable
    public func take<Trigger, TriggerFailure: Error>(
        until trigger: Signal<Trigger, TriggerFailure>
    ) -> Signal {
        let upstream = _run
        let triggerRun = trigger._run
        return Signal(_unchecked: { sink, lifetime in
            let out = _Gate(sink: sink, lifetime: lifetime)
            // Set once the result ended (by the trigger, or by upstream).
            let done = _Locked(false)
            let triggerLifetime = CompoundDisposable()
            lifetime.add(triggerLifetime)
            @Sendable func stopTrigger() {
                triggerLifetime.dispose()
                lifetime.remove(triggerLifetime)
            }
            @Sendable func finish(with event: Event<Value, Failure>) {
                var claimed = false
                let first = done.withLock { done -> Bool in
                    if done { return false }
                    done = true
                    claimed = out.offer(event)
                    return true
                }
                guard first else { return }
                stopTrigger()
                if claimed { out.drain() }
            }

            triggerRun({ event in
                switch event {
                case .next: finish(with: .completed)
                case .completed:
                    if _SubjectRelease.isDelivering { stopTrigger() } else { finish(with: .completed) }
                case .error: stopTrigger()
                }
            }, triggerLifetime)

            if done.withLock({ $0 }) || lifetime.isDisposed { return }
            upstream({ event in
                if event.isTerminal {
                    finish(with: event)
                    return
                }
                let claimed = done.withLock { done in done ? false : out.offer(event) }
                if claimed { out.drain() }
            }, lifetime)
        })
    }
}
