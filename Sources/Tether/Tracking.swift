import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Process-wide switches read on the fast paths of tracked properties.
///
/// Each registrar keeps a reference to the one instance, so a getter or setter reads a switch with
/// two loads and no call (a global would be reached through an accessor call from other
/// modules). While nothing is tracking and no transaction is open, a read of a tracked property
/// costs one relaxed atomic load more than a plain one (and with the Observation bridge on, a
/// read also goes to the registrar's slow path, to report itself to Observation).
@usableFromInline
final class _TetherFlags: Sendable {
    /// Bit 0: the Observation bridge is on. Above it: twice the number of dependency-tracking
    /// evaluations running, on any thread. Non-zero: a read must report itself.
    @usableFromInline let reads = Atomic<Int>(1)
    /// The number of open transactions, on any thread. Non-zero: a write must look further
    /// than its own observers.
    @usableFromInline let writes = Atomic<Int>(0)
    /// The number of batches being run (see `_ThreadContext.batch`), on any thread. Non-zero: a
    /// computed observer must check whether its recomputation waits for the end of a batch.
    @usableFromInline let batches = Atomic<Int>(0)

    /// The thread-local slot of each thread's `_ThreadContext`, kept here so that hot paths,
    /// which hold this object already, reach it without a lazy global's `swift_once`.
    let contextKey: pthread_key_t

    @usableFromInline static let shared = _TetherFlags()

    private init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<_ThreadContext>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "Tether: pthread_key_create failed (\(status))")
        contextKey = key
    }

    @usableFromInline var bridgeEnabled: Bool { reads.load(ordering: .relaxed) & 1 != 0 }

    func setBridge(_ enabled: Bool) {
        if enabled {
            reads.bitwiseOr(1, ordering: .relaxed)
        } else {
            reads.bitwiseAnd(~1, ordering: .relaxed)
        }
    }

    @usableFromInline var trackingActive: Bool { reads.load(ordering: .relaxed) > 1 }
    var transactionsOpen: Bool { writes.load(ordering: .relaxed) != 0 }
}

/// What one thread is doing with models right now: the innermost dependency recorder, Tether's
/// own reads, the open transaction, and the computed observers waiting for the end of a batch.
///
/// Confined to its thread (stored in thread-local storage), so it needs no lock; and for the
/// same reason the dynamic exclusivity checks of its properties could never fire: they are off.
@usableFromInline
final class _ThreadContext {
    /// The recorder of the innermost evaluation running on this thread (each recorder links to
    /// the one it interrupted). Unretained: an evaluation's caller keeps its recorder alive.
    @exclusivity(unchecked) var recorder: Unmanaged<_DependencyRecorder>?
    /// Above zero while Tether reads properties for itself (see `_quietly`).
    @exclusivity(unchecked) var quietDepth = 0
    @exclusivity(unchecked) var transactionDepth = 0
    @exclusivity(unchecked) var transactionChanges: [_RecordedChange] = []
    @exclusivity(unchecked) var batchDepth = 0
    @exclusivity(unchecked) var dirty: [any _Recomputable] = []
    @exclusivity(unchecked) var dirtyIDs: Set<ObjectIdentifier> = []

    private static var key: pthread_key_t { _TetherFlags.shared.contextKey }

