import Synchronization

/// A disposable that owns many others and disposes them all at once.
///
/// Adding to a compound disposable that is already disposed disposes the newcomer at once. The
/// children are disposed outside the lock, so a child may safely dispose (or add to) its parent.
///
/// ```swift
/// let all = CompoundDisposable()
/// all.add(first.subscribe(next: { print($0) }))
/// all.add { print("cleanup") }
/// all.dispose()   // disposes both, in the order they were added
/// ```
public final class CompoundDisposable: Disposable {
    /// The children, oldest first. Most subscriptions own exactly one child (their source's
    /// cleanup), so the first child lives inline and the array is only allocated for a second
    /// one (RAC's `RACCompoundDisposable` keeps two inline slots for the same reason).
    @usableFromInline
    struct Storage: ~Copyable {
        var disposed = false
        var first: (any Disposable)?
        var rest: [any Disposable] = []

        mutating func append(_ child: any Disposable) {
            if first == nil, rest.isEmpty { first = child } else { rest.append(child) }
        }

        mutating func remove(_ child: any Disposable) {
            if let index = rest.lastIndex(where: { $0 === child }) {
                rest.remove(at: index)
            } else if let first, first === child {
                // Keep the order: the oldest of the rest becomes the first.
                self.first = rest.isEmpty ? nil : rest.removeFirst()
            }
        }

        /// The number of children.
        var count: Int { (first == nil ? 0 : 1) + rest.count }

        mutating func takeAll() -> [any Disposable] {
            defer {
                first = nil
                rest = []
            }
            guard let first else { return rest }
            return [first] + rest
        }
    }

    @usableFromInline let storage = Mutex(Storage())
    @usableFromInline let disposedFlag = Atomic<Bool>(false)

    /// Creates an empty compound disposable.
    public init() {}

    /// Creates a compound disposable owning `disposables`.
    public init(_ disposables: [any Disposable]) {
        storage.withLock { storage in
            for child in disposables { storage.append(child) }
        }
    }

    @inlinable
    public var isDisposed: Bool { disposedFlag.load(ordering: .acquiring) }

    /// Adds a child; if this disposable is already disposed, the child is disposed immediately.
    public func add(_ disposable: (any Disposable)?) {
        guard let disposable else { return }
        let added = storage.withLock { storage -> Bool in
            guard !storage.disposed else { return false }
            storage.append(disposable)
            return true
        }
        if !added { disposable.dispose() }
    }

    /// Adds an action to run when this disposable is disposed, and returns its disposable
    /// (which can be removed again with `remove(_:)`).
    @discardableResult
    public func add(_ action: @escaping @Sendable () -> Void) -> ActionDisposable {
        let disposable = ActionDisposable(action)
        add(disposable)
        return disposable
    }

    /// Removes a child without disposing it (for example, an inner subscription that ended).
    public func remove(_ disposable: any Disposable) {
        storage.withLock { $0.remove(disposable) }
    }

    public func dispose() {
        let children = storage.withLock { storage -> [any Disposable] in
            guard !storage.disposed else { return [] }
            storage.disposed = true
            disposedFlag.store(true, ordering: .releasing)
            return storage.takeAll()
        }
        for child in children { child.dispose() }
    }
}
