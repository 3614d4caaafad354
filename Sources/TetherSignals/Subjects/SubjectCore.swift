import CTetherThread
import Synchronization

/// The broadcaster behind `Subject`, `ReplaySubject` and `BehaviorSubject`.
///
/// Every event and every change to the subscriber list goes through one owner at a time
/// (`_WorkInProgress`): whoever finds the subject free becomes its owner and does its own work
/// at once. A sender that finds another thread delivering waits for it, a little, as for a
/// lock, and then delivers its own event (`sendContended`). Whoever cannot wait (a subscriber
/// sending, subscribing or disposing re-entrantly from a callback; a sender that waited its
/// bound) queues its work, and the owner runs that work, in order, before it gives ownership
/// up. So each subscriber sees events one at a time, in one order, and a subscriber that sends
/// into the subject it observes neither deadlocks nor recurses. No lock is held while a
/// subscriber runs.
///
/// The fast path — a send that finds the subject free — costs two atomic read-modify-writes
/// (claim, release) and a walk over the subscriber list in place: no lock, no copy.
///
/// Subscribing and disposing are *control* steps: short, and they run no subscriber code. They
/// own the subject in control mode (`_WorkInProgress.control`), holding `control`'s lock, and a
/// sender that finds the subject in control mode waits for that lock instead of queueing. So,
/// as with a lock around the subscriber list, a send is delivered before it returns unless
/// another event (or a replay) is being delivered at that moment: subscribing and disposing on
/// other threads never turn a send into a queued one. Subscribing to a replaying subject calls
/// the new subscriber (the replay), so it becomes an ordinary owner, like a send.
///
/// Why `@unchecked Sendable` is safe: the only mutable stored property, `owned`, is read and
/// written only by the current owner of `wip` — between a successful claim (`tryClaim()`,
/// `tryClaimControl()`, or a `join()`/`joinControl()` that found the counter at 0) and the
/// release that brings the counter back to 0 (see `_WorkInProgress`). At most one thread is the
/// owner at any time, and successive owners are ordered by the acquire/release
/// read-modify-writes on the counter, so no two threads ever access `owned` concurrently. A
/// callback that re-enters the subject while its owner is delivering cannot claim it (the
/// counter is not 0): it only appends to `pending` (under its own lock), so even on the
/// owner's thread no access to `owned` overlaps another — which is also why exclusivity
/// checking of `owned` is turned off (`@exclusivity(unchecked)`: it could never fire, and it
/// costs two runtime calls per access). Everything read from other threads lives elsewhere:
/// `liveCount` (an atomic) and `replay` (a `_Locked`).
///
/// Each subscriber is a `_SubjectSubscription`, which holds its sink in a `let`: delivery calls
/// the sink through an unretained (+0) reference, which is safe because the subscriber list —
/// and so the strong reference it holds — cannot change while the owner walks it.
///
/// Locks: `control` may be held while taking `pending` or `replay`; nothing else nests, and
/// none of them is held while calling out.
@usableFromInline
final class _SubjectCore<Value, Failure: Error>: @unchecked Sendable {
    @usableFromInline typealias Sink = @Sendable (Event<Value, Failure>) -> Void
    @usableFromInline typealias Subscription = _SubjectSubscription<Value, Failure>

    /// Work queued for the owner.
    @usableFromInline
    enum Work {
        case event(Event<Value, Failure>)
        /// The subject was freed: complete, as `release()` does.
        case release
        case attach(Subscription, lifetime: CompoundDisposable)
    }

    @usableFromInline
    struct Pending {
        @usableFromInline var queue = _FIFO<Work>()
        /// Subscriptions disposed while the subject was delivering. The owner applies them
        /// before anything else queued, so that a disposed subscriber gets no further event.
        @usableFromInline var removals: [UInt64] = []
        @inlinable init() {}
    }

    /// The state only the owner touches.
    @usableFromInline
    struct Owned {
        @usableFromInline var subscribers = _Bag<Subscription>()
        /// The terminal event, once accepted: later events are dropped, late subscribers get it.
        @usableFromInline var terminal: Event<Value, Failure>?
        /// The replay buffer holds values: subscribing must replay them.
        @usableFromInline var replaying = false
        /// The terminal event is the completion sent because the subject was freed.
        @usableFromInline var released = false
        @inlinable init() {}

        /// Whether a new subscriber must be called at once (replay, or the terminal event).
        @inlinable var admissionCallsOut: Bool { replaying || terminal != nil }
    }

