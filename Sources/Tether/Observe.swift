/// A weak reference to a model, carried by signals and bindings so they never keep it alive.
///
/// Why `@unchecked Sendable` is safe: the box is immutable apart from the weak reference, which
/// the runtime reads and clears atomically. The model it returns is used only on the model's
/// owner thread: observation subscriptions and bindings check `ModelRegistrar.isOnOwnerThread`
/// before touching it (see `observe(_:_:)` and `bind(_:to:_:)`), and notifications run
/// synchronously on the thread that changed the model.
@usableFromInline
final class _WeakModel<M: AnyObject>: @unchecked Sendable {
    @usableFromInline weak var model: M?
    @inlinable init(_ model: M) { self.model = model }
}

/// The signal of one property of a model (ReactiveCocoa's `RACObserve`): sends the current value
/// on subscription, then each new value, synchronously, just after it is set (so a subscriber
/// reading the model sees the new value). Setting an equal value sends nothing.
///
/// Works for stored properties, computed properties (the getter's dependencies are tracked
/// automatically, and re-tracked on every recomputation) and nested paths such as
/// `\.customer.name` (which follow the current customer). The signal holds the model weakly and
/// completes when the model is freed.
///
/// ```swift
/// observe(invoice, \.total).subscribe(next: { print("total", $0) })
/// invoice.quantity = 3   // total 28.5
/// ```
///
/// Subscribe on the model's thread (the thread that created it, or that `adopt(_:)`ed it).
@inlinable
public func observe<M: Model, V: Equatable>(_ model: M, _ keyPath: KeyPath<M, V> & Sendable) -> Signal<V, Never> {
    if let index = M._$schema.index(of: keyPath) { return _observeStored(model, keyPath, index: index) }
    return _observeComputed(model, keyPath, isEqual: ==)
}

/// The signal of one property of a model whose values are not `Equatable`: like the
/// `Equatable` form, but a computed property sends each recomputed value, even an unchanged one.
///
/// ```swift
/// observe(order, \.lines).subscribe(next: { render($0) })
/// ```
@inlinable
public func observe<M: Model, V>(_ model: M, _ keyPath: KeyPath<M, V> & Sendable) -> Signal<V, Never> {
    if let index = M._$schema.index(of: keyPath) { return _observeStored(model, keyPath, index: index) }
    return _observeComputed(model, keyPath, isEqual: nil)
}

/// The signal of a tracked stored property. Inlinable so that the per-change closure is
/// specialised for the value type in the caller's module (no generic metadata lookups per change).
@inlinable
func _observeStored<M: Model, V>(_ model: M, _ keyPath: KeyPath<M, V> & Sendable, index: Int) -> Signal<V, Never> {
    let box = _WeakModel(model)
    return Signal(_unchecked: { sink, lifetime in
        guard let model = box.model else {
            sink(.completed)
            return
        }
        _checkOwner(model._$registrar, M.self, keyPath)
        let observer = _SlotObserver(
            onChange: { _, pointer in sink(.next(pointer.assumingMemoryBound(to: V.self).pointee)) },
            onEnd: { sink(.completed) }
        )
        lifetime.add(model._$registrar.addObserver(index: index, observer))
        sink(.next(model[keyPath: keyPath]))
    })
}

@usableFromInline
func _checkOwner(_ registrar: ModelRegistrar, _ type: Any.Type, _ keyPath: AnyKeyPath) {
    precondition(
        registrar.isOnOwnerThread,
        "Tether: observe(\(type), \(keyPath)) subscribed off the model's thread; subscribe on its thread or adopt(_:) it"
    )
}

@usableFromInline
func _observeComputed<M: Model, V>(_ model: M, _ keyPath: KeyPath<M, V> & Sendable, isEqual: ((V, V) -> Bool)?) -> Signal<V, Never> {
    let box = _WeakModel(model)
    let isEqual = _UncheckedSendable(isEqual)
    return Signal(_unchecked: { sink, lifetime in
        guard let model = box.model else {
            sink(.completed)
            return
        }
        precondition(
            model._$registrar.isOnOwnerThread,
            "Tether: observe(\(M.self), \(keyPath)) subscribed off the model's thread; subscribe on its thread or adopt(_:) it"
        )
        let observation = _ComputedObservation(model: model, keyPath: keyPath, isEqual: isEqual.value, sink: sink)
        let ending = ActionDisposable { sink(.completed) }
        model._$registrar.lifetime.add(ending)
        let registrar = _WeakModel(model._$registrar)
        lifetime.add {
            observation.cancel()
            ending.dispose()
            registrar.model?.lifetime.remove(ending)
        }
        observation.recompute()
    })
}

