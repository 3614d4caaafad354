import Synchronization

/// One end of a two-way channel (ReactiveCocoa's `RACChannelTerminal`): `signal` sends the
/// values that arrive from the other end; `sendNext(_:)` sends a value to the other end.
///
/// Bind two terminals with `bind(_:_:)` to keep both sides in step, for example a model
/// property and a form field.
///
/// ```swift
/// let field = Channel<Int>()
/// bind(channel(invoice, \.quantity), field.following)
/// field.leading.sendNext(3)          // invoice.quantity == 3
/// ```
public final class ChannelTerminal<Value>: Subscriber, Sendable {
    /// The values arriving at this end.
    public let signal: Signal<Value, Never>
    private let send: @Sendable (Value) -> Void

    /// Creates a terminal from the signal of arriving values and the function that sends a
    /// value to the other end.
    public init(signal: Signal<Value, Never>, send: @escaping @Sendable (Value) -> Void) {
        self.signal = signal
        self.send = send
    }

    /// Sends `value` to the other end.
    public func sendNext(_ value: Value) { send(value) }
    /// A channel's values cannot fail.
    public func sendError(_ error: Never) {}
    /// Completion is not forwarded: a channel lives as long as its ends are bound.
    public func sendCompleted() {}

    /// A terminal for another type: values arriving here are transformed by `forward`, values
    /// sent from there are transformed back by `backward` (which may refuse a value by returning
    /// nil: nothing is sent). Used to connect a text field to a number property.
    ///
    /// ```swift
    /// let quantityText = channel(invoice, \.quantity).map(forward: { String($0) }, backward: { Int($0) })
    /// ```
    public func map<Other>(
        forward: @escaping @Sendable (Value) -> Other,
        backward: @escaping @Sendable (Other) -> Value?
    ) -> ChannelTerminal<Other> {
        ChannelTerminal<Other>(signal: signal.map(forward)) { [send] other in
            if let value = backward(other) { send(value) }
        }
    }
}

/// A two-way channel with two ends (ReactiveCocoa's `RACChannel`): values sent to `leading`
/// arrive at `following` (the latest one is replayed to new subscribers of `following`), and
/// values sent to `following` arrive at `leading`.
///
/// A form field owns a channel: it shows the values arriving at `leading` and sends the user's
/// edits to `leading`; the app binds `following` to a model property.
///
/// ```swift
/// let channel = Channel<String>()
/// channel.following.signal.subscribe(next: { print("edited:", $0) })
/// channel.leading.sendNext("Ada")   // edited: Ada
/// ```
public final class Channel<Value>: Sendable {
    /// The end owned by the producer of values (for example a widget).
    public let leading: ChannelTerminal<Value>
    /// The end handed to whoever binds the channel (for example to a model property).
    public let following: ChannelTerminal<Value>

    /// Creates a channel.
    public init() {
        let toFollowing = ReplaySubject<Value, Never>(capacity: 1)
        let toLeading = Subject<Value, Never>()
        leading = ChannelTerminal(signal: toLeading.signal) { toFollowing.sendNext($0) }
        following = ChannelTerminal(signal: toFollowing.signal) { toLeading.sendNext($0) }
    }
}

/// A channel terminal for a model property (ReactiveCocoa's `RACChannelTo(model, keyPath)`):
/// its signal sends the property's current value and every change; values sent to it are
/// assigned to the property. A value it assigns is not sent back out through its own signal,
/// so two bound channels do not echo or loop, even for values that are not `Equatable`. A
/// correction is sent: if an observer of the property changes it while the assigned value is
/// being delivered (a clamp, say), the new value goes out through the signal, to the other end.
/// (An assignment made while the property is already being delivered is sent on when its value
/// is delivered: the other end sent that value, so it goes no further.)
///
/// ```swift
/// observe(invoice, \.quantity).subscribe(with: invoice) { invoice, quantity in
///     if quantity > 10 { invoice.quantity = 10 }
/// }
/// bind(channel(invoice, \.quantity), quantityField.following)
/// quantityField.leading.sendNext(15)   // invoice.quantity == 10, and the field receives 10
/// ```
///
/// The terminal holds the model weakly; its signal completes when the model is freed. Values
/// must be sent on the model's thread (a value sent from another thread is refused and
/// reported to `BindingDiagnostics`).
///
/// ```swift
/// bind(channel(invoice, \.customer), customerField.following)
/// ```
public func channel<M: Model, V>(_ model: M, _ keyPath: ReferenceWritableKeyPath<M, V>) -> ChannelTerminal<V> {
    _channel(model, _sendableKeyPath(keyPath), values: observe(model, keyPath))
}

