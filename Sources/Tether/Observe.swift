import CTetherThread
import Synchronization

/// A weak reference to a model, carried by signals and bindings so they never keep it alive.
///
/// Why `@unchecked Sendable` is safe: the box is immutable apart from the weak reference, which
/// the runtime reads and clears atomically. The model it returns is used only on the model's
/// owner thread: observation subscriptions and bindings check `ModelRegistrar.isOnOwner`
/// before touching it (see `observe(_:_:)` and `bind(_:to:_:)`), and notifications run
/// synchronously on the thread that changed the model.
@usableFromInline
final class _WeakModel<M: AnyObject>: @unchecked Sendable {
    @usableFromInline weak let model: M?
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
/// Subscribe where the model belongs: the thread that made it, the actor it was made on (or,
/// for a class isolated to a global actor, that actor), or where `adopt(_:)` moved it.
@inlinable
public func observe<M: Model, V: Equatable>(_ model: M, _ keyPath: KeyPath<M, V>) -> Signal<V, Never> {
    let keyPath = _sendableKeyPath(keyPath)
    let schema = M._$schema
    if let index = schema.index(of: keyPath) { return _observeStored(model, keyPath, index: index) }
    return _observeComputed(model, keyPath, getter: schema._getter(for: keyPath, as: V.self), sameness: _Equal<V>.self)
}

/// The signal of one property of a model whose values are not `Equatable`: like the
/// `Equatable` form, but a computed property sends each recomputed value, even an unchanged one.
///
/// ```swift
/// observe(order, \.lines).subscribe(next: { render($0) })
/// ```
@inlinable
public func observe<M: Model, V>(_ model: M, _ keyPath: KeyPath<M, V>) -> Signal<V, Never> {
    let keyPath = _sendableKeyPath(keyPath)
    let schema = M._$schema
    if let index = schema.index(of: keyPath) { return _observeStored(model, keyPath, index: index) }
    return _observeComputed(model, keyPath, getter: schema._getter(for: keyPath, as: V.self), sameness: _NeverEqual<V>.self)
}

/// The signal of a tracked stored property. Inlinable so that the per-change closure is
/// specialised for the value type in the caller's module (no generic metadata lookups per change).
@inlinable
func _observeStored<M: Model, V>(_ model: M, _ keyPath: KeyPath<M, V> & Sendable, index: Int) -> Signal<V, Never> {
    // Both stage functions capture only the source, which is then their context: making the
    // signal allocates the source and nothing else.
    let source = _StoredSource(model, keyPath, index: index)
    return Signal(_unchecked: { sink, lifetime in source.run(sink, lifetime) }, direct: { next, _, completed in
        source.subscribe(next: next, completed: completed)
    })
}

/// What a stored property's signal needs: the model, the key path and the property's index.
///
/// The model is held by an unowned count (`tether_reference_retain`), not a weak reference: the
/// signal never keeps the model alive, as with a weak one, and the model needs no side table
/// for it (a weak reference gives it one, 48 bytes, for good).
///
/// Why `@unchecked Sendable` is safe: every field is immutable; the model is reached only
/// through `tether_reference_try_retain`, which is atomic and safe from any thread while the
/// unowned count is held, and is then used only on its owner (`_checkOwner`).
@usableFromInline
final class _StoredSource<M: Model, V>: @unchecked Sendable {
    /// The model's address, held by an unowned count: its memory stays valid until this object
    /// is freed, and `model` can tell whether it is still alive.
    @usableFromInline let reference: UnsafeMutableRawPointer
    @usableFromInline let keyPath: KeyPath<M, V> & Sendable
    @usableFromInline let index: Int

    @inlinable
    init(_ model: M, _ keyPath: KeyPath<M, V> & Sendable, index: Int) {
        reference = Unmanaged.passUnretained(model).toOpaque()
        tether_reference_retain(reference)
        self.keyPath = keyPath
        self.index = index
    }

    deinit {
        tether_reference_release(reference)
    }