/// Carries a non-Sendable value into a `@Sendable` closure.
///
/// Why `@unchecked Sendable` is safe where Tether uses it: each use either wraps an immutable
/// function that captures nothing mutable (an `Equatable` witness, `==`), or a value or closure
/// that is only used on the model's owner thread, checked with `isOnOwnerThread` before use, or
/// an event handed to a serial scheduler, whose queue orders the hand-over (the sender keeps
/// no reference to it).
struct _UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// Observes a computed property (or nested path): evaluates it while recording which tracked
/// properties it reads, observes those, and re-evaluates (and re-records) when one changes.
///
/// Why `@unchecked Sendable` is safe: `recompute()` and the change callbacks run on the model's
/// thread (notifications are synchronous on the writing thread, and writes happen on the
/// owner thread); the only thing another thread may do is `cancel()`, and the dependency list
/// that `cancel()` and `recompute()` share is behind a lock.
final class _ComputedObservation<M: Model, V>: _Recomputable, @unchecked Sendable {
    private weak var model: M?
    private let keyPath: KeyPath<M, V>
    private let isEqual: ((V, V) -> Bool)?
    private let sink: @Sendable (Event<V, Never>) -> Void
    private var last: V?
    private struct Dependency {
        let registrar: ObjectIdentifier
        let index: Int
        let removal: any Disposable
    }
    private let dependencies = _Locked<[Dependency]?>([])

    init(model: M, keyPath: KeyPath<M, V>, isEqual: ((V, V) -> Bool)?, sink: @escaping @Sendable (Event<V, Never>) -> Void) {
        self.model = model
        self.keyPath = keyPath
        self.isEqual = isEqual
        self.sink = sink
    }

    func cancel() {
        let removed = dependencies.withLock { dependencies -> [Dependency] in
            defer { dependencies = nil }
            return dependencies ?? []
        }
        for dependency in removed { dependency.removal.dispose() }
    }

    func dependencyChanged() {
        if !_ThreadContext.current.deferRecompute(self) { recompute() }
    }

    private let recorder = _DependencyRecorder()

    func recompute() {
        guard let model else { return }
        let keyPath = self.keyPath
        let value = recorder.track { model[keyPath: keyPath] }
        updateDependencies()
        if let last, let isEqual, isEqual(last, value) { return }
        last = value
        sink(.next(value))
    }

    /// Keeps the dependencies still read, observes the new ones, drops the rest. When the getter
    /// read the same properties as last time (the common case), nothing is allocated.
    private func updateDependencies() {
        defer { recorder.clear() }
        let registrars = recorder.registrars
        let indices = recorder.indices
        let unchanged = dependencies.withLock { dependencies -> Bool in
            guard let dependencies else { return true }   // cancelled: nothing to update
            guard dependencies.count == indices.count else { return false }
            for position in indices.indices {
                let dependency = dependencies[position]
                if dependency.index != indices[position]
                    || dependency.registrar != ObjectIdentifier(registrars[position]) { return false }
            }
            return true
        }
        if unchanged { return }
        // Rebuild the list in the order the getter read, reusing the observers still needed.
        var current = dependencies.withLock { $0 } ?? []
        var kept: [Dependency] = []
        for (registrar, index) in zip(registrars, indices) {
            if let position = current.firstIndex(where: { $0.registrar == ObjectIdentifier(registrar) && $0.index == index }) {
                kept.append(current.remove(at: position))
            } else {
                let observer = _SlotObserver(
                    onChange: { [weak self] _, _ in self?.dependencyChanged() },
                    onEnd: {}
                )
                kept.append(Dependency(
                    registrar: ObjectIdentifier(registrar),
                    index: index,
                    removal: registrar.addObserver(index: index, observer)
                ))
            }
        }
        let dropped = current
        let cancelled = dependencies.withLock { dependencies -> Bool in
            guard dependencies != nil else { return true }
            dependencies = kept
            return false
        }
        if cancelled { kept.forEach { $0.removal.dispose() } }
        dropped.forEach { $0.removal.dispose() }
    }
}

/// One change of a model, as sent by `changes(of:)`.
public struct ModelChange<M: Model>: Sendable {
    /// The changed property.
    public let property: ModelProperty<M>
    /// The changed property's name.
    public var name: String { property.name }
    /// The changed property's key path.
    public var keyPath: PartialKeyPath<M> & Sendable { property.keyPath }
}

/// Every change of every tracked property of a model, in the order they happen, each with its
/// property (for observers that care about all fields, such as the persistence layer). Completes
/// when the model is freed.
///
/// ```swift
/// changes(of: invoice).subscribe(next: { print("\($0.name) changed") })
/// ```
public func changes<M: Model>(of model: M) -> Signal<ModelChange<M>, Never> {
    let box = _WeakModel(model)
    return Signal(_unchecked: { sink, lifetime in
        guard let model = box.model else {
            sink(.completed)
            return
        }
        let properties = M._$schema.properties
        let observer = _SlotObserver(
            onChange: { index, _ in sink(.next(ModelChange(property: properties[index]))) },
            onEnd: { sink(.completed) }
        )
        lifetime.add(model._$registrar.addObserver(index: nil, observer))
    })
}

/// A signal that completes when `model` is freed (ReactiveCocoa's `rac_willDeallocSignal`,
/// ReactiveSwift's `Lifetime`). It holds the model weakly.
///
/// ```swift
/// ticks.take(until: lifetime(of: screenModel)).subscribe(next: { print($0) })
/// ```
public func lifetime<M: Model>(of model: M) -> Signal<Never, Never> {
    let registrar = _WeakModel(model._$registrar)
    return Signal(_unchecked: { sink, lifetime in
        guard let registrar = registrar.model else {
            sink(.completed)
            return
        }
        let ending = ActionDisposable { sink(.completed) }
        registrar.lifetime.add(ending)
        let weakRegistrar = _WeakModel(registrar)
        lifetime.add {
            ending.dispose()
            weakRegistrar.model?.lifetime.remove(ending)
        }
    })
}
