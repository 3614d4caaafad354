import Synchronization

/// A cold signal made shareable: subscribers attach to `signal` without starting anything, and
/// `connect()` runs the upstream ONCE for all of them (RAC's `RACMulticastConnection`, Rx's
/// `ConnectableObservable`). Made by `Signal.publish()`.
///
/// Each connection has its own subject: when a connection ends (its upstream terminated, or it
/// was disposed), the next `connect()` subscribes to the upstream again, and subscribers that
/// arrive after a connection ended wait for the next one. A subscriber that stays subscribed
/// after you dispose a connection receives nothing more; dispose it too.
///
/// ```swift
/// let request = api.fetchProfile().publish()   // nothing runs yet
/// request.signal.subscribe(next: showName)
/// request.signal.subscribe(next: showAvatar)
/// let connection = request.connect()           // ONE request; both subscribers get its events
/// connection.dispose()                         // cancels the request
/// ```
public struct ConnectableSignal<Value, Failure: Error>: Sendable {
    @usableFromInline let core: _Multicast<Value, Failure>

    @inlinable
    init(core: _Multicast<Value, Failure>) {
        self.core = core
    }

    /// The shared events. Subscribing does not start the upstream; `connect()` does.
    ///
    /// ```swift
    /// let shared = ticks.publish()
    /// shared.signal.subscribe(next: { print($0) })
    /// shared.connect()
    /// ```
    @inlinable
    public var signal: Signal<Value, Failure> {
        let core = self.core
        return Signal(_unchecked: { sink, lifetime in core.attach(sink, lifetime: lifetime) })
    }

    /// Subscribes to the upstream (once) and sends its events to every subscriber of `signal`.
    ///
    /// Returns the connection: disposing it disposes the upstream subscription. While a
    /// connection is running, `connect()` returns that same connection without subscribing
    /// again. After it ended (upstream terminated, or disposed), `connect()` starts a new one.
    ///
    /// ```swift
    /// let connection = shared.connect()
    /// shared.connect() === connection   // true while connected
    /// connection.dispose()              // disposes the upstream subscription
    /// ```
    @inlinable
    @discardableResult
    public func connect() -> any Disposable {
        // Without an expected subject, connecting always succeeds.
        core.connect(ifCurrent: nil)!
    }

    /// A signal that connects when its first subscriber arrives and disconnects (disposing the
    /// upstream subscription) when its last subscriber leaves; the next subscriber connects
    /// again, starting the upstream anew (Rx's `refCount()`; Combine's `autoconnect()`, which
    /// is documented to connect and disconnect automatically).
    ///
    /// While at least one subscriber is attached, all subscribers share one run of the
    /// upstream. Note that a synchronous upstream runs to completion inside the first
    /// subscription, so a later subscriber starts it again: share signals that send over time.
    /// Do not mix with manual `connect()`: the last subscriber leaving disposes the connection
    /// whoever made it.
    ///
    /// ```swift
    /// let location = locationUpdates.publish().autoconnect()
    /// let a = location.subscribe(next: updateMap)      // starts the updates
    /// let b = location.subscribe(next: updateLabel)    // shares them
    /// a.dispose(); b.dispose()                         // stops the updates
    /// ```
    @inlinable
    public func autoconnect() -> Signal<Value, Failure> {
        let core = self.core
        return Signal(_unchecked: { sink, lifetime in core.attachCounted(sink, lifetime: lifetime) })
    }
}

extension Signal {
    /// Makes this cold signal shareable: subscribers attach to the result's `signal`, and its
    /// `connect()` subscribes to this signal once for all of them. See `ConnectableSignal`.
    ///
    /// ```swift
    /// let download = api.download(url).publish()
    /// download.signal.subscribe(next: updateProgress)
    /// download.signal.subscribe(completed: showDone)
    /// download.connect()   // one download
    /// ```
    @inlinable
    public func publish() -> ConnectableSignal<Value, Failure> {
        ConnectableSignal(core: _Multicast(upstream: self, replay: 0))
    }