    @usableFromInline let wip = _WorkInProgress()
    @exclusivity(unchecked) @usableFromInline var owned = Owned()
    @usableFromInline let pending = _Locked(Pending())
    /// Held by subscribe and dispose steps (with the next subscription token). Senders that
    /// find the subject in control mode wait for it.
    @usableFromInline let control = _Locked<UInt64>(0)
    /// The values to replay (latest last); nil for a plain subject, which replays nothing. The
    /// owner appends under this lock so that `currentValues` can read it from any thread.
    @usableFromInline let replay: _Locked<_RingBuffer<Value>>?
    /// The number of subscribers, kept by the owner for `subscriberCount`.
    @usableFromInline let liveCount = Atomic<Int>(0)

    /// Whether late subscribers still receive the replay after an explicit terminal event
    /// (`ReplaySubject`), or only the terminal event (`BehaviorSubject`, as in Rx).
    @usableFromInline let replaysAfterEnd: Bool

    @inlinable
    init(replay capacity: Int, replaysAfterEnd: Bool = true) {
        replay = capacity > 0 ? _Locked(_RingBuffer(capacity: capacity)) : nil
        self.replaysAfterEnd = replaysAfterEnd
    }

    /// The subject was freed: nobody can send any more. Its subscribers get `completed`,
    /// delivered inside `_SubjectRelease` so that `take(until:)` can tell it from a completion
    /// someone sent; late subscribers still get the replay (a freed `BehaviorSubject` is a
    /// constant).
    @usableFromInline
    func release() {
        sendContended(.release)
    }

    // MARK: Sending

    @inlinable
    func send(_ event: Event<Value, Failure>) {
        // The claim carries the thread's tag, so that a subscriber sending from inside its
        // callback is known for one (see `sendContended`).
        let tag = _WorkInProgress.currentThreadTag
        if wip.tryClaim(tag: tag) {
            process(event)
            let missed = wip.tryRelease(tag: tag)
            if missed != 0 { drain(missed) }
        } else {
            sendContended(.event(event))
        }
    }

    /// How many times a contended send checks the subject with a processor pause in between,
    /// then how many more times it yields the processor in between, before it queues its work.
    @usableFromInline static var spinsBeforeYielding: Int { 64 }
    @usableFromInline static var spinsBeforeQueueing: Int { 96 }

    /// A send that found the subject owned (or a release): waits out a subscribe or dispose
    /// step; waits, for a short while, for another thread's delivery to end; otherwise queues
    /// the work for the thread delivering.
    ///
    /// Waiting is what a lock would do, and under contention it is much cheaper than queueing:
    /// the event is delivered by its own thread, with no queue and no second lock round trip,
    /// while the other sender goes on alone. The wait is bounded, which keeps it from ever
    /// deadlocking where a lock held while subscribers run would: a sender that holds something
    /// the delivering subscriber needs (a lock of its own; the delivery of another subject whose
    /// subscriber sends into this one) gives up after `spinsBeforeQueueing` checks and queues,
    /// and the delivering thread delivers its event.
    ///
    /// A subscriber sending into the subject that is calling it could only wait for itself: it
    /// queues at once. It is known by the owner's thread tag in the counter (`send` claims with
    /// it). Two threads may share a tag: then a sender that could have waited queues, which is
    /// always safe. The tag stays while the owner delivers what was queued meanwhile. An owner
    /// that became one by queueing (`join()`), or that admits a subscriber with a replay, has
    /// no tag: a subscriber of its sending into it waits its bound first.
    @usableFromInline
    func sendContended(_ work: Work) {
        let tag = _WorkInProgress.currentThreadTag
        var spins = 0
        while true {
            let state = wip.count.load(ordering: .relaxed)
            if state == 0 {
                guard wip.tryClaim(tag: tag) else { continue }
                process(work)
                let missed = wip.tryRelease(tag: tag)
                if missed != 0 { drain(missed) }
                return
            }
            if _WorkInProgress.tag(of: state) == tag { spins = Self.spinsBeforeQueueing }
            if _WorkInProgress.isControl(state) {
                // A subscribe or dispose step owns the subject (it holds `control` whenever the
                // flag is set, and runs no subscriber code): wait for it, as for a lock.
                control.withLock { _ in }
                continue
            }
            if spins < Self.spinsBeforeQueueing {
                // Another thread is delivering: wait for it, a little.
                if spins < Self.spinsBeforeYielding { tether_cpu_relax() } else { tether_thread_yield() }
                spins += 1
                continue
            }
            pending.withLock { $0.queue.append(work) }
            if wip.join() { drain(1) }
            return
        }
    }