    /// This thread's context, created on first use.
    static var current: _ThreadContext {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<_ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
        }
        let context = _ThreadContext()
        pthread_setspecific(key, Unmanaged.passRetained(context).toOpaque())
        return context
    }

    /// This thread's context if it has one.
    static var existing: _ThreadContext? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<_ThreadContext>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// This thread's context if it has one, unretained (the thread keeps it alive).
    static func existingUnmanaged(_ flags: _TetherFlags) -> Unmanaged<_ThreadContext>? {
        guard let pointer = pthread_getspecific(flags.contextKey) else { return nil }
        return Unmanaged.fromOpaque(pointer)
    }

    /// This thread's context, created on first use, unretained (the thread keeps it alive).
    static func currentUnmanaged(_ flags: _TetherFlags) -> Unmanaged<_ThreadContext> {
        if let pointer = pthread_getspecific(flags.contextKey) { return Unmanaged.fromOpaque(pointer) }
        return Unmanaged.passUnretained(current)
    }

    // MARK: Batches: computed observers recompute once, after every change of a batch.

    /// Runs `body` as one batch: computed observers notified during it recompute once, at the
    /// end of the outermost batch.
    func batch(_ body: () -> Void) {
        batchDepth += 1
        _TetherFlags.shared.batches.add(1, ordering: .relaxed)
        body()
        _TetherFlags.shared.batches.subtract(1, ordering: .relaxed)
        batchDepth -= 1
        if batchDepth == 0 { flushDirty() }
    }

    /// Queues a recomputation for the end of the current batch; returns false when no batch is
    /// open (the caller recomputes at once).
    func deferRecompute(_ observer: any _Recomputable) -> Bool {
        guard batchDepth > 0 else { return false }
        if dirtyIDs.insert(ObjectIdentifier(observer)).inserted { dirty.append(observer) }
        return true
    }

    private func flushDirty() {
        batchDepth += 1
        _TetherFlags.shared.batches.add(1, ordering: .relaxed)
        while !dirty.isEmpty {
            let next = dirty.removeFirst()
            dirtyIDs.remove(ObjectIdentifier(next))
            next.recompute()
        }
        _TetherFlags.shared.batches.subtract(1, ordering: .relaxed)
        batchDepth -= 1
    }
}

/// Queues `observer`'s recomputation for the end of the batch open on this thread, if there is
/// one; returns false otherwise (the caller recomputes at once).
@usableFromInline
func _deferRecompute(_ observer: any _Recomputable) -> Bool {
    _ThreadContext.existing?.deferRecompute(observer) ?? false
}

/// Something that recomputes when a dependency changed (a computed-property observer).
@usableFromInline
protocol _Recomputable: AnyObject {
    func recompute()
}

/// Runs `body` (which reads tracked properties for Tether itself: an observation's first value,
/// a re-delivered change) without reporting its reads to Observation or to an enclosing
/// dependency recorder.
@inlinable
func _quietly<R>(_ body: () -> R) -> R {
    _beginQuiet()
    defer { _endQuiet() }
    return body()
}

@usableFromInline
func _beginQuiet() {
    _ThreadContext.current.quietDepth += 1
    _TetherFlags.shared.reads.add(2, ordering: .relaxed)
}

@usableFromInline
func _endQuiet() {
    _TetherFlags.shared.reads.subtract(2, ordering: .relaxed)
    _ThreadContext.current.quietDepth -= 1
}

/// One dependency of a computed observer: a tracked property of some model, by identity.
@usableFromInline
struct _DependencyKey: Equatable {
    @usableFromInline let registrar: ObjectIdentifier
    @usableFromInline let index: Int
    @usableFromInline init(registrar: ObjectIdentifier, index: Int) {
        self.registrar = registrar
        self.index = index
    }
}

