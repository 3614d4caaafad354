// Public: tracked reads and writes and evaluations, inlined into the code that uses models, reach
// the calling thread's state through C thread-local variables (`tether_recording_get`,
// `tether_transaction_depth_get`, ...); nothing in it is meant to be called from outside Tether.
public import CTetherThread
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread-local slot of each thread's `_ThreadContext`, whose destructor frees the context
/// when its thread exits.
///
/// Which reads must be recorded is a per-thread matter (an evaluation records the reads of its
/// own thread): a read first looks at its own thread's innermost evaluation, in a C
/// thread-local variable (`tether_recording`: one load from the thread pointer, no call), and
/// only then, if there is none, at the process-wide Observation switch (`tether_bridge.h`, a C
/// global: one load, no call). So a read costs the same whatever other threads do, and an
/// evaluation starts and ends with no atomic operation.
final class _ContextKey: Sendable {
    let key: pthread_key_t

    static let shared = _ContextKey()

    private init() {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            // The thread is exiting: a read made by a destructor that runs after this one
            // finds no state (and makes a new context if it must).
            tether_tracking_state_set(nil)
            tether_recording_set(nil)
            if let pointer { pointer.assumingMemoryBound(to: _TrackingState.self).pointee.context?.release() }
        }
        precondition(status == 0, "Tether: pthread_key_create failed (\(status))")
        self.key = key
    }
}

/// What one thread does with tracking right now, besides its innermost evaluation: Tether's own
/// reads. Kept apart from its `_ThreadContext`, in memory of its own, so that the thread-local
/// slot can point at it (no class reference to retain).
///
/// What reads, writes and evaluations touch on every call are C thread-locals of their own, one
/// load each from the thread pointer (`CTetherThread`): the recording of the innermost
/// evaluation (`tether_recording`; each evaluation puts back the one it interrupted when it
/// ends, and `_quietly` puts it aside), and the thread's open transactions and running batches.
///
/// Confined to its thread.
@usableFromInline
struct _TrackingState {
    /// Above zero while Tether reads properties for itself (see `_quietly`).
    @usableFromInline var quietDepth = 0
    /// The context this state belongs to (unretained: the context owns this block while the
    /// thread lives).
    @usableFromInline var context: Unmanaged<_ThreadContext>?
}

/// The recording of the innermost evaluation running on this thread, if any (nil while Tether
/// reads for itself inside one). Its recorder is kept alive by the evaluation's caller.
@inlinable @inline(__always)
func _currentRecording() -> UnsafeMutablePointer<_Recording>? {
    tether_recording_get()?.assumingMemoryBound(to: _Recording.self)
}


/// What one thread is doing with models right now: its tracking state (`tracking`), the open
/// transaction, and the computed observers waiting for the end of a batch.
///
/// Confined to its thread (reached through thread-local storage), so it needs no lock; and for
/// the same reason the dynamic exclusivity checks of its properties could never fire: they are
/// off.
@usableFromInline
final class _ThreadContext {
    /// The thread's tracking state (freed with the context).
    @usableFromInline let tracking: UnsafeMutablePointer<_TrackingState>
    /// How many transactions are open on this thread: in a C thread-local variable, so that a
    /// write checks it with one load (see `_ThreadContext.transactionOpen`).
    var transactionDepth: Int {
        get { tether_transaction_depth_get() }
        set { tether_transaction_depth_set(newValue) }
    }

    /// Whether a transaction is open on this thread (a write then records its change for the
    /// transaction's end). One thread-local load.
    @inlinable @inline(__always)
    static var transactionOpen: Bool { tether_transaction_depth_get() != 0 }
    @exclusivity(unchecked) var transactionChanges: [_RecordedChange] = []
    /// How many batches this thread is running: in a C thread-local variable, so that a
    /// computed observer checks it with one load (see `_ThreadContext.batchesRunning`).
    var batchDepth: Int {
        get { tether_batch_depth_get() }
        set { tether_batch_depth_set(newValue) }
    }
    @exclusivity(unchecked) var dirty: [any _Recomputable] = []
    @exclusivity(unchecked) var dirtyIDs: Set<ObjectIdentifier> = []

    private init() {
        tracking = .allocate(capacity: 1)
        tracking.initialize(to: _TrackingState())
        tracking.pointee.context = Unmanaged.passUnretained(self)
    }

