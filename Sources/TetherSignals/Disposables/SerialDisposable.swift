import Synchronization

/// Holds one inner disposable at a time; replacing it disposes the previous one.
///
/// Setting an inner disposable after this one was disposed disposes the newcomer at once.
///
/// ```swift
/// let current = SerialDisposable()
/// current.inner = search("a").subscribe(next: show)
/// current.inner = search("ab").subscribe(next: show)   // the "a" search is disposed
/// ```
public final class SerialDisposable: Disposable {
    private struct State: ~Copyable {
        var disposed = false
        var inner: (any Disposable)?
    }

    private let state = Mutex(State())

    /// Creates a serial disposable, optionally holding `inner`.
    public init(_ inner: (any Disposable)? = nil) {
        state.withLock { $0.inner = inner }
    }

    public var isDisposed: Bool { state.withLock { $0.disposed } }

    /// The current inner disposable. Setting it disposes the old one (outside the lock).
    public var inner: (any Disposable)? {
        get { state.withLock { $0.inner } }
        set { swap(newValue)?.dispose() }
    }

    /// Replaces the inner disposable and returns the old one without disposing it (RAC's
    /// `swapInDisposable:`). If this disposable is already disposed, `newInner` is disposed and
    /// nil is returned.
    @discardableResult
    public func swap(_ newInner: (any Disposable)?) -> (any Disposable)? {
        let (old, rejected) = state.withLock { state -> ((any Disposable)?, Bool) in
            if state.disposed { return (nil, true) }
            let old = state.inner
            state.inner = newInner
            return (old, false)
        }
        if rejected { newInner?.dispose() }
        return old
    }

    public func dispose() {
        let inner = state.withLock { state -> (any Disposable)? in
            guard !state.disposed else { return nil }
            state.disposed = true
            defer { state.inner = nil }
            return state.inner
        }
        inner?.dispose()
    }
}

/// Disposes its inner disposable when it is itself deinitialised (RAC's `RACScopedDisposable`).
///
/// ```swift
/// final class ViewModel {
///     let subscription: ScopedDisposable
///     init(signal: Signal<Int, Never>) {
///         subscription = ScopedDisposable(signal.subscribe(next: { print($0) }))
///     }
/// }   // when the view model is freed, the subscription ends
/// ```
public final class ScopedDisposable: Disposable {
    private let inner: any Disposable

    /// Wraps `inner`, disposing it on deinit.
    public init(_ inner: any Disposable) {
        self.inner = inner
    }

    public var isDisposed: Bool { inner.isDisposed }

    public func dispose() { inner.dispose() }

    deinit { inner.dispose() }
}

extension Disposable {
    /// Wraps this disposable so that it is disposed when the wrapper is freed.
    ///
    /// ```swift
    /// self.token = signal.subscribe(next: { print($0) }).scoped()
    /// ```
    public func scoped() -> ScopedDisposable { ScopedDisposable(self) }
}

/// A bag of disposables owned by an object: everything in it is disposed when the bag is
/// freed (or when `dispose()` is called).
///
/// ```swift
/// final class Screen {
///     let bag = DisposeBag()
///     init(model: Signal<String, Never>) {
///         model.subscribe(next: { print($0) }).disposed(by: bag)
///     }
/// }
/// ```
public final class DisposeBag: Sendable {
    private let compound = CompoundDisposable()

    /// Creates an empty bag.
    public init() {}

    /// Adds a disposable to the bag.
    public func insert(_ disposable: any Disposable) {
        compound.add(disposable)
    }

    /// Disposes everything in the bag now; later insertions are disposed at once.
    public func dispose() { compound.dispose() }

    /// Whether the bag has been disposed.
    public var isDisposed: Bool { compound.isDisposed }

    deinit { compound.dispose() }
}
