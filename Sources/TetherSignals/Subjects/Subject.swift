/// A hot signal you send events into by hand (RAC's `RACSubject`): every current subscriber
/// receives each event as it is sent; a late subscriber receives only later events (and the
/// terminal event, if the subject has already ended).
///
/// Sending is thread-safe. Events sent from many threads reach each subscriber one at a time,
/// never interleaved. A subscriber may send into the subject, or dispose its own subscription,
/// from inside its callback: the new event is delivered after the current one (no deadlock, no
/// re-entrant recursion).
///
/// When the subject is freed, nobody can send into it any more: its subscribers get `completed`
/// (as ReactiveSwift interrupts a signal whose input observer is gone), which frees what they
/// hold. `take(until:)` does not take that completion for its trigger firing.
///
/// ```swift
/// let clicks = Subject<Int, Never>()
/// clicks.signal.map { $0 * 2 }.subscribe(next: { print($0) })
/// clicks.sendNext(1)      // 2
/// clicks.sendCompleted()
/// ```
public final class Subject<Value, Failure: Error>: Subscriber {
    @usableFromInline let core: _SubjectCore<Value, Failure>

    /// Creates a subject with no subscribers.
    @inlinable
    public init() {
        core = _SubjectCore(replay: 0)
    }

    /// Nobody can send any more: the subscribers get `completed`, which ends their
    /// subscriptions and frees what they hold (a subscription and its subject would
    /// otherwise keep each other alive).
    deinit { core.release() }

    /// The subject's events as a signal; subscribing to it adds a subscriber.
    @inlinable
    public var signal: Signal<Value, Failure> { core.signal }

    @inlinable public func sendNext(_ value: Value) { core.send(.next(value)) }
    @inlinable public func sendError(_ error: Failure) { core.send(.error(error)) }
    @inlinable public func sendCompleted() { core.send(.completed) }

    /// The number of live subscriptions (for tests and diagnostics).
    public var subscriberCount: Int { core.subscriberCount }
}

/// A subject that replays up to `capacity` of its latest values (and its terminal event) to
/// each new subscriber, then sends live events (RAC's `RACReplaySubject`).
///
/// ```swift
/// let log = ReplaySubject<String, Never>(capacity: 2)
/// log.sendNext("a"); log.sendNext("b"); log.sendNext("c")
/// log.signal.subscribe(next: { print($0) })   // b, c
/// ```
public final class ReplaySubject<Value, Failure: Error>: Subscriber {
    @usableFromInline let core: _SubjectCore<Value, Failure>

    /// Creates a replay subject keeping the latest `capacity` values (`Int.max` keeps all).
    @inlinable
    public init(capacity: Int = .max) {
        precondition(capacity >= 0, "ReplaySubject capacity must not be negative")
        core = _SubjectCore(replay: capacity)
    }

    /// Nobody can send any more: the subscribers get `completed`, which ends their
    /// subscriptions and frees what they hold (a subscription and its subject would
    /// otherwise keep each other alive).
    deinit { core.release() }

    /// The subject's events as a signal; each new subscriber first receives the replay.
    @inlinable
    public var signal: Signal<Value, Failure> { core.signal }

    @inlinable public func sendNext(_ value: Value) { core.send(.next(value)) }
    @inlinable public func sendError(_ error: Failure) { core.send(.error(error)) }
    @inlinable public func sendCompleted() { core.send(.completed) }

    /// The values a new subscriber would receive first, oldest first.
    public var replayedValues: [Value] { core.currentValues }

    /// The number of live subscriptions (for tests and diagnostics).
    public var subscriberCount: Int { core.subscriberCount }
}

/// A subject that always has a current value and sends it to each new subscriber first (RAC's
/// `RACBehaviorSubject`, Rx's `BehaviorSubject`).
///
/// Once it has ended (`sendCompleted()` or `sendError(_:)`), a new subscriber receives only the
/// terminal event, as in Rx: the value is no longer current. A subject that was freed without
/// ending keeps sending its last value, then `completed`, to late subscribers of its signal: it
/// is a constant (`BehaviorSubject("9.00").signal`).
///
/// ```swift
/// let name = BehaviorSubject<String, Never>("Ada")
/// name.signal.subscribe(next: { print($0) })   // Ada
/// name.sendNext("Grace")                       // Grace
/// name.value                                   // "Grace"
/// ```
public final class BehaviorSubject<Value, Failure: Error>: Subscriber {
    @usableFromInline let core: _SubjectCore<Value, Failure>

    /// Creates a behavior subject whose current value is `initial`.
    @inlinable
    public init(_ initial: Value) {
        core = _SubjectCore(replay: 1, replaysAfterEnd: false)
        core.send(.next(initial))
    }

    /// Nobody can send any more: the subscribers get `completed`, which ends their
    /// subscriptions and frees what they hold (a subscription and its subject would
    /// otherwise keep each other alive).
    deinit { core.release() }

    /// The subject's events as a signal, starting with the current value.
    @inlinable
    public var signal: Signal<Value, Failure> { core.signal }

    /// The current value: the latest value delivered.
    public var value: Value {
        // The buffer always holds one value: the initial one, then the latest.
        core.latestValue!
    }

    @inlinable public func sendNext(_ value: Value) { core.send(.next(value)) }
    @inlinable public func sendError(_ error: Failure) { core.send(.error(error)) }
    @inlinable public func sendCompleted() { core.send(.completed) }

    /// The number of live subscriptions (for tests and diagnostics).
    public var subscriberCount: Int { core.subscriberCount }
}
