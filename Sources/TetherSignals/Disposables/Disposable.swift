import Synchronization

/// Something that can be cancelled: a subscription, a scheduled action, a binding.
///
/// Disposing is idempotent and thread-safe: the first `dispose()` releases what the disposable
/// held; later calls do nothing.
///
/// ```swift
/// let subscription = signal.subscribe(next: { print($0) })
/// subscription.dispose()     // no more events; the subscription frees what it held
/// ```
public protocol Disposable: AnyObject, Sendable {
    /// Cancels the work this disposable stands for and releases what it held.
    func dispose()
    /// Whether `dispose()` has been called (or the work ended by itself).
    var isDisposed: Bool { get }
}

extension Disposable {
    /// Adds this disposable to `bag`, so that it is disposed when the bag is.
    ///
    /// ```swift
    /// signal.subscribe(next: { print($0) }).disposed(by: bag)
    /// ```
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }

    /// Adds this disposable to a compound disposable.
    public func disposed(by compound: CompoundDisposable) {
        compound.add(self)
    }
}

/// Runs an action exactly once when disposed, even when `dispose()` races on several threads.
///
/// ```swift
/// let d = ActionDisposable { print("cleaned up") }
/// d.dispose()   // prints once
/// d.dispose()   // does nothing
/// ```
public final class ActionDisposable: Disposable {
    private let action: Mutex<(@Sendable () -> Void)?>
    private let disposed = Atomic<Bool>(false)

    /// Creates a disposable that runs `action` the first time it is disposed.
    public init(_ action: @escaping @Sendable () -> Void) {
        self.action = Mutex(action)
    }

    /// Creates a disposable that only records that it was disposed.
    public init() {
        self.action = Mutex(nil)
    }

    public var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    public func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Take the action out under the lock, run it outside: the action may dispose other things.
        let action = self.action.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }
}