    /// Runs an event or a release. Owner only.
    @usableFromInline
    func process(_ work: Work) {
        switch work {
        case .event(let event): process(event)
        case .release: process(.completed, released: true)
        case .attach: preconditionFailure("an attach is not an event")
        }
    }

    /// Delivers one event to every subscriber. Owner only. `released`: the completion sent
    /// because the subject was freed (see `release()`).
    @inlinable
    func process(_ event: Event<Value, Failure>, released: Bool = false) {
        if owned.terminal != nil { return }
        switch event {
        case .next(let value):
            if let replay {
                replay.withLock { $0.append(value) }
                owned.replaying = true
            }
        case .error, .completed:
            owned.terminal = event
            owned.released = released
            if !released && !replaysAfterEnd { owned.replaying = false }
        }
        if _slowPath(released) {
            _SubjectRelease.delivering { deliver(event) }
        } else {
            deliver(event)
        }
    }

    /// Calls every subscriber with `event`, then releases them all if it is terminal. Owner only.
    @inlinable
    func deliver(_ event: Event<Value, Failure>) {
        // The subscriber list cannot change during this loop: only the owner changes it, and
        // the owner is here (a subscriber that subscribes or disposes re-entrantly only queues
        // its change). So walk the list in place, without copying it.
        // Each subscriber is called through an unretained reference: the list's strong reference
        // keeps it alive, for the same reason. (Retaining it would cost two more atomic
        // operations per subscriber and event.)
        var index = 0
        while index < owned.subscribers.entries.count {
            if let subscriber = owned.subscribers.entries[index].element.map({ Unmanaged.passUnretained($0) }) {
                subscriber._withUnsafeGuaranteedRef { $0.sink(event) }
            }
            index += 1
        }
        if event.isTerminal {
            // The terminal event was delivered: release every subscriber.
            let released = owned.subscribers.removeAll()
            liveCount.store(0, ordering: .releasing)
            withExtendedLifetime(released) {}
        }
    }

    /// Runs queued work until none is left and nothing more was announced, then gives up
    /// ownership. Owner only (ordinary mode); `missed` is the count to pass to
    /// `_WorkInProgress.leave(_:)`.
    @usableFromInline
    func drain(_ missed: Int) {
        var missed = missed
        repeat {
            while let work = nextWork() {
                switch work {
                case .event, .release:
                    process(work)
                case .attach(let subscription, let lifetime):
                    _ = admit(subscription, lifetime: lifetime)
                }
            }
            missed = wip.leave(missed)
        } while missed != 0
    }

    /// The next queued work, after applying the queued removals. Owner only.
    @usableFromInline
    func nextWork() -> Work? {
        let (removals, work) = pending.withLock { pending -> ([UInt64], Work?) in
            var removals: [UInt64] = []
            swap(&removals, &pending.removals)
            return (removals, pending.queue.isEmpty ? nil : pending.queue.removeFirst())
        }
        if !removals.isEmpty {
            let removed = remove(removals)
            withExtendedLifetime(removed) {}
        }
        return work
    }

    /// Removes subscribers; returns them, to be released by the caller (outside any lock: a
    /// subscriber's deinit may run user code). Owner only.
    @usableFromInline
    func remove(_ tokens: [UInt64]) -> [Subscription] {
        var removed: [Subscription] = []
        for token in tokens {
            if let subscription = owned.subscribers.remove(token: token) { removed.append(subscription) }
        }
        liveCount.store(owned.subscribers.count, ordering: .releasing)
        return removed
    }

    // MARK: Subscribing

    /// Adds a subscriber (unless the subject has ended, or the subscription was disposed) and
    /// replays to it. Owner only; calls out only if `owned.admissionCallsOut`. Returns whether
    /// the subscriber was added.
    @usableFromInline
    func admit(_ subscription: Subscription, lifetime: CompoundDisposable) -> Bool {
        if lifetime.isDisposed { return false }
        let terminal = owned.terminal
        if terminal == nil {
            owned.subscribers.insert(subscription, token: subscription.token)
            liveCount.store(owned.subscribers.count, ordering: .releasing)
        }
        guard owned.admissionCallsOut else { return true }
        let sink = subscription.sink
        if let replay, owned.replaying {
            for value in replay.withLock({ $0.elements }) {
                if lifetime.isDisposed { break }
                sink(.next(value))
            }
        }
        if let terminal {
            if owned.released {
                _SubjectRelease.delivering { sink(terminal) }
            } else {
                sink(terminal)
            }
            return false
        }
        return true
    }