/// Records which tracked properties an evaluation reads, and keeps the observers of those
/// properties for a computed observer.
///
/// Each evaluation is compared, read by read, with the previous one (`expected`): while the
/// getter reads the same properties in the same order (the common case: no branch changed),
/// recording costs a comparison per read, retains nothing and allocates nothing, and the
/// observers are kept as they are. Only reads that differ are collected (with their
/// registrars, retained until `commit`), and `commit` then observes the new dependencies and
/// stops observing the ones no longer read.
///
/// Everything but `removals`, `cancelled` and `invalidated` is touched only on the owner
/// thread of the observed model (evaluations run there). `removals` is behind a lock, because
/// `cancel()` may run on any thread.
@usableFromInline
final class _DependencyRecorder: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: see above; the confined state is only touched by the
    // thread that evaluates (the model's owner), and the rest is atomic or behind `_Locked`.
    // The confined properties need no dynamic exclusivity check (one thread, no overlapping
    // accesses): it is off.

    /// What the last committed evaluation read, in order.
    @exclusivity(unchecked) private var expected: ContiguousArray<_DependencyKey> = []
    /// How many reads of the running evaluation matched `expected`, in order.
    @exclusivity(unchecked) private var matched = 0
    /// Whether the running evaluation stopped following `expected`.
    @exclusivity(unchecked) private var diverged = false
    /// The reads that did not match `expected`, with their registrars (kept alive until
    /// `commit` observes them).
    @exclusivity(unchecked) private var fresh: [(registrar: ModelRegistrar, index: Int)] = []
    /// Whether `expected`'s identities cannot be trusted for this evaluation (see `invalidate`).
    @exclusivity(unchecked) private var rebuilding = false
    /// While evaluating: the thread's context, the recorder this evaluation interrupted, and
    /// the thread's count of Tether's own reads, put aside (an evaluation records its reads
    /// even if it started inside `_quietly`).
    @exclusivity(unchecked) @usableFromInline var context: Unmanaged<_ThreadContext>?
    @exclusivity(unchecked) private var interrupted: Unmanaged<_DependencyRecorder>?
    @exclusivity(unchecked) private var savedQuietDepth = 0
    /// Removes the observer of each dependency of `expected`, in the same order; nil once
    /// cancelled.
    private let removals = _Locked<[any Disposable]?>([])
    @usableFromInline let cancelledFlag = Atomic<Bool>(false)
    /// Set when a model we depend on was freed: its registrar's address may be reused by
    /// another model, so the next evaluation observes everything it reads anew.
    private let invalidated = Atomic<Bool>(false)

    private let flags = _TetherFlags.shared

    @usableFromInline init() {}

    /// Whether an evaluation is running (between `begin()` and `end()`).
    @inlinable var isEvaluating: Bool { context != nil }
    /// Set when a dependency changed during the evaluation (the getter wrote a property it
    /// reads): the observer evaluates again once the current evaluation is over.
    @exclusivity(unchecked) @usableFromInline var needsEvaluation = false

    /// Returns `needsEvaluation` and clears it.
    @inlinable
    func takeNeedsEvaluation() -> Bool {
        guard needsEvaluation else { return false }
        needsEvaluation = false
        return true
    }

    /// Whether `cancel()` was called: the observer must do nothing more.
    @inlinable var isCancelled: Bool { cancelledFlag.load(ordering: .relaxed) }

    func record(_ registrar: ModelRegistrar, _ index: Int) {
        let key = _DependencyKey(registrar: ObjectIdentifier(registrar), index: index)
        if !diverged {
            if matched < expected.count, expected[matched] == key {
                matched += 1
                return
            }
            diverged = true
        }
        // Read already: an earlier matched read, or a fresh one.
        for position in 0..<matched where expected[position] == key { return }
        for entry in fresh where entry.index == index && entry.registrar === registrar { return }
        fresh.append((registrar, index))
    }

    /// Starts an evaluation on the calling thread: reads are recorded until `end()`.
    @usableFromInline
    func begin() {
        matched = 0
        diverged = false
        rebuilding = false
        if invalidated.load(ordering: .acquiring) {
            invalidated.store(false, ordering: .relaxed)
            diverged = true
            rebuilding = true
        }
        let context = _ThreadContext.currentUnmanaged(flags)
        self.context = context
        context._withUnsafeGuaranteedRef { context in
            interrupted = context.recorder
            savedQuietDepth = context.quietDepth
            context.quietDepth = 0
            context.recorder = Unmanaged.passUnretained(self)
        }
        flags.reads.add(2, ordering: .relaxed)
    }

    /// Ends the evaluation; returns true if it read other properties than the last one
    /// (`commit` must then run).
    @usableFromInline
    func end() -> Bool {
        flags.reads.subtract(2, ordering: .relaxed)
        context?._withUnsafeGuaranteedRef { context in
            context.recorder = interrupted
            context.quietDepth = savedQuietDepth
        }
        context = nil
        interrupted = nil
        return diverged || matched != expected.count
    }

    /// Makes the dependencies those of the evaluation that just ended: keeps the observers of
    /// properties still read, adds one (made by `makeObserver` for the registrar it goes to)
    /// for each new one, and removes the others.
    @usableFromInline
    func commit(makeObserver: (ModelRegistrar) -> _SlotObserver) {
        defer { fresh.removeAll(keepingCapacity: true) }
        guard let old = removals.withLock({ $0 }) else { return }   // cancelled
        var keys = ContiguousArray(expected[0..<matched])
        var kept = Array(old[0..<matched])
        var reused = [Bool](repeating: false, count: old.count)
        for position in 0..<matched { reused[position] = true }
        for (registrar, index) in fresh {
            let key = _DependencyKey(registrar: ObjectIdentifier(registrar), index: index)
            keys.append(key)
            if !rebuilding, let position = expected[matched...].firstIndex(of: key), !reused[position] {
                reused[position] = true
                kept.append(old[position])
            } else {
                kept.append(registrar.addObserver(index: index, makeObserver(registrar)))
            }
        }
        let dropped = old.indices.filter { !reused[$0] }.map { old[$0] }
        let cancelled = removals.withLock { removals -> Bool in
            guard removals != nil else { return true }
            removals = kept
            return false
        }
        if cancelled {
            kept.forEach { $0.dispose() }
        } else {
            expected = keys
        }
        dropped.forEach { $0.dispose() }
    }

    /// A model this recorder depends on was freed (called from the observer's `onEnd`).
    @usableFromInline
    func invalidate() {
        invalidated.store(true, ordering: .releasing)
    }

    /// Stops observing: removes every observer, and makes later notifications do nothing.
    @usableFromInline
    func cancel() {
        cancelledFlag.store(true, ordering: .relaxed)
        let removed = removals.withLock { removals -> [any Disposable] in
            defer { removals = nil }
            return removals ?? []
        }
        for removal in removed { removal.dispose() }
    }
}

