import CTetherThread
import Foundation

/// Everything the store keeps on the model's thread.
///
/// The fields that every write of a stored model reads or changes (`Store.changed`) have
/// exclusivity checking turned off (`@exclusivity(unchecked)`): its dynamic checks cost about 80
/// instructions per access, half of what recording a write costs. No access to them can
/// overlap another: the state is only touched on the model's thread (or on the writer queue
/// while that thread waits for it), and each access is a read or a change of a standard
/// collection whose keys are the store's own types, which calls no code of the app's; where
/// the store runs the app's code over them (a model's rules), it iterates over a copy.
final class _StoreState {
    var tables: [ObjectIdentifier: _Table] = [:]
    var tablesByName: [String: _Table] = [:]
    var identity = _IdentityMap()
    @exclusivity(unchecked) var dirty: [ObjectIdentifier: _DirtyRow] = [:]
    /// Pending rows a database constraint refused, kept back until their model changes again.
    @exclusivity(unchecked) var rejected: [ObjectIdentifier: ValidationError] = [:]
    /// Pending rows kept back because a value could not be stored (tried again at each write).
    var unstorable: Set<ObjectIdentifier> = []
    /// What was last reported on `errors` for a row kept back (each new set of failures is
    /// reported once).
    var reportedInvalid: [ObjectIdentifier: ValidationError] = [:]
    @exclusivity(unchecked) var dirtyOrder: [ObjectIdentifier] = []
    /// The rows of the batches whose commit is under way, by batch number.
    var inFlight: [Int: [_TakenRow]] = [:]
    /// Rows whose live model reflects the database as of a stamp while older events still wait
    /// in the inbox (it was loaded or inserted after them): those events are not applied to it.
    var rowStamps: [_RowKey: UInt64] = [:]
    /// Whether `update`'s closure is running (the writer queue holds the write lock for it).
    var inWriteLock = false
    var nextBatch = 1
    /// Columns being set from the database: their next change notification is not written back.
    @exclusivity(unchecked) var suppressed: Set<_Suppressed> = []
    var liveQueries: [Int: any _AnyLiveQuery] = [:]
    /// The order columns (`Table\0column`) whose index `ensureOrderIndex` has seen to.
    var orderIndexes: Set<String> = []
    @exclusivity(unchecked) var commitScheduled = false
    var retryDelay: Duration?
    /// Whether the store was closed (`Store.close()`, or by its exit handler).
    @exclusivity(unchecked) var closed = false
    /// Whether `StoreError.fileLost` was sent on `errors` since the last successful write: it
    /// is sent once per loss, not at every retry.
    var fileLostReported = false
    /// The to-many relationships, by the parent's table and by the children's table.
    @exclusivity(unchecked) var toManyByParent: [String: [_ToMany]] = [:]
    var toManyByChild: [String: [_ToMany]] = [:]
    /// The parent whose collection each child row was last placed in, by relationship.
    var parentOf: [_MemberKey: Int64] = [:]
    /// The size of `parentOf` at which entries of children no longer in memory are dropped.
    var parentOfPruneAt = 4_096
    /// Whether collections are being loaded (the children loaded for them are placed there, not
    /// one by one).
    var loadingCollections = 0
    /// The parents (with to-many relationships) that each table's latest fetch made, in its
    /// order, up to `Store.collectionBatch * 8`: the first use of one's collections loads those
    /// of the next ones still unloaded too, in one query (a list of parents read in turn).
    var lastFetchedParents: [String: [(model: _WeakModel, id: Int64)]] = [:]
    /// How many `insertChildren` are inserting the children of parents just inserted (they
    /// place them all at once after).
    var insertingChildren = 0
    /// While a write attaches its models (see `Store.insert`): events at or after this stamp
    /// wait, even for a `drain` called from within (an observer that refreshes).
    var drainCeiling: UInt64 = .max
    /// Collections with children appended whose insert failed: tried again at the next commit.
    var unsavedCollections: [_CollectionKey: (parent: _WeakModel, relation: _ToMany)] = [:]
    /// How many `quietTransaction`s are running.
    var quietTransactions = 0
    /// For tests: run first by each commit handed to the writer queue to run later, there (a
    /// seeded test makes it wait for the other store's next operation, as the write lock may).
    var beforeAsynchronousCommit: (@Sendable () -> Void)?
}

struct _Suppressed: Hashable {
    let object: ObjectIdentifier
    let column: Int
}

/// The store, without keeping it alive: for closures that run on the store's scheduler, for
/// the persistence hooks of its models (every set of a stored model reaches the store through
/// one), and for the registry of open stores.
///
/// It holds the store by an unowned count (`tether_reference_retain`, as the identity map holds
/// models), not a `weak` reference: a weak reference would give the store a side table, and
/// every retain and release of the store (two per set of a stored model) would take the
/// runtime's slow path. A store that has ended leaves the memory of its object until its last
/// box is freed.
///
/// Why `@unchecked Sendable` is safe: `object` is written once, by `attach`, before the box is
/// shared with any other code (the store's initialiser and `_StoreRegistry.add` make a box and
/// attach it at once), and only read afterwards; the runtime's counts are atomic. The closures
/// that read `store` run on the store's scheduler, which is the store's (and its models')
/// thread; the writer queue never dereferences it, it only passes it to work scheduled back
/// onto the store's scheduler.
final class _StoreBox: @unchecked Sendable {
    /// The store's address, held by an unowned count (nil until `attach`).
    private var object: UnsafeMutableRawPointer?

    /// Points the box at `store` (once, before the box is shared).
    func attach(_ store: Store) {
        precondition(object == nil, "a store box is attached once")
        let object = Unmanaged.passUnretained(store).toOpaque()
        tether_reference_retain(object)
        self.object = object
    }

    /// The store, if it is still alive.
    var store: Store? {
        guard let object, tether_reference_try_retain(object) else { return nil }
        return Unmanaged<Store>.fromOpaque(object).takeRetainedValue()
    }

    deinit {
        if let object { tether_reference_release(object) }
    }
}
