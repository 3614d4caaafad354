/// A stream of events over time: values of type `Value`, then at most one terminal event
/// (an error of type `Failure`, or completion). Use `Never` as the failure of signals that
/// cannot fail.
///
/// A signal is *cold*: it is a recipe, and each subscription runs the recipe anew (RAC's
/// `createSignal:`). Hot sources (events that happen whether or not anyone listens) are
/// subjects (`Subject`, `ReplaySubject`, `BehaviorSubject`); to share one run of a cold signal
/// between subscribers, use `publish()` or `share(replay:)`.
///
/// ```swift
/// let greetings = Signal<String, Never> { observer in
///     observer.sendNext("hello")
///     observer.sendNext("world")
///     observer.sendCompleted()
///     return nil
/// }
/// let subscription = greetings.map { $0.uppercased() }.subscribe(next: { print($0) })
/// // HELLO, WORLD
/// subscription.dispose()
/// ```
///
/// Signals are values (`Sendable` structs). Subscribing returns a `Disposable`; disposing it
/// stops delivery at once and releases everything the subscription held.
public struct Signal<Value, Failure: Error>: Sendable {
    /// Where a stage sends its events: the next stage of the subscription.
    public typealias _Sink = @Sendable (Event<Value, Failure>) -> Void

    /// Starts one subscription: sends events to the sink, and registers in `lifetime` what must
    /// be cleaned up when the subscription ends. `lifetime` exists before the producer runs,
    /// so a producer can see a disposal that happens while it is still sending.
    @usableFromInline package let _run: @Sendable (_ sink: @escaping _Sink, _ lifetime: CompoundDisposable) -> Void

    /// A name for debugging (see `named(_:)` and `logEvents(_:)`); nil unless you set one, so an
    /// unnamed signal costs nothing for it.
    public let name: String?

    /// Another way to start a subscription, for `subscribe(next:error:completed:)` only: the
    /// source takes the subscriber's closures itself and returns the subscription's disposable,
    /// as `_run` would start it through the subscriber's sink, without the sink's closure in
    /// between (a model property's subscription is then one object). Nil for every signal but a
    /// few sources (a model property's observation); an operator on such a source makes a
    /// signal without it.
    @usableFromInline package let _runDirect: _DirectStart?

    /// How a source starts a subscription with the subscriber's closures (see `_runDirect`).
    @usableFromInline package typealias _DirectStart = @Sendable (
        _ next: (@Sendable (Value) -> Void)?, _ error: (@Sendable (Failure) -> Void)?, _ completed: (@Sendable () -> Void)?
    ) -> any Disposable

    /// Creates a signal from its stage function. Operators in this module are built on it.
    /// The producer must respect the event grammar; public callers use `init(_:)`, which
    /// enforces it.
    @inlinable
    public init(
        _unchecked run: @escaping @Sendable (_ sink: @escaping _Sink, _ lifetime: CompoundDisposable) -> Void,
        name: String? = nil
    ) {
        self._run = run
        self.name = name
        self._runDirect = nil
    }

    /// Creates a signal from its stage function and the same stage, written for a subscriber's
    /// closures (see `_runDirect`): both must send the same events.
    @inlinable
    package init(
        _unchecked run: @escaping @Sendable (_ sink: @escaping _Sink, _ lifetime: CompoundDisposable) -> Void,
        direct: @escaping _DirectStart
    ) {
        self._run = run
        self.name = nil
        self._runDirect = direct
    }

    /// Creates a cold signal: `subscribe` runs once per subscription with an `Observer` to send
    /// events to, and returns what to dispose when the subscription ends (or nil).
    ///
    /// ```swift
    /// let ticks = Signal<Int, Never> { observer in
    ///     observer.sendNext(1)
    ///     observer.sendCompleted()
    ///     return ActionDisposable { print("cleaned up") }
    /// }
    /// ```
    @inlinable
    public init(_ subscribe: @escaping @Sendable (Observer<Value, Failure>) -> (any Disposable)?) {
        self.init(_unchecked: { sink, lifetime in
            let gate = _Gate(sink: sink, lifetime: lifetime)
            lifetime.add(subscribe(Observer(gate: gate)))
        })
    }

    /// Returns this signal carrying `name`, which `logEvents()` prints.
    ///
    /// ```swift
    /// search.named("search results").logEvents().subscribe()
    /// ```
    public func named(_ name: String) -> Signal {
        Signal(_unchecked: _run, name: name)
    }
}

// MARK: - Subscribing