    /// Shares one run of this signal among all current subscribers, replaying the latest
    /// `replay` values to each new subscriber (Rx's `share(replay:)` with `.whileConnected`).
    ///
    /// The first subscriber starts this signal; the last one leaving disposes it; a subscriber
    /// after that starts it anew, with an empty replay buffer. A run also ends when this signal
    /// completes or fails: its subscribers receive the terminal event, and a subscriber that
    /// arrives afterwards starts a new run — it receives neither the old run's values nor its
    /// terminal event. The replay buffer belongs to one run. (A synchronous upstream completes
    /// inside its first subscription; share signals that send over time.) To keep replaying the
    /// values and the terminal event after this signal ended, without running it again, use
    /// `replayLazily(upTo:)`.
    ///
    /// ```swift
    /// let user = api.currentUser().share(replay: 1)
    /// user.subscribe(next: showName)     // starts the request
    /// user.subscribe(next: showAvatar)   // shares it; gets the user at once if it arrived
    /// ```
    @inlinable
    public func share(replay: Int = 0) -> Signal {
        precondition(replay >= 0, "share(replay:) needs a replay count of at least 0")
        let core = _Multicast(upstream: self, replay: replay)
        return Signal(_unchecked: { sink, lifetime in core.attachCounted(sink, lifetime: lifetime) })
    }

    /// Runs this signal once, at the first subscription, and replays its latest `capacity`
    /// values to every later subscriber — also after it ended: a subscriber that arrives after
    /// this signal completed (or failed) receives the latest `capacity` values and then the
    /// completion (or the error), and this signal is not run again (ReactiveSwift's
    /// `replayLazily(upTo:)`; Rx's `replay(n).autoconnect()`).
    ///
    /// Subscribers that arrive while this signal runs receive the replay, then the events that
    /// follow. Disposing every subscription does not stop the run while the returned signal is
    /// alive: a later subscriber gets the values sent meanwhile. The run is disposed when it
    /// ends (its subscription is released at once; the replay buffer and the terminal event are
    /// kept for later subscribers), or when the returned signal — every copy of it — and every
    /// subscription to it are gone, which also frees the replay buffer.
    ///
    /// Unlike `share(replay:)`, whose run ends with its last subscriber and whose values are
    /// not replayed after it ended, this is a cache: use it for a result computed once.
    ///
    /// ```swift
    /// let config = api.fetchConfig().replayLazily(upTo: 1)   // nothing runs yet
    /// config.subscribe(next: apply)                         // fetches, once
    /// // ...later, after the fetch completed:
    /// config.subscribe(next: show)                          // the config and completed, no fetch
    /// ```
    @inlinable
    public func replayLazily(upTo capacity: Int) -> Signal {
        precondition(capacity >= 0, "replayLazily(upTo:) needs a capacity of at least 0")
        let core = _ReplayLazily(upstream: self, capacity: capacity)
        return Signal(_unchecked: { sink, lifetime in core.attach(sink, lifetime: lifetime) })
    }
}

/// The state of one `replayLazily(upTo:)` signal: a replaying subject that outlives the
/// upstream's run, and that run's subscription.
///
/// Ownership: the returned signal's closure and each subscription's lifetime hold this object;
/// the upstream's sink holds only `subject` and `run` (never this object), so when the signal
/// and every subscription are gone, `deinit` disposes the run, which releases the upstream's
/// sink, and with it the subject and its replay buffer.
@usableFromInline
final class _ReplayLazily<Value, Failure: Error>: Sendable {
    @usableFromInline let upstream: Signal<Value, Failure>
    @usableFromInline let subject: _SubjectCore<Value, Failure>
    /// The lifetime of the upstream's one run.
    @usableFromInline let run = CompoundDisposable()
    @usableFromInline let started = Atomic<Bool>(false)

    @inlinable
    init(upstream: Signal<Value, Failure>, capacity: Int) {
        self.upstream = upstream
        subject = _SubjectCore(replay: capacity)
    }

    deinit {
        run.dispose()
    }

    /// Attaches a subscriber (who receives the replay, and the terminal event if the run ended),
    /// and starts the run if it is the first.
    @inlinable
    func attach(_ sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        if lifetime.isDisposed { return }
        // The run lasts at least as long as this subscription (and the signal).
        lifetime.add { withExtendedLifetime(self) {} }
        subject.attach(sink, lifetime: lifetime)
        if lifetime.isDisposed || started.exchange(true, ordering: .acquiringAndReleasing) { return }
        let subject = self.subject
        let run = self.run
        upstream._run({ event in
            if event.isTerminal {
                // Release the upstream's subscription; the subject keeps what it replays.
                run.dispose()
            }
            subject.send(event)
        }, run)
    }
}

/// The state shared by every subscriber of a `ConnectableSignal` (and of `share(replay:)`):
/// the subject of the current connection, the connection if one is running, and how many
/// reference-counted subscribers (`autoconnect`) are attached.
///
/// Invariant: the current subject never has a terminal event — a connection detaches itself
/// (installing a fresh subject) BEFORE it forwards its upstream's terminal event.
@usableFromInline
final class _Multicast<Value, Failure: Error>: Sendable {
    @usableFromInline
    struct State {
        @usableFromInline var subject: _SubjectCore<Value, Failure>
        @usableFromInline var connection: _Connection<Value, Failure>?
        @usableFromInline var subscribers = 0