    /// The model, retained, if it is still alive.
    @inlinable
    var model: M? {
        guard tether_reference_try_retain(reference) else { return nil }
        return Unmanaged<M>.fromOpaque(reference).takeRetainedValue()
    }

    /// Starts a subscription through its sink.
    @inlinable
    func run(_ sink: @escaping @Sendable (Event<V, Never>) -> Void, _ lifetime: CompoundDisposable) {
        guard let model else {
            sink(.completed)
            return
        }
        _checkOwner(model._$registrar, M.self, keyPath)
        let observer = _ClosureObserver(
            onChange: { _, _, pointer in sink(.next(pointer.assumingMemoryBound(to: V.self).pointee)) },
            onEnd: { sink(.completed) }
        )
        lifetime.add(model._$registrar.addObserver(index: index, observer))
        // Tether's own read: not reported to Observation (see `_quietly`).
        sink(.next(_quietly { model[keyPath: keyPath] }))
    }

    /// The same, for `subscribe(next:error:completed:)` (see `Signal._runDirect`): the
    /// registrar's observer, which holds the subscriber's closures and calls them, and the
    /// disposable the subscriber holds (no sink, no subscriber object, no closure contexts).
    /// Each value goes straight to `next`.
    @inlinable
    func subscribe(next: (@Sendable (V) -> Void)?, completed: (@Sendable () -> Void)?) -> any Disposable {
        guard let model else {
            completed?()
            return _PropertySubscription<V>.ended
        }
        _checkOwner(model._$registrar, M.self, keyPath)
        let subscription = completed.map { _EndingPropertySubscription<V>(next: next, completed: $0) } ?? _PropertySubscription<V>(next: next)
        model._$registrar.addObserver(slot: index, subscription)
        // Tether's own read: not reported to Observation (see `_quietly`).
        subscription.receive(_quietly { model[keyPath: keyPath] })
        return _SubscriptionDisposal(subscription)
    }
}

/// The registrar's observer of a stored property for a subscription made by
/// `subscribe(next:error:completed:)` on its signal: it holds the subscriber's `next`.
///
/// `next` is a `let`: a delivery calls it without retaining and releasing it (a `var` would
/// be retained and released around every call: a fifth of W5a's time). So the subscriber does
/// not hold this object, which it could keep after disposing (its closures would then stay, and
/// a closure that holds its subscriber would keep both alive): it holds a
/// `_SubscriptionDisposal`, which keeps this object's memory but not the object, so the
/// closures go when the registrar lets go of the observer (when the subscription is disposed,
/// or the model freed).
///
/// Why `@unchecked Sendable` is safe: `next` is immutable and `Sendable`; values arrive on the
/// model's owner only.
@usableFromInline
class _PropertySubscription<V>: _SlotObserver, @unchecked Sendable {
    @usableFromInline final let next: (@Sendable (V) -> Void)?

    @inlinable
    init(next: (@Sendable (V) -> Void)?) {
        self.next = next
        // Captures nothing: it finds the subscription in its first argument.
        super.init(onChange: { observer, _, pointer in
            unsafeDowncast(observer, to: _PropertySubscription<V>.self).next?(pointer.assumingMemoryBound(to: V.self).pointee)
        })
    }

    /// A subscription that has ended (of a model freed before it was subscribed to).
    @usableFromInline static var ended: any Disposable {
        let disposable = CompoundDisposable()
        disposable.dispose()
        return disposable
    }

    /// The value at subscription, unless the subscription has ended meanwhile.
    @inlinable
    final func receive(_ value: V) {
        if isLive { next?(value) }
    }
}

/// The same, for a subscriber that is told when the model is freed (`completed`).
///
/// Why `@unchecked Sendable` is safe: as for `_PropertySubscription`; `completed` is read and
/// cleared only while the model is being freed, or on the owner once the subscription has
/// ended (see `_SlotObserver`).
@usableFromInline
final class _EndingPropertySubscription<V>: _PropertySubscription<V>, @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline var completed: (@Sendable () -> Void)?