extension Signal {
    /// Subscribes with closures for each kind of event; every closure is optional.
    ///
    /// The closures are `@Sendable` and run on whatever thread sends each event. To capture
    /// state of your own isolation instead (a local variable, a `@MainActor` property, an
    /// actor's state), use `sink(next:error:completed:)`.
    ///
    /// Returns the subscription's disposable. The subscription ends, and frees everything it
    /// held, when a terminal event arrives or when the disposable is disposed; after that no
    /// closure is called.
    ///
    /// ```swift
    /// let d = Signal(sequence: [1, 2, 3]).subscribe(
    ///     next: { print($0) },
    ///     completed: { print("done") }
    /// )
    /// ```
    @inlinable
    @discardableResult
    public func subscribe(
        next: (@Sendable (Value) -> Void)? = nil,
        error: (@Sendable (Failure) -> Void)? = nil,
        completed: (@Sendable () -> Void)? = nil
    ) -> any Disposable {
        if let direct = _runDirect { return direct(next, error, completed) }
        let lifetime = CompoundDisposable()
        let terminal = _TerminalSubscriber(next: next, error: error, completed: completed, lifetime: lifetime)
        // The test of the event's case is made here, in the closure, rather than in `receive`:
        // see `_TerminalSubscriber.receiveNext`.
        _run({ event in
            if case .next(let value) = event {
                terminal.receiveNext(value)
            } else {
                terminal.receive(event)
            }
        }, lifetime)
        return lifetime
    }

    /// Subscribes any `Subscriber` (for example a `Subject`).
    ///
    /// ```swift
    /// let relay = Subject<Int, Never>()
    /// Signal(sequence: [1, 2]).subscribe(relay)
    /// ```
    @inlinable
    @discardableResult
    public func subscribe<S: Subscriber>(_ subscriber: S) -> any Disposable
    where S.Value == Value, S.Failure == Failure {
        subscribe(
            next: { subscriber.sendNext($0) },
            error: { subscriber.sendError($0) },
            completed: { subscriber.sendCompleted() }
        )
    }

    /// Subscribes with one closure that receives every event.
    ///
    /// ```swift
    /// signal.subscribe(events: { event in print(event) })   // next(1), next(2), completed
    /// ```
    @inlinable
    @discardableResult
    public func subscribe(events: @escaping @Sendable (Event<Value, Failure>) -> Void) -> any Disposable {
        subscribe(next: { events(.next($0)) }, error: { events(.error($0)) }, completed: { events(.completed) })
    }
}

// MARK: - Basic signals

extension Signal {
    /// A signal that completes at once, sending no value.
    ///
    /// ```swift
    /// Signal<Int, Never>.empty.subscribe(completed: { print("done") })   // done
    /// ```
    @inlinable
    public static var empty: Signal {
        Signal(_unchecked: { sink, _ in sink(.completed) })
    }

    /// A signal that never sends anything.
    ///
    /// ```swift
    /// Signal<Int, Never>.never.take(until: stop)
    /// ```
    @inlinable
    public static var never: Signal {
        Signal(_unchecked: { _, _ in })
    }

    /// A signal that sends `value` and completes (RAC's `return:`).
    ///
    /// ```swift
    /// Signal<Int, Never>.just(42).subscribe(next: { print($0) })   // 42
    /// ```
    @inlinable
    public static func just(_ value: Value) -> Signal where Value: Sendable {
        Signal(_unchecked: { sink, lifetime in
            sink(.next(value))
            if !lifetime.isDisposed { sink(.completed) }
        })
    }

    /// A signal that fails at once with `error`.
    ///
    /// ```swift
    /// Signal<Int, MyError>(error: .offline).subscribe(error: { print($0) })   // offline
    /// ```
    @inlinable
    public init(error: Failure) {
        self.init(_unchecked: { sink, _ in sink(.error(error)) })
    }

    /// A signal that sends each element of `sequence`, then completes. It stops early when the
    /// subscription is disposed, so an infinite sequence is fine with `take`.
    ///
    /// ```swift
    /// Signal(sequence: 1...).take(3).subscribe(next: { print($0) })   // 1, 2, 3
    /// ```
    @inlinable
    public init<S: Sequence & Sendable>(sequence: S) where S.Element == Value {
        self.init(_unchecked: Self._emitting(sequence))
    }

    /// The stage function of `init(sequence:)`: sends each element, then completes. It checks
    /// for disposal before pulling each element, so a producer stopped by `take(3)` never
    /// computes a fourth element that nobody would receive.
    @inlinable
    static func _emitting<S: Sequence & Sendable>(
        _ sequence: S
    ) -> @Sendable (_ sink: @escaping _Sink, _ lifetime: CompoundDisposable) -> Void where S.Element == Value {
        { sink, lifetime in
            var iterator = sequence.makeIterator()
            while !lifetime.isDisposed, let element = iterator.next() {
                sink(.next(element))
            }
            if !lifetime.isDisposed { sink(.completed) }
        }
    }

    /// A signal whose recipe is made anew for each subscription, when it subscribes.
    ///
    /// ```swift
    /// let now = Signal<Date, Never>.deferred { .just(Date()) }   // the time of subscription
    /// ```
    @inlinable
    public static func deferred(_ make: @escaping @Sendable () -> Signal) -> Signal {
        Signal(_unchecked: { sink, lifetime in make()._run(sink, lifetime) })
    }
}

extension Signal where Failure == Never {
    /// A signal that sends each element of `sequence`, then completes; it cannot fail.
    ///
    /// ```swift
    /// Signal(sequence: [1, 2, 3])   // Signal<Int, Never>
    /// ```
    @inlinable
    public init<S: Sequence & Sendable>(sequence: S) where S.Element == Value {
        self.init(_unchecked: Self._emitting(sequence))
    }
}