    /// After a subscribe or dispose step was queued and its `joinControl()` found the subject
    /// free: this thread owns it in control mode and applies the queued steps that call nobody
    /// (removals; subscriptions to a subject that replays nothing). At anything that calls out
    /// (an event, a replay) it becomes an ordinary owner, which must drain once `control` is
    /// released. Under `control`. What it lets go of (removed subscribers, subscriptions that
    /// were not admitted and their lifetimes) goes to `released`, for the caller to release
    /// after `control`: a deinit may run user code, which may use this subject.
    @usableFromInline
    func drainControl(_ released: inout [AnyObject]) -> _ControlExit {
        while true {
            let calm = !owned.admissionCallsOut
            let (removals, attach, more) = pending.withLock { pending -> ([UInt64], Work?, Bool) in
                var removals: [UInt64] = []
                swap(&removals, &pending.removals)
                guard let first = pending.queue.first else { return (removals, nil, false) }
                if calm, case .attach = first { return (removals, pending.queue.removeFirst(), true) }
                return (removals, nil, true)
            }
            released.append(contentsOf: remove(removals) as [AnyObject])
            if case .attach(let subscription, let lifetime)? = attach {
                _ = admit(subscription, lifetime: lifetime)   // calls nobody: `calm`
                released.append(subscription)
                released.append(lifetime)
                continue
            }
            if more { return .drain(wip.endControlMode()) }
            return endControl()
        }
    }

    /// Ends a control step: releases the subject, or, if work was announced meanwhile, turns
    /// into an ordinary owner that must drain it.
    @inlinable
    func endControl() -> _ControlExit {
        wip.tryReleaseControl() ? .done : .drain(wip.endControlMode())
    }

    /// Queues a subscription for the owner (the subject is busy delivering). Under `control`.
    @usableFromInline
    func enqueueAttach(
        _ subscription: Subscription, lifetime: CompoundDisposable, _ released: inout [AnyObject]
    ) -> _ControlExit {
        pending.withLock { $0.queue.append(.attach(subscription, lifetime: lifetime)) }
        guard wip.joinControl() else { return .done }
        return drainControl(&released)
    }

    /// Queues the removal of a subscriber for the owner (the subject is busy delivering), or
    /// withdraws its subscription if it was not admitted yet. Under `control`.
    @usableFromInline
    func enqueueDetach(_ token: UInt64, _ released: inout [AnyObject], _ withdrawn: inout Work?) -> _ControlExit {
        let queued = pending.withLock { pending -> Bool in
            if let index = pending.queue.firstIndex(where: {
                if case .attach(let subscription, _) = $0 { subscription.token == token } else { false }
            }) {
                withdrawn = pending.queue.remove(at: index)
                return false
            }
            pending.removals.append(token)
            return true
        }
        guard queued, wip.joinControl() else { return .done }
        return drainControl(&released)
    }

    /// Subscribes. When the subject is free and replays nothing, this is a control step: it
    /// adds the subscriber under `control` and calls nobody.
    @inlinable
    func attach(_ sink: @escaping Sink, lifetime: CompoundDisposable) {
        var released: [AnyObject] = []
        let (subscription, exit) = control.withLock { nextToken -> (Subscription, _ControlExit) in
            let subscription = Subscription(core: self, token: nextToken, sink: sink)
            nextToken &+= 1
            guard wip.tryClaimControl() else {
                return (subscription, enqueueAttach(subscription, lifetime: lifetime, &released))
            }
            if owned.admissionCallsOut {
                // The replay calls the subscriber: admit it as an ordinary owner, unlocked.
                _ = wip.endControlMode()
                return (subscription, .admit)
            }
            if !lifetime.isDisposed {
                owned.subscribers.insert(subscription, token: subscription.token)
                liveCount.store(owned.subscribers.count, ordering: .releasing)
            }
            return (subscription, endControl())
        }
        withExtendedLifetime(released) {}   // outside the lock: a deinit may run user code
        switch exit {
        case .done:
            break
        case .drain(let missed):
            drain(missed)
        case .admit:
            let added = admit(subscription, lifetime: lifetime)
            let missed = wip.tryRelease()
            if missed != 0 { drain(missed) }
            if !added { return }
        }
        lifetime.add(subscription)
    }