    @inlinable
    init(next: (@Sendable (V) -> Void)?, completed: @escaping @Sendable () -> Void) {
        self.completed = completed
        super.init(next: next)
    }

    @usableFromInline
    override func modelEnded() {
        completed?()
    }

    @usableFromInline
    override func retire() {
        completed = nil
    }
}

/// The disposable of a `_PropertySubscription`: it holds the observer by an unowned count
/// (`tether_reference_retain`: its memory, not the object), so that the subscriber who keeps
/// the disposable keeps none of its closures once the registrar has let go of the observer.
/// One word: the observer's address, with bit 0 set once disposed.
///
/// It is `Sendable` as it stands (an `Atomic`); the observer it points to is reached only through
/// `tether_reference_try_retain`, which is atomic and safe from any thread while the unowned
/// count is held.
@usableFromInline
final class _SubscriptionDisposal: Disposable {
    @usableFromInline let bits: Atomic<UInt>

    @inlinable
    init(_ observer: _SlotObserver) {
        let address = Unmanaged.passUnretained(observer).toOpaque()
        tether_reference_retain(address)
        bits = Atomic(UInt(bitPattern: address))
    }

    deinit {
        tether_reference_release(address)
    }

    /// The observer's address.
    @usableFromInline
    var address: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: bits.load(ordering: .relaxed) & ~1)! }

    /// The observer, retained, if it is still alive.
    func observer() -> _SlotObserver? {
        guard tether_reference_try_retain(address) else { return nil }
        return Unmanaged<_SlotObserver>.fromOpaque(address).takeRetainedValue()
    }

    /// Whether the subscription has ended: disposed, or its model freed (an observer that is
    /// no longer alive has ended: the registrar lets go of an observer only then).
    @usableFromInline
    var isDisposed: Bool {
        bits.load(ordering: .acquiring) & 1 != 0 || observer()?.isDisposed ?? true
    }

    @usableFromInline
    func dispose() {
        guard bits.bitwiseOr(1, ordering: .acquiringAndReleasing).oldValue & 1 == 0 else { return }
        observer()?.dispose()
    }
}

@usableFromInline
func _checkOwner(_ registrar: borrowing ModelRegistrar, _ type: Any.Type, _ keyPath: AnyKeyPath) {
    if _slowPath(!registrar.isOnOwner) { _offOwnerObserve(registrar, type, keyPath) }
}

/// Stops the process: an observation of `keyPath` was subscribed off the model's owner. The
/// message names the property (`observe(Invoice.total)`).
@usableFromInline @inline(never)
func _offOwnerObserve(_ registrar: borrowing ModelRegistrar, _ type: Any.Type, _ keyPath: AnyKeyPath) -> Never {
    let name = (type as? any Model.Type).map { describe(keyPath, of: $0) } ?? "\(type), \(keyPath)"
    _offOwner(registrar, "observe(\(name)) subscribed")
}

/// `keyPath` in words, by the schema of `type`.
private func describe<M: Model>(_ keyPath: AnyKeyPath, of type: M.Type) -> String {
    M._$schema.describe(keyPath)
}

/// Property `index` of `type` in words (`Invoice.note`), for a message.
func _propertyName(_ index: Int, of type: AnyObject.Type) -> String {
    func name<M: Model>(_: M.Type) -> String? {
        index < M._$schema.properties.count ? "\(M._$schema.name).\(M._$schema.properties[index].name)" : nil
    }
    return (type as? any Model.Type).flatMap { name($0) } ?? "property \(index) of \(type)"
}

/// Stops the process: `what` happened where the model does not belong. The message says where
/// it belongs and what to do.
@usableFromInline
func _offOwner(_ registrar: borrowing ModelRegistrar, _ what: @autoclosure () -> String) -> Never {
    preconditionFailure(
        "Tether: \(what()) off the model's owner; the model belongs to \(registrar.ownerDescription). "
            + "Use it there (for example subscribe inside `Task { @MainActor in ... }` for a model of the main actor, "
            + "or deliver on a scheduler that runs there), or adopt(_:) it where it is now used"
    )
}