    deinit {
        tracking.deinitialize(count: 1)
        tracking.deallocate()
    }

    private static var key: pthread_key_t { _ContextKey.shared.key }

    /// This thread's context, created on first use. The thread-local variable and slot hold the
    /// context's tracking state, which points back at the context; the slot's destructor
    /// releases it.
    static var current: _ThreadContext {
        if let tracking = existingTracking() { return tracking.pointee.context.unsafelyUnwrapped.takeUnretainedValue() }
        return make()
    }

    @usableFromInline @inline(never)
    static func make() -> _ThreadContext {
        let context = _ThreadContext()
        _ = Unmanaged.passRetained(context)
        pthread_setspecific(key, context.tracking)
        tether_tracking_state_set(context.tracking)
        return context
    }

    /// This thread's context if it has one.
    static var existing: _ThreadContext? {
        existingTracking()?.pointee.context.unsafelyUnwrapped.takeUnretainedValue()
    }

    // MARK: Tracking state: evaluations and Tether's own reads

    /// This thread's tracking state, created on first use (the thread keeps it alive).
    @inlinable @inline(__always)
    static func currentTracking() -> UnsafeMutablePointer<_TrackingState> {
        if let tracking = existingTracking() { return tracking }
        return make().tracking
    }

    /// This thread's tracking state if it has a context.
    @inlinable @inline(__always)
    static func existingTracking() -> UnsafeMutablePointer<_TrackingState>? {
        tether_tracking_state_get()?.assumingMemoryBound(to: _TrackingState.self)
    }

    // MARK: Batches: computed observers recompute once, after every change of a batch.

    /// Whether a batch is running on this thread (a computed observer's recomputation then
    /// waits for its end). One thread-local load.
    @inlinable @inline(__always)
    static var batchesRunning: Bool { tether_batch_depth_get() != 0 }

    /// Runs `body` as one batch: computed observers notified during it recompute once, at the
    /// end of the outermost batch.
    func batch(_ body: () -> Void) {
        batchDepth += 1
        body()
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
        while !dirty.isEmpty {
            let next = dirty.removeFirst()
            dirtyIDs.remove(ObjectIdentifier(next))
            next.recompute()
        }
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
    let interrupted = _beginQuiet()
    defer { _endQuiet(interrupted) }
    return body()
}

/// Starts a section of Tether's own reads: puts the recording of an enclosing evaluation aside
/// (so that a read finds none, and goes to `_recordRead`, which finds the section) and returns
/// it, for `_endQuiet`.
@usableFromInline
func _beginQuiet() -> UnsafeMutablePointer<_Recording>? {
    let tracking = _ThreadContext.currentTracking()
    tracking.pointee.quietDepth += 1
    let interrupted = _currentRecording()
    tether_recording_set(nil)
    return interrupted
}

@usableFromInline
func _endQuiet(_ interrupted: UnsafeMutablePointer<_Recording>?) {
    let tracking = _ThreadContext.currentTracking()
    tracking.pointee.quietDepth -= 1
    tether_recording_set(interrupted)
}

extension ModelRegistrar {
    /// Records a read of property `index` of `model` (whose registrar this is) that the
    /// evaluation at `recording` did not expect (its reads now differ from its last
    /// evaluation's).
    @usableFromInline @inline(never)
    func _recordUnexpectedRead(_ recording: UnsafeMutablePointer<_Recording>, _ model: AnyObject, _ index: Int) {
        recording.pointee.diverge()
        let side = side
        recording.pointee.recorder._withUnsafeGuaranteedRef { $0.recordOther(ObjectIdentifier(model), side, index) }
    }

    /// Whether this thread is reading for Tether itself (inside `_quietly`, outside any
    /// evaluation): such a read is not reported to Observation.
    @usableFromInline
    var _readingQuietly: Bool {
        guard let tracking = _ThreadContext.existingTracking() else { return false }
        return tracking.pointee.quietDepth > 0
    }
}

/// One dependency of a computed observer: a tracked property of some model, by identity.
@usableFromInline
struct _DependencyKey: Equatable, Sendable {
    @usableFromInline let model: ObjectIdentifier
    @usableFromInline let index: Int
    @usableFromInline init(model: ObjectIdentifier, index: Int) {
        self.model = model
        self.index = index
    }

