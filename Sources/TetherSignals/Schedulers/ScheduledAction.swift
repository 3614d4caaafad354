/// One piece of scheduled work, and the disposable that cancels it.
///
/// Disposing releases the action (and everything it captured) at once, even while a scheduler
/// still holds this object in its queue; when the scheduler gets to it, it finds nothing to run.
/// A one-shot action is released when it runs, so `isDisposed` is then true too ("the work ended
/// by itself"); a repeating action keeps its closure until disposed.
final class _ScheduledAction: Disposable {
    private let action: _Locked<(@Sendable () -> Void)?>
    private let repeats: Bool

    init(repeats: Bool = false, _ action: @escaping @Sendable () -> Void) {
        self.action = _Locked(action)
        self.repeats = repeats
    }

    var isDisposed: Bool { action.withLock { $0 == nil } }

    /// Runs the action, unless it was disposed (a one-shot action runs at most once).
    func run() {
        let current = action.withLock { action -> (@Sendable () -> Void)? in
            let current = action
            if !repeats { action = nil }
            return current
        }
        current?()
    }

    func dispose() {
        let released = action.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        // Freed outside the lock: what the closure captured may run code in its deinit.
        withExtendedLifetime(released) {}
    }
}
