import Synchronization

/// Tether's one lock type: a `Synchronization.Mutex` guarding a value, with a closure API that
/// makes it impossible to forget to unlock.
///
/// It differs from using `Mutex<State>` directly only in that `State` may hold values that are
/// not `Sendable` (a signal's values, its subscribers' closures), which `Mutex.withLock`'s
/// `inout sending` parameter refuses for generic code.
///
/// Why `@unchecked Sendable` is safe here: `state` is private to this class and is read and
/// written only inside `withLock`, that is, only while `mutex` is held. The mutex orders every
/// access, so no two threads touch `state` at once. What leaves the lock is a copy that the
/// caller owns; a non-Sendable value that a producer sends on one thread and a subscriber
/// receives on another crosses threads exactly as it would through any synchronous callback,
/// and operators that move values to another scheduler require `Value: Sendable`.
///
/// Exclusivity checking of `state` is turned off (`@exclusivity(unchecked)`): every access is
/// inside `withLock`, so two accesses could only overlap if `body` called `withLock` on the same
/// lock again — which blocks (or traps) on the non-recursive mutex before any access. The
/// runtime check could never fire, and it cost two runtime calls per `withLock`.
@usableFromInline
package final class _Locked<State>: @unchecked Sendable {
    @usableFromInline let mutex = Mutex<Void>(())
    @exclusivity(unchecked) @usableFromInline var state: State

    @inlinable
    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable @inline(__always)
    package func withLock<R>(_ body: (inout State) throws -> R) rethrows -> R {
        try mutex.withLock { _ in try body(&self.state) }
    }
}

/// State of one operator stage of one subscription, touched only while that stage handles an
/// event (for example `scan`'s accumulation).
///
/// Why `@unchecked Sendable` is safe without a lock: a stage receives the events of one
/// subscription one at a time (the event grammar, which Tether's sources enforce: subjects and
/// gates deliver under work-in-progress ownership, see `WorkInProgress.swift`). Successive
/// events delivered on different threads are ordered by the acquire/release operations of that
/// ownership, so each event's handler sees what the previous one wrote, and no two handlers run
/// at once. The dynamic exclusivity check is off for the same reason.
@usableFromInline
package final class _SerialBox<Value>: @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline package var value: Value

    @inlinable
    package init(_ value: Value) {
        self.value = value
    }
}