    /// The end of a recording's keys: no read has a negative index, so none matches it.
    static let end = _DependencyKey(model: ObjectIdentifier(_DependencyRecorder.self), index: -1)
}

/// What a running evaluation compares its reads with, and how far it got: the per-read state
/// of a `_DependencyRecorder`, in memory of its own that the thread-local `tether_recording`
/// points at, so that a read updates it through a pointer (no class reference, nothing to
/// retain).
///
/// Touched only by the thread that evaluates.
@usableFromInline
struct _Recording {
    /// What the last committed evaluation read, in order: `expectedCount` keys, then two
    /// `_DependencyKey.end` markers (which no read matches), in memory owned by the recorder and
    /// replaced only by `commit` (never during an evaluation).
    @usableFromInline var expected: UnsafeMutablePointer<_DependencyKey>
    @usableFromInline var expectedCount = 0
    /// `expected + expectedCount`: the first end marker, where an evaluation that read exactly
    /// the expected keys leaves the cursor.
    @usableFromInline var expectedEnd: UnsafeMutablePointer<_DependencyKey>
    /// How many keys (the end markers included) `expected`'s memory holds.
    var expectedCapacity = 2
    /// The key the running evaluation's next read is compared with: it moves along `expected`
    /// while the reads match. Once they stop matching, it stays on the second end marker (so a
    /// read costs one comparison, whichever way it goes, and an evaluation that read exactly
    /// the expected keys is one whose cursor ends on the first marker).
    @usableFromInline var cursor: UnsafeMutablePointer<_DependencyKey>
    /// How many reads matched `expected` before the evaluation diverged.
    var matchedBeforeDivergence = 0
    /// Whether an evaluation is running (between `begin()` and `end(_:)`).
    @usableFromInline var evaluating = false
    /// The recorder (unretained: it owns this memory).
    @usableFromInline let recorder: Unmanaged<_DependencyRecorder>

    init(recorder: Unmanaged<_DependencyRecorder>) {
        self.recorder = recorder
        expected = .allocate(capacity: 2)
        expected.initialize(repeating: .end, count: 2)
        cursor = expected
        expectedEnd = expected
    }

    /// Whether the running evaluation stopped following `expected`.
    var diverged: Bool { cursor == expectedEnd + 1 }

    /// How many reads of the running evaluation matched `expected`, in order.
    var matched: Int { diverged ? matchedBeforeDivergence : cursor - expected }

    /// Whether the evaluation that just ended read other keys than `expected` (in number, in
    /// order, or in identity).
    @inlinable @inline(__always)
    var readOthers: Bool { cursor != expectedEnd }

    /// The keys of the last committed evaluation.
    var expectedKeys: UnsafeBufferPointer<_DependencyKey> { UnsafeBufferPointer(start: expected, count: expectedCount) }

    /// Starts following `expected` from its first key.
    @inlinable @inline(__always)
    mutating func start() {
        cursor = expected
    }

    /// Records the read if it is the one the last evaluation made at this point; returns false
    /// (and records nothing) otherwise.
    @inlinable @inline(__always)
    mutating func recordExpected(_ model: AnyObject, _ index: Int) -> Bool {
        let next = cursor
        guard next.pointee.model == ObjectIdentifier(model), next.pointee.index == index else { return false }
        cursor = next + 1
        return true
    }

