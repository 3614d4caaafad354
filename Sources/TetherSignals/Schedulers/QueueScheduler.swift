import Dispatch

/// Runs work on a serial `DispatchQueue` (RAC's `RACQueueScheduler`, ReactiveSwift's
/// `QueueScheduler`).
///
/// Work runs in the order it falls due; work scheduled for the same moment runs in the order
/// it was scheduled. Every method returns a disposable that cancels work that has not run yet
/// and releases its closure at once.
///
/// ```swift
/// let background = QueueScheduler(label: "tether.search", qos: .userInitiated)
/// results
///     .deliver(on: background)
///     .subscribe(next: { index($0) })
/// let tick = background.schedule(after: .seconds(1), repeating: .seconds(1)) { print("tick") }
/// tick.dispose()   // stops the repetition
/// ```
public final class QueueScheduler: Scheduler {
    /// The serial queue the work runs on.
    public let queue: DispatchQueue

    /// Creates a scheduler with a new serial queue.
    public init(label: String = "tether.QueueScheduler", qos: DispatchQoS = .default) {
        queue = DispatchQueue(label: label, qos: qos)
    }

    /// Creates a scheduler on an existing queue, which must be serial: operators that deliver
    /// on a scheduler rely on its work running one item at a time, in order.
    public init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Time since a process-wide origin, from `ContinuousClock` (the same origin as
    /// `ImmediateScheduler.now`).
    public var now: Duration { ContinuousClock.now - _clockOrigin }

    /// Queues `action` on the queue (always asynchronously, even from the queue itself).
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        let work = _ScheduledAction(action)
        queue.async { work.run() }
        return work
    }

    /// Runs `action` on the queue once `delay` has passed (at once if `delay` is not positive).
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        guard delay > .zero else { return schedule(action) }
        let work = _ScheduledAction(action)
        queue.asyncAfter(deadline: .now() + _dispatchInterval(delay)) { work.run() }
        return work
    }

    /// Runs `action` after `delay`, then every `interval`, until the disposable is disposed.
    ///
    /// Each run is scheduled from the ideal start time plus a whole number of intervals, so the
    /// repetition does not drift; if a run falls behind (the queue was busy), the next one runs
    /// as soon as possible and the rhythm continues from there, without a burst of catch-up runs.
    @discardableResult
    public func schedule(
        after delay: Duration,
        repeating interval: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> any Disposable {
        precondition(interval > .zero, "a repeating interval must be positive")
        let work = _ScheduledAction(repeats: true, action)
        tick(work, at: .now() + _dispatchInterval(max(delay, .zero)), every: _dispatchInterval(interval))
        return work
    }

    private func tick(_ work: _ScheduledAction, at deadline: DispatchTime, every interval: DispatchTimeInterval) {
        queue.asyncAfter(deadline: deadline) { [self] in
            guard !work.isDisposed else { return }
            work.run()
            guard !work.isDisposed else { return }
            let now = DispatchTime.now()
            let next = deadline + interval
            tick(work, at: next < now ? now : next, every: interval)
        }
    }
}

/// Converts a duration to a dispatch interval in nanoseconds, saturating instead of overflowing
/// (a delay of centuries simply never comes).
func _dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return .nanoseconds(0) }
    let (wholeNanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return .never }
    let (total, overflow2) = wholeNanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
    return overflow2 ? .never : .nanoseconds(Int(truncatingIfNeeded: total))
}