/// A channel terminal for an `Equatable` model property (see the general form).
public func channel<M: Model, V: Equatable>(_ model: M, _ keyPath: ReferenceWritableKeyPath<M, V>) -> ChannelTerminal<V> {
    _channel(model, _sendableKeyPath(keyPath), values: observe(model, keyPath))
}

func _channel<M: Model, V>(
    _ model: M,
    _ keyPath: ReferenceWritableKeyPath<M, V> & Sendable,
    values: Signal<V, Never>
) -> ChannelTerminal<V> {
    let box = _WeakModel(model)
    let assignments = _ChannelAssignments()
    let modelName = String(describing: M.self)
    let (propertyName, assign) = _assigner(M.self, keyPath)
    return ChannelTerminal(signal: assignments.leavingOutOwnDeliveries(values)) { value in
        guard let model = box.model else { return }
        guard model._$registrar.isOnOwner else {
            BindingDiagnostics.report(.wrongThread(model: modelName, property: propertyName))
            return
        }
        assignments.assigning { assign(model, value) }
    }
}

/// The assignments a model property's channel terminal makes, so that its signal can leave out
/// the delivery of each assigned value (the echo) and nothing else.
///
/// While the terminal assigns a value, the first value that reaches a subscription of its
/// signal is the assigned one: the setter delivers it to every observer before any change an
/// observer makes meanwhile, which the model delivers after that delivery, still inside the
/// setter (see `ModelRegistrar.notify`). So each subscription drops exactly one value per
/// assignment, the first, and passes the later ones: the corrections. No comparison is needed,
/// so values need not be `Equatable`. An assignment that delivers nothing while it runs (an
/// equal value, a property already being delivered, an open transaction) drops nothing: a value
/// delivered after it (after the current delivery, or at the end of the transaction) is sent,
/// which at worst sends the other end the value it sent. For a settable computed property whose
/// setter writes several tracked properties, the first recomputed value is the one dropped.
///
/// Everything here happens on the model's thread (the terminal assigns only there, and the model
/// delivers there), so the atomics only make the state `Sendable`; relaxed ordering is enough.
final class _ChannelAssignments: Sendable {
    /// The number of the assignment under way, 0 when none is.
    private let current = Atomic<Int>(0)
    /// The number of the last assignment started.
    private let last = Atomic<Int>(0)

    /// Runs `assign` as a new assignment. An assignment made while another is under way (from an
    /// observer) is numbered separately; the outer one resumes when it ends.
    func assigning(_ assign: () -> Void) {
        let number = last.add(1, ordering: .relaxed).newValue
        let outer = current.exchange(number, ordering: .relaxed)
        assign()
        current.store(outer, ordering: .relaxed)
    }

    /// `values` without the delivery of each assigned value: each subscription drops the first
    /// value it receives during each assignment.
    func leavingOutOwnDeliveries<V>(_ values: Signal<V, Never>) -> Signal<V, Never> {
        let upstream = values._run
        return Signal(_unchecked: { [self] sink, lifetime in
            // The number of the assignment whose value this subscription dropped last. A
            // subscription made during an assignment starts with it: what the assignment
            // delivered before is not its to drop, and its first value is the current one.
            let dropped = _AtomicBox()
            dropped.value.store(current.load(ordering: .relaxed), ordering: .relaxed)
            upstream({ [self] event in
                if case .next = event {
                    let number = current.load(ordering: .relaxed)
                    if number != 0, dropped.value.exchange(number, ordering: .relaxed) != number { return }
                }
                sink(event)
            }, lifetime)
        })
    }
}

/// Shares one atomic between closures.
final class _AtomicBox: Sendable {
    let value = Atomic<Int>(0)
}

/// Binds two channel terminals so that each receives what the other sends (ReactiveCocoa's
/// `RACChannelTo(a) = RACChannelTo(b)`). `first` is the source of truth: its current value
/// reaches `second` first; after that, changes flow both ways.
///
/// ```swift
/// bind(channel(invoice, \.quantity), quantityField.following)
/// ```
@discardableResult
public func bind<Value>(_ first: ChannelTerminal<Value>, _ second: ChannelTerminal<Value>) -> any Disposable {
    let both = CompoundDisposable()
    both.add(first.signal.subscribe(next: { second.sendNext($0) }))
    both.add(second.signal.subscribe(next: { first.sendNext($0) }))
    return both
}