/// The signal of a computed property or nested path. Inlinable so that the observer (its
/// getter, its comparison, its callbacks) is specialised for the model and value types in the
/// caller's module. `getter` is the property's getter when the schema records it (a computed
/// property declared in the class body); otherwise the key path is evaluated (a nested path, or
/// a property declared in an extension).
@inlinable
func _observeComputed<M: Model, V, Same: _Sameness>(
    _ model: M,
    _ keyPath: KeyPath<M, V> & Sendable,
    getter: _Getter<M, V>?,
    sameness _: Same.Type
) -> Signal<V, Never> where Same.Value == V {
    // As in `_observeStored`: the stage functions' only capture is the source.
    let source = _ComputedSource<M, V, Same>(model, keyPath, get: getter ?? _Getter { $0[keyPath: keyPath] })
    return Signal(_unchecked: { sink, lifetime in source.run(sink, lifetime) }, direct: { next, error, completed in
        let lifetime = CompoundDisposable()
        source.run(_TerminalSubscriber(next: next, error: error, completed: completed, lifetime: lifetime))
        return lifetime
    })
}

/// What a computed property's signal needs: the model (held weakly), the key path (for
/// messages) and the getter.
///
/// Why `@unchecked Sendable` is safe: as for `_StoredSource` (`get` is immutable and Sendable).
@usableFromInline
final class _ComputedSource<M: Model, V, Same: _Sameness>: @unchecked Sendable where Same.Value == V {
    @usableFromInline weak let model: M?
    @usableFromInline let keyPath: KeyPath<M, V> & Sendable
    @usableFromInline let get: _Getter<M, V>

    @inlinable
    init(_ model: M, _ keyPath: KeyPath<M, V> & Sendable, get: _Getter<M, V>) {
        self.model = model
        self.keyPath = keyPath
        self.get = get
    }

    /// Starts a subscription through its sink.
    @inlinable
    func run(_ sink: @escaping @Sendable (Event<V, Never>) -> Void, _ lifetime: CompoundDisposable) {
        start(_SinkOutput(sink: sink), lifetime)
    }

    /// The same, for `subscribe(next:error:completed:)`: values go straight to the subscriber.
    @inlinable
    func run(_ terminal: _TerminalSubscriber<V, Never>) {
        start(_TerminalOutput(terminal: terminal), terminal.lifetime)
    }

    /// Both: observes the property for `output` until `lifetime` ends, starting with its
    /// current value.
    @inlinable
    func start<Output: _ComputedOutput>(_ output: Output, _ lifetime: CompoundDisposable) where Output.Value == V {
        guard let model else {
            output.complete()
            return
        }
        _checkOwner(model._$registrar, M.self, keyPath)
        let observation = _ComputedObservation<M, V, Same, Output>(model: model, get: get, output: output)
        _tieToModel(model._$registrar.side, lifetime, ending: { output.complete() }, cancel: { observation.cancel() })
        observation.recompute()
    }
}

/// Ties a computed observation to its model and its subscription: the model's end completes it
/// (`ending`), and the subscription's end cancels it and forgets the model's `ending`.
@usableFromInline
func _tieToModel(
    _ side: _RegistrarSide,
    _ lifetime: CompoundDisposable,
    ending: @escaping @Sendable () -> Void,
    cancel: @escaping @Sendable () -> Void
) {
    let ending = ActionDisposable(ending)
    side.lifetime.add(ending)
    let weakSide = _WeakModel(side)
    lifetime.add {
        cancel()
        ending.dispose()
        weakSide.model?.lifetime.remove(ending)
    }
}

