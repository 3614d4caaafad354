import Logging

/// Why a binding ended without being disposed.
public enum BindingError: Error, CustomStringConvertible, Sendable {
    /// The bound signal failed; the model kept its last value.
    case signalFailed(model: String, property: String, error: any Error)
    /// A value arrived where the model does not belong (another thread, or off the actor that
    /// owns it); it was not assigned and the binding ended. Bind with `on:` a scheduler that
    /// runs where the model belongs, or `deliver(on:)` first.
    case wrongThread(model: String, property: String)

    public var description: String {
        switch self {
        case .signalFailed(let model, let property, let error):
            return "binding to \(model).\(property) ended: the signal failed with \(error); the model kept its last value"
        case .wrongThread(let model, let property):
            return "binding to \(model).\(property) ended: a value arrived off the model's owner (another thread, "
                + "or off the actor that owns it); bind with `on:` a scheduler that runs where the model belongs, "
                + "or adopt(_:) the model there"
        }
    }
}

/// Where binding failures go when a binding has no `onError` handler of its own: every failure is
/// sent on `errors` and logged at `warning` level by the swift-log logger labelled
/// `tether.binding`. Nothing is swallowed silently.
///
/// A failure ends its binding, so each binding logs at most once. `warning`, not `debug`: the
/// model no longer follows the signal, which is a bug to fix, and an app that never bootstraps
/// `LoggingSystem` gets swift-log's default handler (standard error, `info` and above), so the
/// message reaches the developer without any set-up. An app that wants it elsewhere, or not at
/// all, routes or filters the `tether.binding` label in its logging bootstrap.
///
/// ```swift
/// BindingDiagnostics.errors.subscribe(next: { showBanner($0.description) })
/// ```
public enum BindingDiagnostics {
    private static let subject = Subject<BindingError, Never>()

    /// Every binding failure reported without an `onError` handler.
    public static var errors: Signal<BindingError, Never> { subject.signal }

    /// Reports a failure: sends it on `errors` and logs it (`tether.binding`, `warning`).
    public static func report(_ error: BindingError) {
        subject.sendNext(error)
        TetherLogger.logger(TetherLogger.bindingLabel).warning("\(error.description)")
    }
}

/// Binds a signal to a model property (ReactiveCocoa's `RAC(target, keyPath) = signal`): each
/// value is assigned to `model[keyPath: keyPath]`.
///
/// The binding holds the model weakly and ends by itself when the model is freed. If the signal
/// fails, the binding ends, the model keeps its last value and the error is reported (to
/// `onError`, or else to `BindingDiagnostics`). Values must arrive on the model's thread:
/// pass `on:` a scheduler that runs there; a value arriving on another thread is refused (not
/// assigned, the binding ends, `BindingError.wrongThread` is reported), so a binding never
/// races with the model's owner.
///
/// ```swift
/// bind(priceField.values, to: invoice, \.unitPrice)
/// ```
@inlinable
@discardableResult
public func bind<M: Model, V, F: Error>(
    _ signal: Signal<V, F>,
    to model: M,
    _ keyPath: ReferenceWritableKeyPath<M, V>,
    on scheduler: (any Scheduler)? = nil,
    onError: (@Sendable (BindingError) -> Void)? = nil
) -> any Disposable {
    _bind(signal, to: model, _sendableKeyPath(keyPath), on: scheduler, onError: onError) { $0 }
}

/// Binds a signal of optionals to a model property; `nil` assigns `nilValue` (the `nilValue`
/// argument of ReactiveCocoa's `RAC(target, keyPath, nilValue)`).
///
/// ```swift
/// bind(parsedQuantity, to: invoice, \.quantity, nilValue: 0)
/// ```
@inlinable
@discardableResult
public func bind<M: Model, V, F: Error>(
    _ signal: Signal<V?, F>,
    to model: M,
    _ keyPath: ReferenceWritableKeyPath<M, V>,
    nilValue: V,
    on scheduler: (any Scheduler)? = nil,
    onError: (@Sendable (BindingError) -> Void)? = nil
) -> any Disposable where V: Sendable {
    _bind(signal, to: model, _sendableKeyPath(keyPath), on: scheduler, onError: onError) { $0 ?? nilValue }
}

/// Binds a signal of optionals to an optional model property; `nil` assigns `nilValue`.
///
/// ```swift
/// bind(discountField.values, to: invoice, \.discount, nilValue: 0)   // cleared field -> 0
/// ```
@inlinable
@discardableResult
public func bind<M: Model, V, F: Error>(
    _ signal: Signal<V?, F>,
    to model: M,
    _ keyPath: ReferenceWritableKeyPath<M, V?>,
    nilValue: V,
    on scheduler: (any Scheduler)? = nil,
    onError: (@Sendable (BindingError) -> Void)? = nil
) -> any Disposable where V: Sendable {
    _bind(signal, to: model, _sendableKeyPath(keyPath), on: scheduler, onError: onError) { $0 ?? nilValue }
}

