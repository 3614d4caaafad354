import Dispatch

/// Runs work on the main queue, `DispatchQueue.main` (RAC's `mainThreadScheduler`).
///
/// Work is always queued, even when scheduled from the main queue itself, so it never runs
/// re-entrantly inside the caller.
///
/// On Linux the main queue runs only while something serves it: Foundation's `RunLoop.main`
/// run on the main thread, `dispatchMain()`, or an `async` `main` (the main queue is also the
/// main actor's executor). While it is not served, work scheduled here waits; a command-line
/// tool that never serves the main queue should use a `QueueScheduler` instead. `swift test`
/// serves it.
///
/// **Models of the main thread: serve the main queue with `RunLoop.main`.** On Linux,
/// `dispatchMain()` and an `async` `main` (top-level `await`) end the main thread
/// (`pthread_exit`) and serve the main queue from another thread. Models belong to the thread
/// that created them, so models created at the top level of `main.swift` would then belong to
/// no running thread, and bindings would refuse their values. Keep the main thread:
///
/// ```swift
/// Task { @MainActor in try await app.run(); exit(0) }   // async work on the main actor
/// while true { _ = RunLoop.main.run(mode: .default, before: .distantFuture) }
/// ```
///
/// ```swift
/// model.results
///     .deliver(on: MainScheduler.shared)   // or `.deliver(on: .main)`
///     .subscribe(next: { label.text = $0 })
/// ```
public struct MainScheduler: Scheduler {
    /// The main scheduler.
    public static let shared = MainScheduler()

    private let base = QueueScheduler(queue: .main)

    private init() {}

    /// Whether the caller is running on the main queue (on the main thread outside any queue,
    /// as at the top level of `main.swift`, this is true as well).
    ///
    /// ```swift
    /// if MainScheduler.isOnMainQueue { updateNow() } else { MainScheduler.shared.schedule(updateNow) }
    /// ```
    public static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: _mainQueueKey) == true
    }

    /// Time since a process-wide origin, from `ContinuousClock` (as `QueueScheduler.now`).
    public var now: Duration { base.now }

    /// Queues `action` on the main queue (always asynchronously, even from the main queue).
    @discardableResult
    public func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        base.schedule(action)
    }

    /// Runs `action` on the main queue once `delay` has passed.
    @discardableResult
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        base.schedule(after: delay, action)
    }

    /// Runs `action` on the main queue after `delay`, then every `interval`, until disposed.
    @discardableResult
    public func schedule(
        after delay: Duration,
        repeating interval: Duration,
        _ action: @escaping @Sendable () -> Void
    ) -> any Disposable {
        base.schedule(after: delay, repeating: interval, action)
    }
}

/// Marks the main queue, so that `MainScheduler.isOnMainQueue` can recognise it. Created (and
/// set on the main queue) the first time it is read; global initialisation is thread-safe.
private let _mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()
