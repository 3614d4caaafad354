import Foundation
import Synchronization
import TetherSQLite

/// A `TestScheduler` whose turns are exact: work that another thread schedules while a turn
/// runs (the end of a commit the store's writer queue ran, which schedules the store's next
/// turn) waits for the next `advance()`, never joining the turn under way. With a plain
/// `TestScheduler`, whether it joins depends on how fast the other thread was, so a seeded run
/// could take another path each time.
///
/// ```swift
/// let scheduler = TurnScheduler()
/// let store = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
/// scheduler.advance()   // the turn's commit starts; what its end schedules runs next turn
/// ```
final class TurnScheduler: Scheduler {
    private let inner = TestScheduler()

    private struct State {
        /// The thread running `advance()`, while it does.
        var advancing: pthread_t?
        /// Work scheduled meanwhile from other threads, handed to `inner` when the turn is over.
        var deferred: [(delay: Duration, action: @Sendable () -> Void, handle: SerialDisposable)] = []
    }

    private let state = Mutex(State())

    var now: Duration { inner.now }

    /// Runs the work that is due, and the work it schedules on this thread; work scheduled
    /// from other threads meanwhile runs at the next call.
    func advance() {
        state.withLock { $0.advancing = pthread_self() }
        inner.advance()
        let deferred = state.withLock { state in
            state.advancing = nil
            defer { state.deferred = [] }
            return state.deferred
        }
        for item in deferred where !item.handle.isDisposed {
            item.handle.inner = inner.schedule(after: item.delay, item.action)
        }
    }

    @discardableResult
    func schedule(_ action: @escaping @Sendable () -> Void) -> any Disposable {
        schedule(after: .zero, action)
    }

    @discardableResult
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        let handle = SerialDisposable()
        let deferred = state.withLock { state -> Bool in
            guard let advancing = state.advancing, pthread_equal(advancing, pthread_self()) == 0 else { return false }
            state.deferred.append((delay, action, handle))
            return true
        }
        if !deferred { handle.inner = inner.schedule(after: delay, action) }
        return handle
    }

    @discardableResult
    func schedule(after delay: Duration, repeating interval: Duration, _ action: @escaping @Sendable () -> Void) -> any Disposable {
        inner.schedule(after: delay, repeating: interval, action)
    }
}