/// The binding itself. Inlinable so that the per-value closure (the model check and the
/// assignment) is specialised for the value type in the caller's module.
@inlinable
func _bind<M: Model, Input, V, F: Error>(
    _ signal: Signal<Input, F>,
    to model: M,
    _ keyPath: ReferenceWritableKeyPath<M, V> & Sendable,
    on scheduler: (any Scheduler)?,
    onError: (@Sendable (BindingError) -> Void)?,
    convert: @escaping @Sendable (Input) -> V
) -> any Disposable {
    let box = _WeakModel(model)
    let modelName = String(describing: M.self)
    let (propertyName, assign) = _assigner(M.self, keyPath)
    let report: @Sendable (BindingError) -> Void = onError ?? { BindingDiagnostics.report($0) }
    let binding = SerialDisposable()
    let subscription = _onScheduler(signal, scheduler).subscribe(
        next: { value in
            guard let model = box.model else {
                binding.dispose()
                return
            }
            // The word, not `isOnOwner`: nothing is retained around the check (W8).
            guard _Owner.isCurrent(model._$registrar.ownerWord) else {
                binding.dispose()
                report(.wrongThread(model: modelName, property: propertyName))
                return
            }
            assign(model, convert(value))
        },
        error: { error in
            binding.dispose()
            report(.signalFailed(model: modelName, property: propertyName, error: error))
        },
        completed: { binding.dispose() }
    )
    _tieBinding(binding, subscription, to: model._$registrar.side)
    return binding
}

/// `signal`, or (with a scheduler) `signal` with each event handed to `scheduler` (for a
/// binding whose values arrive on another thread).
@usableFromInline
func _onScheduler<Input, F: Error>(_ signal: Signal<Input, F>, _ scheduler: (any Scheduler)?) -> Signal<Input, F> {
    guard let scheduler else { return signal }
    return Signal(_unchecked: { sink, lifetime in
        signal._run({ event in
            // Hop to the model's scheduler; a serial scheduler keeps the order. Deliveries
            // still queued when the binding ends are dropped.
            let delivery = _UncheckedSendable(event)
            scheduler.schedule { if !lifetime.isDisposed { sink(delivery.value) } }
        }, lifetime)
    })
}

/// Ends `binding` with the model (the model's lifetime disposes it), and makes disposing
/// `binding` end `subscription` and forget the model's reference to it.
@usableFromInline
func _tieBinding(_ binding: SerialDisposable, _ subscription: any Disposable, to side: _RegistrarSide) {
    side.lifetime.add(binding)
    let sideBox = _WeakModel(side)
    binding.inner = ActionDisposable {
        subscription.dispose()
        if let side = sideBox.model { side.lifetime.remove(binding) }
    }
}

extension Signal {
    /// Subscribes a closure that works on a model: it receives the model with each value, runs
    /// on the model's thread, and may capture non-`Sendable` state of that thread. The
    /// subscription holds the model weakly and ends when the model is freed; a value arriving
    /// on another thread is refused (not delivered, the subscription ends, and
    /// `BindingError.wrongThread` is reported to `BindingDiagnostics`).
    ///
    /// ```swift
    /// observe(invoice, \.quantity).subscribe(with: invoice) { invoice, quantity in
    ///     if quantity > 10 { invoice.quantity = 10 }
    /// }
    /// ```
    @discardableResult
    public func subscribe<M: Model>(
        with model: M,
        next: @escaping (M, Value) -> Void,
        error: ((M, Failure) -> Void)? = nil,
        completed: ((M) -> Void)? = nil
    ) -> any Disposable {
        let box = _WeakModel(model)
        // The closures are only called on the model's owner thread (checked below), which is
        // the thread that created them, so they are never used concurrently.
        let handlers = _UncheckedSendable((next, error, completed))
        let modelName = String(describing: M.self)
        let subscription = SerialDisposable()
        let onModelThread: @Sendable () -> M? = {
            guard let model = box.model else {
                subscription.dispose()
                return nil
            }
            guard _Owner.isCurrent(model._$registrar.ownerWord) else {
                subscription.dispose()
                BindingDiagnostics.report(.wrongThread(model: modelName, property: "subscribe(with:)"))
                return nil
            }
            return model
        }
        let inner = self.subscribe(
            next: { value in
                let sendable = _UncheckedSendable(value)
                if let model = onModelThread() { handlers.value.0(model, sendable.value) }
            },
            error: { failure in if let model = onModelThread() { handlers.value.1?(model, failure) } },
            completed: { if let model = onModelThread() { handlers.value.2?(model) } }
        )
        let side = model._$registrar.side
        side.lifetime.add(subscription)
        let sideBox = _WeakModel(side)
        subscription.inner = ActionDisposable {
            inner.dispose()
            sideBox.model?.lifetime.remove(subscription)
        }
        return subscription
    }
}

/// The name of the property at `keyPath` (for messages) and the fastest way to assign it: a
/// tracked property's generated setter is a direct call; a key-path write is much slower.
@usableFromInline
func _assigner<M: Model, V>(
    _: M.Type,
    _ keyPath: ReferenceWritableKeyPath<M, V> & Sendable
) -> (name: String, assign: @Sendable (M, V) -> Void) {
    let property = M._$schema.property(for: keyPath)
    let name = M._$schema.name(of: keyPath) ?? M._$schema.describe(keyPath)
    if let setter = property?.setter(as: V.self) {
        return (name, setter)
    }
    return (name, { model, value in model[keyPath: keyPath] = value })
}
