/// Decides where and when work runs. Every time-based operator takes a scheduler, so tests can
/// pass a `TestScheduler` and step virtual time instead of sleeping.
///
/// Each method returns a disposable that cancels the work if it has not run yet (and stops a
/// repeating action).
///
/// ```swift
/// let scheduler = QueueScheduler(label: "work")
/// let cancel = scheduler.schedule(after: .milliseconds(100)) { print("later") }
/// cancel.dispose()   // never prints
/// ```
public protocol Scheduler: Sendable {
    /// The scheduler's clock: time elapsed since an origin of the scheduler's choosing.
    /// Monotonic; only differences between two readings are meaningful.
    var now: Duration { get }

    /// Runs `action` as soon as possible.
    @discardableResult
    func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable

    /// Runs `action` once, after `delay`.
    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable

    /// Runs `action` after `delay`, then every `interval`, until the disposable is disposed.
    @discardableResult
    func schedule(
        after delay: Duration,
        repeating interval: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> any Disposable
}

/// Runs work at once, on the calling thread (RAC's `+[RACScheduler immediateScheduler]`).
///
/// `schedule(after:)` blocks the calling thread for the delay, as RAC's immediate scheduler
/// does; repeating work cannot run immediately and is refused with a precondition failure. Use a
/// `QueueScheduler` (or `TestScheduler` in tests) for time.
///
/// ```swift
/// ImmediateScheduler.shared.schedule { print("now") }   // prints before returning
/// ```
public struct ImmediateScheduler: Scheduler {
    /// The shared immediate scheduler.
    public static let shared = ImmediateScheduler()

    /// Creates an immediate scheduler.
    public init() {}

    public var now: Duration { ContinuousClock.now - _clockOrigin }

    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        action()
        let done = ActionDisposable()
        done.dispose()
        return done
    }

    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        if delay > .zero {
            let deadline = ContinuousClock.now + delay
            while ContinuousClock.now < deadline {
                let remaining = deadline - ContinuousClock.now
                _sleep(remaining)
            }
        }
        return schedule(action)
    }

    @discardableResult
    public func schedule(
        after delay: Duration,
        repeating interval: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> any Disposable {
        preconditionFailure("ImmediateScheduler cannot repeat work; use QueueScheduler or TestScheduler")
    }
}

/// The origin of the real-time schedulers' `now`.
@usableFromInline let _clockOrigin = ContinuousClock.now

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Blocks the calling thread for `duration` (only `ImmediateScheduler.schedule(after:)` does).
func _sleep(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 { request = remaining }
}
