extension Signal {
    /// Fails with `error` if this signal has not terminated within `interval` of the
    /// subscription (RAC's `timeout:onScheduler:`, ReactiveSwift's `timeout(after:raising:on:)`).
    ///
    /// The interval covers the whole signal, not the gap between values. Values pass through
    /// at once, on the thread that sent them; the timeout error is delivered on `scheduler`,
    /// and then the upstream subscription is disposed and anything it sends later is ignored.
    /// When the signal ends in time, the timer is cancelled.
    ///
    /// ```swift
    /// fetchProfile(id)
    ///     .timeout(after: .seconds(10), on: QueueScheduler(label: "net"), error: .timedOut)
    ///     .subscribe(next: show, error: { showError($0) })
    /// ```
    @inlinable
    public func timeout<S: Scheduler>(after interval: Duration, on scheduler: S, error: Failure) -> Signal {
        let upstream = _run
        return Signal(_unchecked: { sink, lifetime in
            // The gate serialises the upstream's events with the timer's error and drops
            // whatever follows the first terminal event.
            let out = _Gate(sink: sink, lifetime: lifetime)
            lifetime.add(scheduler.schedule(after: interval) { out.send(.error(error)) })
            upstream({ out.send($0) }, lifetime)
        })
    }
}