/// A change made inside a transaction, redelivered when the transaction ends.
struct _RecordedChange {
    let registrar: ObjectIdentifier
    let index: Int
    let redeliver: () -> Void
}

/// Groups changes to models so that observers see one consistent update at the end: inside
/// `body`, writes change the models at once (reads see the new values), but observers are
/// notified only when the outermost transaction ends, once per changed property, with its
/// final value; computed properties recompute once, after all of them.
///
/// ```swift
/// transaction {
///     invoice.quantity = 3
///     invoice.unitPrice = 9.5
/// }   // observers of \.total see one new total, never a half-applied one
/// ```
public func transaction<R>(_ body: () throws -> R) rethrows -> R {
    let context = _ThreadContext.current
    context.transactionDepth += 1
    _TetherFlags.shared.writes.add(1, ordering: .relaxed)
    defer {
        _TetherFlags.shared.writes.subtract(1, ordering: .relaxed)
        context.transactionDepth -= 1
        if context.transactionDepth == 0 {
            let changes = context.transactionChanges
            context.transactionChanges = []
            if !changes.isEmpty {
                context.batch {
                    for change in changes { change.redeliver() }
                }
            }
        }
    }
    return try body()
}

extension Model {
    /// Groups changes so that observers see one consistent update at the end (see the global
    /// `transaction(_:)`, which this calls).
    ///
    /// ```swift
    /// invoice.transaction {
    ///     $0.quantity = 3
    ///     $0.unitPrice = 9.5
    /// }
    /// ```
    public func transaction<R>(_ body: (Self) throws -> R) rethrows -> R {
        try Tether.transaction { try body(self) }
    }
}

/// The calling thread's id, compared with a model's owner thread. Inlinable: an opaque call
/// here would make callers keep the registrar they are checking retained across it.
@inlinable
func _currentThreadID() -> UInt {
    #if canImport(Glibc)
    return UInt(pthread_self())
    #else
    return UInt(bitPattern: pthread_self())
    #endif
}
