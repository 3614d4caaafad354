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
/// modules). While nothing is tracking, no transaction is open and the Observation bridge is off,
/// a read or write of a tracked property costs one relaxed atomic load more than a plain one.
@usableFromInline
final class _TetherFlags: Sendable {
    /// Bit 0: the Observation bridge is on. Above it: twice the number of dependency-tracking
    /// evaluations running, on any thread. Non-zero: a read must report itself.
    @usableFromInline let reads = Atomic<Int>(1)
    /// Bit 0: the Observation bridge is on. Above it: twice the number of open transactions, on
    /// any thread. Non-zero: a write must look further than its own observers.
    @usableFromInline let writes = Atomic<Int>(1)

    @usableFromInline static let shared = _TetherFlags()

    var bridgeEnabled: Bool { reads.load(ordering: .relaxed) & 1 != 0 }

    func setBridge(_ enabled: Bool) {
        if enabled {
            reads.bitwiseOr(1, ordering: .relaxed)
            writes.bitwiseOr(1, ordering: .relaxed)
        } else {
            reads.bitwiseAnd(~1, ordering: .relaxed)
            writes.bitwiseAnd(~1, ordering: .relaxed)
        }
    }

    var trackingActive: Bool { reads.load(ordering: .relaxed) > 1 }
    var transactionsOpen: Bool { writes.load(ordering: .relaxed) > 1 }
}

/// What one thread is doing with models right now: dependency recorders (innermost last),
/// the open transaction, and the computed observers waiting for the end of a batch.
///
/// Confined to its thread (stored in thread-local storage), so it needs no lock.
final class _ThreadContext {
    var recorders: [_DependencyRecorder] = []
    var transactionDepth = 0
    var transactionChanges: [_RecordedChange] = []
    var batchDepth = 0
    var dirty: [any _Recomputable] = []
    var dirtyIDs: Set<ObjectIdentifier> = []

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<_ThreadContext>.fromOpaque(pointer).release() }
        }
        precondition(status == 0, "Tether: pthread_key_create failed (\(status))")
        return key
    }()

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

    // MARK: Batches: computed observers recompute once, after every change of a batch.

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

/// Something that recomputes when a dependency changed (a computed-property observer).
protocol _Recomputable: AnyObject {
    func recompute()
}

/// Records which tracked properties a getter read. A computed-property observer keeps one and
/// reuses it for every recomputation (no allocation once its arrays have grown).
final class _DependencyRecorder {
    private(set) var registrars: [ModelRegistrar] = []
    private(set) var indices: [Int] = []

    func record(_ registrar: ModelRegistrar, _ index: Int) {
        // Getters read few properties: a linear scan beats hashing.
        for position in indices.indices where indices[position] == index && registrars[position] === registrar {
            return
        }
        registrars.append(registrar)
        indices.append(index)
    }

    /// Evaluates `body` and records the tracked properties it reads (replacing what was recorded).
    func track<R>(_ body: () -> R) -> R {
        registrars.removeAll(keepingCapacity: true)
        indices.removeAll(keepingCapacity: true)
        let context = _ThreadContext.current
        context.recorders.append(self)
        _TetherFlags.shared.reads.add(2, ordering: .relaxed)
        let result = body()
        _TetherFlags.shared.reads.subtract(2, ordering: .relaxed)
        context.recorders.removeLast()
        return result
    }

    /// Forgets the registrars it holds (so they are not kept alive between recomputations).
    func clear() {
        registrars.removeAll(keepingCapacity: true)
        indices.removeAll(keepingCapacity: true)
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
    _TetherFlags.shared.writes.add(2, ordering: .relaxed)
    defer {
        _TetherFlags.shared.writes.subtract(2, ordering: .relaxed)
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

/// The calling thread's id, compared with a model's owner thread.
@usableFromInline
func _currentThreadID() -> UInt {
    #if canImport(Glibc)
    return UInt(pthread_self())
    #else
    return UInt(bitPattern: pthread_self())
    #endif
}