/// How a computed observer tells that a recomputed value is unchanged (and sends nothing):
/// `==` for an `Equatable` value, never for another. A type parameter of the observer rather
/// than a stored closure, so the comparison is specialised and inlined with it.
@usableFromInline
protocol _Sameness: SendableMetatype {
    associatedtype Value
    static func same(_ a: Value, _ b: Value) -> Bool
}

/// `==`.
@usableFromInline
enum _Equal<Value: Equatable>: _Sameness {
    @inlinable static func same(_ a: Value, _ b: Value) -> Bool { a == b }
}

/// Never the same: every recomputed value is sent.
@usableFromInline
enum _NeverEqual<Value>: _Sameness {
    @inlinable static func same(_: Value, _: Value) -> Bool { false }
}

/// Where a computed observation sends its values and its completion: the subscription's sink,
/// or its subscriber. A type parameter of the observer, so that the sending is specialised and
/// inlined with it.
@usableFromInline
protocol _ComputedOutput: Sendable {
    associatedtype Value
    func send(_ value: Value)
    func complete()
}

/// Sends values to the subscription's sink (the next stage).
@usableFromInline
struct _SinkOutput<Value>: _ComputedOutput {
    @usableFromInline let sink: @Sendable (Event<Value, Never>) -> Void
    @inlinable init(sink: @escaping @Sendable (Event<Value, Never>) -> Void) { self.sink = sink }
    @inlinable func send(_ value: Value) { sink(.next(value)) }
    @inlinable func complete() { sink(.completed) }
}

/// Sends values straight to the subscriber (see `Signal._runDirect`).
@usableFromInline
struct _TerminalOutput<Value>: _ComputedOutput {
    @usableFromInline let terminal: _TerminalSubscriber<Value, Never>
    @inlinable init(terminal: _TerminalSubscriber<Value, Never>) { self.terminal = terminal }
    @inlinable func send(_ value: Value) { terminal.receiveNext(value) }
    @inlinable func complete() { terminal.receive(.completed) }
}

/// Carries a non-Sendable value into a `@Sendable` closure.
///
/// Why `@unchecked Sendable` is safe where Tether uses it: each use either wraps an immutable
/// function that captures nothing mutable (an `Equatable` witness, `==`), or a value or closure
/// that is only used on the model's owner thread, checked with `isOnOwner` before use, or
/// an event handed to a serial scheduler, whose queue orders the hand-over (the sender keeps
/// no reference to it).
@usableFromInline
struct _UncheckedSendable<T>: @unchecked Sendable {
    @usableFromInline let value: T
    @inlinable init(_ value: T) { self.value = value }
}