    /// Removes a subscriber: a control step if the subject is free, otherwise queued for the
    /// owner (applied before its next event).
    @inlinable
    func detach(token: UInt64) {
        var removed: Subscription?
        var released: [AnyObject] = []
        var withdrawn: Work?
        let exit = control.withLock { _ -> _ControlExit in
            guard wip.tryClaimControl() else { return enqueueDetach(token, &released, &withdrawn) }
            removed = owned.subscribers.remove(token: token)
            liveCount.store(owned.subscribers.count, ordering: .releasing)
            return endControl()
        }
        // Release the subscriber last, outside every lock: its deinit may run user code.
        withExtendedLifetime(removed) {}
        withExtendedLifetime(released) {}
        withExtendedLifetime(withdrawn) {}
        if case .drain(let missed) = exit { drain(missed) }
    }

    @inlinable
    var currentValues: [Value] { replay?.withLock { $0.elements } ?? [] }

    /// The latest value delivered, if the subject replays any.
    @inlinable
    var latestValue: Value? { replay?.withLock { $0.last } }

    @inlinable
    var subscriberCount: Int { liveCount.load(ordering: .acquiring) }

    @inlinable
    var signal: Signal<Value, Failure> {
        Signal(_unchecked: { [self] sink, lifetime in attach(sink, lifetime: lifetime) })
    }
}

/// What a subscribe or dispose step of a subject leaves to do once its control lock is released.
@usableFromInline
enum _ControlExit {
    /// Nothing: the subject was released, or the step was queued for its owner.
    case done
    /// The caller owns the subject (ordinary mode) and must drain with this count.
    case drain(Int)
    /// The caller owns the subject (ordinary mode) and must admit the new subscriber itself (a
    /// replay calls it), then release.
    case admit
}

/// One subscriber of a subject: its sink, and the disposable that removes it from the subject.
/// The subject's subscriber list holds it (until the subscriber is removed or the subject
/// ends), and so does the subscription's lifetime. Holds the subject weakly: a subscription
/// must not keep a subject alive.
@usableFromInline
final class _SubjectSubscription<Value, Failure: Error>: Disposable {
    @usableFromInline weak let core: _SubjectCore<Value, Failure>?
    @usableFromInline let token: UInt64
    /// A `let`, so that the subject can call it through an unretained reference to `self`.
    @usableFromInline let sink: @Sendable (Event<Value, Failure>) -> Void
    @usableFromInline let disposed = Atomic<Bool>(false)

    @inlinable
    init(core: _SubjectCore<Value, Failure>, token: UInt64, sink: @escaping @Sendable (Event<Value, Failure>) -> Void) {
        self.core = core
        self.token = token
        self.sink = sink
    }

    @usableFromInline var isDisposed: Bool { disposed.load(ordering: .acquiring) }

    @inlinable
    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        core?.detach(token: token)
    }
}

/// A fixed-capacity FIFO that drops its oldest element when full.
@usableFromInline
struct _RingBuffer<Element> {
    @usableFromInline let capacity: Int
    @usableFromInline var storage: [Element] = []
    @usableFromInline var head = 0

    @inlinable init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    @inlinable var isEmpty: Bool { storage.isEmpty }

    @inlinable
    mutating func append(_ element: Element) {
        guard capacity > 0 else { return }
        if storage.count < capacity {
            storage.append(element)
        } else {
            storage[head] = element
            head = (head + 1) % capacity
        }
    }

    /// Oldest first.
    @inlinable var elements: [Element] {
        if head == 0 { return storage }
        return Array(storage[head...] + storage[..<head])
    }

    @inlinable var last: Element? {
        if storage.isEmpty { return nil }
        return storage[(head + storage.count - 1) % storage.count]
    }
}

/// Tells `take(until:)` whether the completion it receives is the one a subject sends because it
/// was freed: nobody can fire that trigger any more, which is not the same as firing it. Set on
/// the delivering thread while such a completion is delivered (synchronous operators in between,
/// such as `map` or `filter`, pass it on in the same call).
public enum _SubjectRelease {
    /// Whether the calling thread is delivering the completion of a freed subject.
    public static var isDelivering: Bool { tether_release_depth_get() > 0 }

    @usableFromInline
    static func delivering(_ body: () -> Void) {
        tether_release_depth_set(tether_release_depth_get() + 1)
        defer { tether_release_depth_set(tether_release_depth_get() - 1) }
        body()
    }
}
