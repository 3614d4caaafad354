import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Process-wide switches read on the fast paths of tracked properties. Each is one relaxed atomic
// load: reads and writes of tracked properties stay cheap while nothing is tracking.

/// Whether the Observation bridge is on (see `ObservationBridge`).
@usableFromInline let _observationBridgeEnabled = Atomic<Bool>(true)

/// How many dependency-tracking evaluations are running, on any thread. While zero, a read of a
/// tracked property skips the thread-local lookup altogether.
@usableFromInline let _activeTracking = Atomic<Int>(0)

/// How many transactions are open, on any thread. While zero, a write never looks for one.
@usableFromInline let _activeTransactions = Atomic<Int>(0)

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

/// Records which tracked properties a getter read.
final class _DependencyRecorder {
    struct Dependency: Hashable {
        let registrar: ObjectIdentifier
        let index: Int
    }
    var dependencies: [(registrar: ModelRegistrar, index: Int)] = []
    var seen: Set<Dependency> = []

    func record(_ registrar: ModelRegistrar, _ index: Int) {
        if seen.insert(Dependency(registrar: ObjectIdentifier(registrar), index: index)).inserted {
            dependencies.append((registrar, index))
        }
    }

    /// Evaluates `body` and returns its result with the tracked properties it read.
    static func track<R>(_ body: () -> R) -> (R, [(registrar: ModelRegistrar, index: Int)]) {
        let recorder = _DependencyRecorder()
        let context = _ThreadContext.current
        context.recorders.append(recorder)
        _activeTracking.add(1, ordering: .relaxed)
        let result = body()
        _activeTracking.subtract(1, ordering: .relaxed)
        context.recorders.removeLast()
        return (result, recorder.dependencies)
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
    _activeTransactions.add(1, ordering: .relaxed)
    defer {
        _activeTransactions.subtract(1, ordering: .relaxed)
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