    /// Stops following `expected`: the reads from here on are collected by the recorder.
    mutating func diverge() {
        guard !diverged else { return }
        matchedBeforeDivergence = cursor - expected
        cursor = expectedEnd + 1
    }
}

/// Records which tracked properties an evaluation reads, and keeps the observers of those
/// properties for a computed observer.
///
/// Each evaluation is compared, read by read, with the previous one (`_Recording.expected`):
/// while the getter reads the same properties in the same order (the common case: no branch
/// changed), recording costs a comparison per read, retains nothing and allocates nothing,
/// and the observers are kept as they are. Only reads that differ are collected (with their
/// registrars' side objects, retained until `commit`), and `commit` then observes the new dependencies and
/// stops observing the ones no longer read.
///
/// Everything but `removals`, `cancelled` and `invalidated` is touched only on the owner
/// thread of the observed model (evaluations run there). `removals` is behind a lock, because
/// `cancel()` may run on any thread.
@usableFromInline
final class _DependencyRecorder: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: see above; the confined state (this object's variables
    // and `recording`'s memory) is only touched by the thread that evaluates (the model's
    // owner), and the rest is atomic or behind `_Locked`. The confined properties need no
    // dynamic exclusivity check (one thread, no overlapping accesses): it is off.

    /// The per-read state (owned: freed with the recorder).
    @usableFromInline let recording: UnsafeMutablePointer<_Recording>
    /// The reads that did not match `expected`: the model, by identity, the side object of its
    /// registrar (kept alive until `commit` observes it) and the property.
    @exclusivity(unchecked) private var fresh: [(model: ObjectIdentifier, side: _RegistrarSide, index: Int)] = []
    /// Whether `expected`'s identities cannot be trusted for this evaluation (see `invalidate`);
    /// set by `begin()`, cleared by `commit`.
    @exclusivity(unchecked) private var rebuilding = false
    /// Removes the observer of each dependency of `expected`, in the same order; nil once
    /// cancelled.
    private let removals = _Locked<[any Disposable]?>([])
    @usableFromInline let cancelledFlag = Atomic<Bool>(false)
    /// Set when a model we depend on was freed: its address may be reused by
    /// another model, so the next evaluation observes everything it reads anew.
    @usableFromInline let invalidated = Atomic<Bool>(false)
    /// Models read through references that hold them weakly (`_keepWhileObserved`), by
    /// identity, since the last commit: the commit keeps those it observes alive.
    @exclusivity(unchecked) private var readTargets: [ObjectIdentifier: AnyObject] = [:]


    @usableFromInline init() {
        recording = .allocate(capacity: 1)
        recording.initialize(to: _Recording(recorder: Unmanaged.passUnretained(self)))
    }

    deinit {
        recording.pointee.expected.deinitialize(count: recording.pointee.expectedCount + 2)
        recording.pointee.expected.deallocate()
        recording.deinitialize(count: 1)
        recording.deallocate()
    }

    /// Whether an evaluation is running (between `begin()` and `end()`).
    @inlinable var isEvaluating: Bool { recording.pointee.evaluating }
    /// Set when a dependency changed during the evaluation (the getter wrote a property it
    /// reads): the observer evaluates again once the current evaluation is over.
    @exclusivity(unchecked) @usableFromInline var needsEvaluation = false

    /// Whether `cancel()` was called: the observer must do nothing more.
    @inlinable var isCancelled: Bool { cancelledFlag.load(ordering: .relaxed) }

    /// Records a read that differs from the last evaluation's (`_Recording.record` set
    /// `diverged`).
    @inline(never)
    func recordOther(_ model: ObjectIdentifier, _ side: _RegistrarSide, _ index: Int) {
        let key = _DependencyKey(model: model, index: index)
        // Read already: an earlier matched read, or a fresh one.
        let recording = self.recording
        for position in 0..<recording.pointee.matched where recording.pointee.expected[position] == key {
            return
        }
        for entry in fresh where entry.index == index && entry.model == model && entry.side === side { return }
        fresh.append((model, side, index))
    }

    /// Starts an evaluation on the calling thread: reads are recorded until `end(_:)`, which
    /// takes what this returns. Inlined into the evaluation, with `end(_:)`: what they put
    /// aside stays in registers.
    @inlinable @inline(__always)
    func begin() -> _Evaluation {
        let recording = self.recording
        recording.pointee.start()
        recording.pointee.evaluating = true
        if _slowPath(invalidated.load(ordering: .acquiring)) { rebuild() }
        let evaluation = _Evaluation(interrupted: _currentRecording())
        tether_recording_set(recording)
        return evaluation
    }

    /// A model this recorder depended on was freed: this evaluation observes everything it
    /// reads anew (see `invalidate`).
    @usableFromInline @inline(never)
    func rebuild() {
        invalidated.store(false, ordering: .relaxed)
        recording.pointee.diverge()
        rebuilding = true
    }

    /// Ends the evaluation `begin()` started; returns true if it read other properties than
    /// the last one (`commit` must then run).
    @inlinable @inline(__always)
    func end(_ evaluation: _Evaluation) -> Bool {
        tether_recording_set(evaluation.interrupted)
        let recording = self.recording
        recording.pointee.evaluating = false
        return recording.pointee.readOthers
    }

    /// Remembers `target`, read through a reference that holds it weakly, until the next
    /// commit, which keeps it alive with the observers of its properties (unless those are
    /// observed already: then they keep it).
    @usableFromInline @inline(never)
    func keep(_ target: AnyObject) {
        let id = ObjectIdentifier(target)
        for key in recording.pointee.expectedKeys where key.model == id { return }
        // Read and never observed (only compared with nil, say): not kept for long.
        if readTargets.count >= 64 { readTargets.removeAll(keepingCapacity: true) }
        readTargets[id] = target
    }

    /// Makes the dependencies those of the evaluation that just ended: keeps the observers of
    /// properties still read, adds one (made by `makeObserver` for the model it goes to)
    /// for each new one, and removes the others. An observer of a model read through a weak
    /// reference (`keep`) keeps that model alive until it is removed.
    @usableFromInline
    func commit(makeObserver: (ObjectIdentifier) -> _SlotObserver) {
        defer {
            fresh.removeAll(keepingCapacity: true)
            readTargets.removeAll(keepingCapacity: true)
            rebuilding = false
        }
        guard let old = removals.withLock({ $0 }) else { return }   // cancelled
        let expected = recording.pointee.expectedKeys
        let matched = recording.pointee.matched
        var keys = ContiguousArray(expected[0..<matched])
        var kept = Array(old[0..<matched])
        var reused = [Bool](repeating: false, count: old.count)
        for position in 0..<matched { reused[position] = true }
        for (model, side, index) in fresh {
            let key = _DependencyKey(model: model, index: index)
            keys.append(key)
            if !rebuilding, let position = expected[matched...].firstIndex(of: key), !reused[position] {
                reused[position] = true
                kept.append(old[position])
            } else {
                let removal = side.addObserver(index: index, makeObserver(model))
                if let target = readTargets[model] {
                    kept.append(_KeepingAlive(removal, target))
                } else {
                    kept.append(removal)
                }
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
            // The keys are plain values: the memory is reused while it is big enough.
            if keys.count + 2 > recording.pointee.expectedCapacity {
                recording.pointee.expected.deallocate()
                recording.pointee.expected = .allocate(capacity: keys.count + 2)
                recording.pointee.expectedCapacity = keys.count + 2
            }
            let stored = recording.pointee.expected
            _ = UnsafeMutableBufferPointer(start: stored, count: keys.count).initialize(from: keys)
            (stored + keys.count).initialize(repeating: .end, count: 2)
            recording.pointee.expectedCount = keys.count
            recording.pointee.expectedEnd = stored + keys.count
            recording.pointee.cursor = stored
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

/// Keeps a model alive as long as an observer of one of its properties is registered: the
/// removal of that observer, holding the model too.
///
/// Why `@unchecked Sendable` is safe: `target` is never used, only retained until this object
/// is freed; `removal` is `Sendable`.
final class _KeepingAlive: Disposable, @unchecked Sendable {
    private let removal: any Disposable
    private let target: AnyObject

    init(_ removal: any Disposable, _ target: AnyObject) {
        self.removal = removal
        self.target = target
    }

    func dispose() { removal.dispose() }
    var isDisposed: Bool { removal.isDisposed }
}

/// Keeps `target`, just read through a reference that holds it weakly (the inverse of a
/// to-many relationship: `@Relationship var customer: Customer?`), alive while the evaluation
/// running on this thread observes properties of it, and as long as it does. Without it, a
/// target that nobody else holds would be freed after the read, and a change to its row made
/// elsewhere (a customer renamed) would reach no model and no observer. Used by code that
/// `@Model` generates.
@inlinable @inline(__always)
public func _keepWhileObserved<Target: Model>(_ target: Target) {
    if let recording = _currentRecording() {
        recording.pointee.recorder.takeUnretainedValue().keep(target)
    }
}

/// What an evaluation put aside on its thread (see `_DependencyRecorder.begin()`): the recording
/// of the evaluation it interrupted (nil if none, or if it started inside `_quietly`: its reads
/// are recorded all the same, since a read looks at the recording before the quiet count).
@usableFromInline
struct _Evaluation {
    @usableFromInline let interrupted: UnsafeMutablePointer<_Recording>?
    @inlinable
    init(interrupted: UnsafeMutablePointer<_Recording>?) {
        self.interrupted = interrupted
    }
}

/// A change made inside a transaction, redelivered when the transaction ends.
struct _RecordedChange {
    let model: ObjectIdentifier
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
    defer {
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