        @inlinable init(subject: _SubjectCore<Value, Failure>) {
            self.subject = subject
        }
    }

    @usableFromInline let upstream: Signal<Value, Failure>
    @usableFromInline let replay: Int
    @usableFromInline let state: _Locked<State>

    @inlinable
    init(upstream: Signal<Value, Failure>, replay: Int) {
        self.upstream = upstream
        self.replay = replay
        state = _Locked(State(subject: _SubjectCore(replay: replay)))
    }

    /// Attaches a subscriber to the current subject, without connecting.
    @inlinable
    func attach(_ sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        let subject = state.withLock { $0.subject }
        subject.attach(sink, lifetime: lifetime)
    }

    /// Attaches a reference-counted subscriber: connects if it is the first, and disconnects
    /// when the last one's subscription ends.
    @inlinable
    func attachCounted(_ sink: @escaping Signal<Value, Failure>._Sink, lifetime: CompoundDisposable) {
        if lifetime.isDisposed { return }
        let subject = state.withLock { state -> _SubjectCore<Value, Failure> in
            state.subscribers += 1
            return state.subject
        }
        lifetime.add { [self] in release() }
        subject.attach(sink, lifetime: lifetime)
        if !lifetime.isDisposed {
            _ = connect(ifCurrent: subject)
        }
    }

    /// One reference-counted subscriber left; the last one disconnects.
    @inlinable
    func release() {
        let ended = state.withLock { state -> (_Connection<Value, Failure>, _SubjectCore<Value, Failure>)? in
            state.subscribers -= 1
            guard state.subscribers == 0, let connection = state.connection else { return nil }
            state.connection = nil
            defer { state.subject = _SubjectCore(replay: replay) }
            return (connection, state.subject)
        }
        // Dispose the connection, and release the old subject, outside the lock.
        guard let (connection, subject) = ended else { return }
        connection.dispose()
        withExtendedLifetime(subject) {}
    }

    /// Returns the running connection, or starts one. With `expected` (from `attachCounted`),
    /// starts one only if `expected` is still the current subject and a counted subscriber is
    /// attached: a subscriber whose subject was already replaced (its connection ended while it
    /// attached) must not start a connection nobody listens to.
    @inlinable
    func connect(ifCurrent expected: _SubjectCore<Value, Failure>?) -> _Connection<Value, Failure>? {
        var isNew = false
        let started = state.withLock { state -> (_Connection<Value, Failure>, _SubjectCore<Value, Failure>)? in
            if let connection = state.connection { return (connection, state.subject) }
            if let expected, expected !== state.subject || state.subscribers == 0 { return nil }
            let connection = _Connection(owner: self)
            state.connection = connection
            isNew = true
            return (connection, state.subject)
        }
        guard let (connection, subject) = started else { return nil }
        if isNew {
            upstream._run({ event in
                if connection.isDisposed { return }
                if event.isTerminal {
                    // Detach first (a fresh subject for the next connection), then forward.
                    connection.dispose()
                }
                subject.send(event)
            }, connection.lifetime)
        }
        return connection
    }

    /// A connection ended: if it is the current one, forget it and start a fresh subject.
    @inlinable
    func detach(_ connection: _Connection<Value, Failure>) {
        let replaced = state.withLock { state -> _SubjectCore<Value, Failure>? in
            guard state.connection === connection else { return nil }
            state.connection = nil
            defer { state.subject = _SubjectCore(replay: replay) }
            return state.subject
        }
        // Release the old subject (and the subscribers it holds) outside the lock.
        withExtendedLifetime(replaced) {}
    }
}

/// One run of a `ConnectableSignal`'s upstream. Disposing it disposes the upstream
/// subscription and ends the connection.
@usableFromInline
final class _Connection<Value, Failure: Error>: Disposable {
    @usableFromInline let owner: _Multicast<Value, Failure>
    @usableFromInline let lifetime = CompoundDisposable()

    @inlinable
    init(owner: _Multicast<Value, Failure>) {
        self.owner = owner
    }

    @inlinable
    var isDisposed: Bool { lifetime.isDisposed }

    @inlinable
    func dispose() {
        if lifetime.isDisposed { return }
        owner.detach(self)
        lifetime.dispose()
    }
}