/// Observes a computed property (or nested path): evaluates it while recording which tracked
/// properties it reads, observes those, and re-evaluates (and re-records) when one changes.
///
/// Its methods are inlinable, so the per-update path (`dependencyChanged`, `recompute`) runs as
/// code specialised for `M` and `V`: the observers it registers call it from closures made in
/// that specialised code.
///
/// The model is held weakly (observing never keeps it alive). Loading a weak reference and
/// releasing what it returns are atomic operations on the model's side table, about half the
/// cost of an update; so when the change comes from the model's own registrar, the model is
/// used without them: a registrar delivers changes only while a write of its model runs (the
/// setter, or the end of a transaction that holds the model), so the model is alive then.
///
/// Why `@unchecked Sendable` is safe: `recompute()` and the change callbacks run on the model's
/// thread (notifications are synchronous on the writing thread, and writes happen on the
/// owner thread); the only thing another thread may do is `cancel()`, which only touches the
/// recorder's atomic flag and its lock-protected list of observers.
@usableFromInline
final class _ComputedObservation<M: Model, V, Same: _Sameness, Output: _ComputedOutput>: _Recomputable, @unchecked Sendable
where Same.Value == V, Output.Value == V {
    // `let`: a weak `var` would be loaded with a dynamic exclusivity check on every update.
    @usableFromInline weak let model: M?
    /// The same model, unretained: only used while it is known to be alive (see above).
    @usableFromInline let unretainedModel: Unmanaged<M>
    /// The model, by identity: changes its registrar delivers come with the model alive.
    @usableFromInline let modelID: ObjectIdentifier
    @usableFromInline let get: _Getter<M, V>
    /// Where values go: the subscription's sink, or (see `Signal._runDirect`) its subscriber.
    @usableFromInline let output: Output
    // Touched only on the owner thread (see above): no dynamic exclusivity check.
    @exclusivity(unchecked) @usableFromInline var last: V?
    @usableFromInline let recorder = _DependencyRecorder()

    @inlinable
    init(model: M, get: _Getter<M, V>, output: Output) {
        self.model = model
        self.unretainedModel = Unmanaged.passUnretained(model)
        self.modelID = ObjectIdentifier(model)
        self.get = get
        self.output = output
    }

    @inlinable
    func cancel() {
        recorder.cancel()
    }

    /// A dependency changed: recompute now, or at the end of the batch being run.
    /// `modelIsAlive`: the change comes from the model's own registrar (see above).
    @inlinable @inline(__always)
    func dependencyChanged(modelIsAlive: Bool) {
        if recorder.isCancelled { return }
        if _ThreadContext.batchesRunning, _deferRecompute(self) { return }
        if modelIsAlive {
            unretainedModel._withUnsafeGuaranteedRef { evaluate($0) }
        } else {
            recompute()
        }
    }

    @inlinable
    func recompute() {
        guard !recorder.isCancelled, let model else { return }
        evaluate(model)
    }

    /// Evaluates the getter, recording its reads, and sends the value if it changed. Not
    /// cancelled: the callers checked.
    @inlinable @inline(__always)
    func evaluate(_ model: M) {
        if recorder.isEvaluating {
            // The getter itself changed a property it depends on: evaluate again when it returns.
            recorder.needsEvaluation = true
            return
        }
        let evaluation = recorder.begin()
        var value = get(model)
        if recorder.end(evaluation) { commitDependencies() }
        if recorder.needsEvaluation { value = evaluateAgain(model) }
        if let last, Same.same(last, value) { return }
        last = value
        output.send(value)
    }

    /// Evaluates again while the getter keeps changing what it reads (see `evaluate`).
    @inlinable @inline(never)
    func evaluateAgain(_ model: M) -> V {
        var rounds = 1
        var value: V
        repeat {
            rounds += 1
            precondition(rounds <= 1_000, "Tether: the getter observed as \(M.self) -> \(V.self) changes what it reads on every evaluation")
            recorder.needsEvaluation = false
            let evaluation = recorder.begin()
            value = get(model)
            if recorder.end(evaluation) { commitDependencies() }
        } while recorder.needsEvaluation
        return value
    }

    /// Observes what the evaluation that just ended read (see `_DependencyRecorder.commit`).
    @inlinable @inline(never)
    func commitDependencies() {
        let recorder = self.recorder
        let modelID = self.modelID
        recorder.commit(makeObserver: { model in
            // One closure per case, each capturing only `self`.
            if model == modelID {
                return _ClosureObserver(
                    onChange: { [self] _, _, _ in dependencyChanged(modelIsAlive: true) },
                    onEnd: { recorder.invalidate() }
                )
            }
            return _ClosureObserver(
                onChange: { [self] _, _, _ in dependencyChanged(modelIsAlive: false) },
                onEnd: { recorder.invalidate() }
            )
        })
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
        let observer = _ClosureObserver(
            onChange: { _, index, _ in sink(.next(ModelChange(property: properties[index]))) },
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
    let side = _WeakModel(model._$registrar.side)
    return Signal(_unchecked: { sink, lifetime in
        guard let side = side.model else {
            sink(.completed)
            return
        }
        let ending = ActionDisposable { sink(.completed) }
        side.lifetime.add(ending)
        let weakSide = _WeakModel(side)
        lifetime.add {
            ending.dispose()
            weakSide.model?.lifetime.remove(ending)
        }
    })
}
