import Synchronization

/// The subscriptions an operator makes to its extra upstreams (the sources of merge, zip and
/// combineLatest, the inner signals of flatten), registered in the subscription's lifetime as
/// ONE disposable.
///
/// Each extra upstream runs with its own child `CompoundDisposable` (common brief, rule 2).
/// `end(_:)` disposes the child of an upstream that ended and removes it from the set in
/// O(log n) (a `_Bag`), so a long-lived subscription that sees many short-lived inners keeps
/// only the live ones — the same effect as `lifetime.remove(child)`, without its linear scan.
/// Disposing the set (when the lifetime is disposed, or when the operator fails) disposes every
/// live child; a child made after that is refused.
@usableFromInline
final class _ChildSubscriptions: Disposable {
    @usableFromInline
    struct State {
        @usableFromInline var disposed = false
        @usableFromInline var children = _Bag<CompoundDisposable>()
        @inlinable init() {}
    }

    @usableFromInline let state = _Locked(State())
    @usableFromInline let disposedFlag = Atomic<Bool>(false)

    /// Creates the set and registers it in `lifetime` (disposed at once if `lifetime` is).
    @inlinable
    init(in lifetime: CompoundDisposable) {
        lifetime.add(self)
    }

    @inlinable
    var isDisposed: Bool { disposedFlag.load(ordering: .acquiring) }

    /// A new child lifetime for one upstream, and the token that ends it; nil once the set is
    /// disposed (the operator's subscription is over: do not subscribe).
    @inlinable
    func make() -> (lifetime: CompoundDisposable, token: UInt64)? {
        let child = CompoundDisposable()
        let token = state.withLock { state -> UInt64? in
            if state.disposed { return nil }
            return state.children.insert(child)
        }
        guard let token else { return nil }
        return (child, token)
    }

    /// Ends one upstream: removes its child from the set and disposes it (outside the lock).
    @inlinable
    func end(_ token: UInt64) {
        let child = state.withLock { $0.children.remove(token: token) }
        child?.dispose()
    }

    @inlinable
    func dispose() {
        let children = state.withLock { state -> [CompoundDisposable] in
            if state.disposed { return [] }
            state.disposed = true
            disposedFlag.store(true, ordering: .releasing)
            return state.children.removeAll()
        }
        for child in children { child.dispose() }
    }
}

