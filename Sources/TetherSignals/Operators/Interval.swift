extension Signal where Value == Int, Failure == Never {
    /// Sends 0, 1, 2, ... on `scheduler`, one every `period`, the first after one `period`;
    /// it never completes (RAC's `interval:onScheduler:`).
    ///
    /// ```swift
    /// Signal.interval(.seconds(1), on: .main)
    ///     .subscribe(next: { secondsElapsed in clock.text = "\(secondsElapsed + 1) s" })
    /// ```
    @inlinable
    public static func interval<S: Scheduler>(_ period: Duration, on scheduler: S) -> Signal {
        precondition(period > .zero, "an interval's period must be positive")
        return Signal(_unchecked: { sink, lifetime in
            let ticks = _IntervalTicks(sink: sink, lifetime: lifetime)
            lifetime.add(scheduler.schedule(after: period, repeating: period) { ticks.tick() })
        })
    }

    /// Sends 0 once, on `scheduler` after `delay`, then completes.
    ///
    /// ```swift
    /// Signal.timer(after: .seconds(3), on: .main)
    ///     .subscribe(completed: { banner.hide() })
    /// ```
    @inlinable
    public static func timer<S: Scheduler>(after delay: Duration, on scheduler: S) -> Signal {
        Signal(_unchecked: { sink, lifetime in
            lifetime.add(scheduler.schedule(after: delay) {
                if lifetime.isDisposed { return }
                sink(.next(0))
                if !lifetime.isDisposed { sink(.completed) }
            })
        })
    }
}

/// The counter of one `interval` subscription. Ticks are numbered and delivered under one
/// gate, so the numbers arrive in order even if a scheduler overlapped its runs.
@usableFromInline
final class _IntervalTicks: Sendable {
    let out: _Gate<Int, Never>
    let count = _Locked(0)

    @usableFromInline
    init(sink: @escaping @Sendable (Event<Int, Never>) -> Void, lifetime: CompoundDisposable) {
        out = _Gate(sink: sink, lifetime: lifetime)
    }

    @usableFromInline
    func tick() {
        let claimed = count.withLock { count -> Bool in
            defer { count += 1 }
            return out.offer(.next(count))
        }
        if claimed { out.drain() }
    }
}
