import Foundation
import Synchronization

/// A model that a `Store` can create from a row: a `@Model` class with an initialiser that
/// takes no arguments (every property has a default).
///
/// ```swift
/// @Model final class Invoice { var customer = ""; var quantity = 1 }
/// extension Invoice: PersistentModel {}
/// ```
public protocol PersistentModel: Model {
    init()
}

extension Model {
    /// The row id of this model in the store it was inserted into or loaded from, or nil (also
    /// once its row was deleted).
    public var persistentID: Int64? {
        let id = _$registrar.rowID.load(ordering: .relaxed)
        return id > 0 ? id : nil
    }
}

/// SQLite persistence for `@Model` objects: rows become live models, and every change to a
/// stored model is written through, without a save call.
///
/// ```swift
/// let store = try Store(path: "invoices.sqlite")
/// let invoice = try store.insert(Invoice())        // persisted; changes are written through
/// invoice.quantity = 3                              // no save() call
/// try store.flush()                                 // returns once every change is committed
/// let same = try store.load(Invoice.self, id: invoice.persistentID!)   // the same object
/// let big = try store.fetch(Invoice.self, where: "quantity > ?", [2], orderBy: \.customer)
/// try store.delete(invoice)
/// ```
///
/// **Threads.** The store, like its models, belongs to the thread that created it (see
/// docs/PERSISTENCE.md): call it there. Its connection lives on its own serial queue; what
/// crosses between the two are `Sendable` snapshots of values (but `insert` binds new rows
/// straight from the models while their thread waits for the queue).
///
/// **Write-through.** Changes made during one turn of the store's scheduler are committed
/// together at the end of that turn: one transaction, one `UPDATE` per changed row, touching only
/// the changed columns. `flush()` commits pending changes at once and returns when they are
/// durable (committed in WAL mode: they survive the process being killed).
///
/// **Faults.** A failed commit (busy, read-only, full disk, constraint...) is sent on `errors`
/// (and thrown from `flush()`); the models keep their values, and the changes stay pending and are
/// retried at the next commit, after a short delay, or at `flush()`. Nothing is dropped.
public final class Store {
    /// The database file.
    public let path: String
    let writer: DatabaseQueue
    let scheduler: any Scheduler
    let state = _StoreState()
    let errorSubject = Subject<StoreError, Never>()
    let changeSubject = Subject<StoreChange, Never>()
    let box: _StoreBox
    let tracker = _ChangeTracker()
    var watcher: _ChangeWatcher?

    /// The store's connection, on its serial queue: `Sendable`, so any thread can read through it
    /// (`store.database.sync { try $0.rows("SELECT ...") }`) while the models' thread changes
    /// models; reads and commits take turns on the queue.
    public var database: DatabaseQueue { writer }

    /// Failed commits and other errors that happened without a caller to throw to. Completes
    /// when the store is freed.
    public var errors: Signal<StoreError, Never> { errorSubject.signal }

    /// Every committed change to the rows of the store's model tables, whoever made it: this
    /// store (`isLocal`), another connection, another process (the sqlite3 shell included).
    /// Changes arrive on the store's scheduler, in commit order, after the live models were
    /// updated. Completes when the store is freed.
    ///
    /// ```swift
    /// store.committedChanges
    ///     .filter { !$0.isLocal }
    ///     .subscribe(next: { print("changed elsewhere:", $0.table, $0.rowID, $0.kind) })
    /// ```
    public var committedChanges: Signal<StoreChange, Never> { changeSubject.signal }

    /// Opens (or creates) the database at `path` and applies `migrator`'s migrations (by default,
    /// only Tether's bookkeeping, the files of `schema/` named `_tether_`: the migrations record
    /// and the change log; pass `Migrator.builtIn()` for everything in `schema/`, or your own,
    /// which must include `001_tether_metadata.sql` and `002_tether_changes.sql`, and should
    /// include `004_tether_change_ranges.sql`: without it, a big insert logs every row through the
    /// trigger instead of one entry per range of ids). Tables for model types are created or
    /// extended on first use.
    ///
    /// - Parameters:
    ///   - scheduler: where the models live; pending changes are committed at the end of its turn
    ///     (`MainScheduler.shared` for an app whose models live on the main thread).
    ///   - busyTimeout: how long a write waits for another connection's lock.
    ///   - watchesExternalChanges: whether to notice changes made by other connections and
    ///     processes by itself (see docs/PERSISTENCE.md, "Changes made elsewhere"). Without it,
    ///     `refresh()` looks for them when called.
    public init(
        path: String,
        scheduler: any Scheduler = MainScheduler.shared,
        migrator: Migrator? = nil,
        busyTimeout: Duration = .seconds(5),
        watchesExternalChanges: Bool = true
    ) throws(StoreError) {
        self.path = path
        self.scheduler = scheduler
        do {
            writer = try DatabaseQueue(path: path, options: .init(busyTimeout: busyTimeout), label: "Tether.Store")
            let migrator = try migrator ?? Migrator.tetherOwn()
            let tracker = self.tracker
            _ = try writer.sync { connection in
                let applied = try migrator.migrate(connection)
                try tracker.start(connection)
                return applied.count
            }
        } catch {
            throw StoreError.wrap(error)
        }
        box = _StoreBox()
        box.store = self
        _StoreRegistry.shared.add(self)
        if watchesExternalChanges { startWatching() }
    }

    deinit {
        watcher?.stop()
        try? commitPending(synchronously: true)
        _StoreRegistry.shared.remove(self)
        let queries = state.liveQueries.values
        state.liveQueries = [:]
        for query in queries { query.end() }
        changeSubject.sendCompleted()
        errorSubject.sendCompleted()
    }

    // MARK: Tables

    func table<M: PersistentModel>(for type: M.Type) throws(StoreError) -> _Table {
        let key = ObjectIdentifier(type)
        if let table = state.tables[key] { return table }
        do {
            let definition = try TableDefinition(for: type, defaultsFrom: M())
            let properties = M._$schema.properties
            let table = _Table(
                makeModel: {
                    let model = M()
                    // The model holds its registrar for as long as the caller holds the model.
                    return (model, Unmanaged.passUnretained(model._$registrar))
                },
                registrarOf: { Unmanaged.passUnretained(unsafeDowncast($0, to: M.self)._$registrar) },
                definition: definition,
                columns: definition.columns.map { _ColumnIO.make(properties[$0.propertyIndex], column: $0) },
                propertyNames: properties.map(\.name),
                box: box)
            let tracker = self.tracker
            _ = try writer.sync { connection in
                let statements = try definition.createOrUpdate(in: connection)
                try tracker.register(table, in: connection)
                return statements
            }
            state.tables[key] = table
            state.tablesByName[table.name] = table
            return table
        } catch {
            throw StoreError.wrap(error)
        }
    }

    // MARK: Insert, load, fetch, delete

    /// Inserts `model` as a new row, and from then on writes its changes through. Returns the
    /// model (now with a `persistentID`). Inserting a model that is already stored does nothing.
    @discardableResult
    public func insert<M: PersistentModel>(_ model: M) throws(StoreError) -> M {
        try insert(contentsOf: [model])
        return model
    }

    /// Inserts several models in one transaction.
    public func insert<M: PersistentModel>(contentsOf models: [M]) throws(StoreError) {
        let table = try table(for: M.self)
        // The work is done without generics (nothing looks up generic type metadata per
        // model). A reference to an `M` and an `AnyObject` are both one strong pointer to the
        // object: the buffer can be seen as either.
        do {
            try models.withUnsafeBufferPointer { buffer in
                try buffer.withMemoryRebound(to: AnyObject.self) { objects in try insert(objects, table: table) }
            }
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Inserts the models of `table`'s type among `objects` that are not stored yet.
    private func insert(_ objects: UnsafeBufferPointer<AnyObject>, table: _Table) throws {
        let registrarOf = table.registrarOf
        var fresh: [Int] = []
        fresh.reserveCapacity(objects.count)
        for index in objects.indices where registrarOf(objects[index])._withUnsafeGuaranteedRef({ $0.rowID.load(ordering: .relaxed) <= 0 }) {
            fresh.append(index)
        }
        guard !fresh.isEmpty else { return }
        // The rows are bound straight from the models, on the writer queue, while this thread
        // waits for it (see `_WaitingModels`): no copy of the values in between.
        let models = _WaitingModels(objects: objects, indices: fresh)
        let sql = table.insertSQL
        let count = fresh.count
        let tracker = self.tracker
        let tableName = table.name
        let (ids, changes) = try writer.sync { connection in
            // Many rows: the tracker runs this with the triggers off and logs ranges of ids.
            try tracker.insert(connection, into: tableName, count: count) {
                let statement = try connection.cachedStatement(sql)
                var ids: [Int64] = []
                ids.reserveCapacity(count)
                for index in models.indices {
                    try table.bindAll(models.objects[index], to: statement)
                    try statement.run()   // and resets
                    ids.append(connection.lastInsertRowID)
                }
                return ids
            }
        }
        let hook = table.liveHook!
        let live = state.identity.rows(table.name)
        for (index, id) in zip(fresh, ids) {
            // `objects[index]` is borrowed each time, not held in a local: a local would be
            // retained, then released once the weak reference below made its count slow.
            registrarOf(objects[index])._withUnsafeGuaranteedRef { registrar in
                registrar.rowID.store(id, ordering: .relaxed)
                registrar.setPersistence(hook)
            }
            live.set(objects[index], for: id)
        }
        pruneLogIfDue()
        apply(changes)
    }

    /// Has the writer queue prune the change log after this write, if it is due (in a
    /// transaction of its own, after the write: it never slows a commit down).
    func pruneLogIfDue() {
        let tracker = self.tracker
        guard tracker.pruneDue() else { return }
        writer.async { connection in tracker.pruneIfDue(connection) }
    }

    /// The live model of row `id`: the one already in memory if there is one (the identity
    /// map), else a new one read from the database; nil if there is no such row.
    public func load<M: PersistentModel>(_ type: M.Type, id: Int64) throws(StoreError) -> M? {
        let table = try table(for: type)
        if let live = state.identity[_RowKey(table: table.name, id: id)] { return unsafeDowncast(live, to: M.self) }
        return try _fetch(type, sql: table.selectByIDSQL, [.integer(id)], table: table).first
    }

    /// The models whose rows match `condition` (SQL, with `?` placeholders bound to
    /// `arguments`), ordered by `orderBy`, as live identity-mapped objects.
    ///
    /// ```swift
    /// let big = try store.fetch(Invoice.self, where: "quantity > ?", [2], orderBy: \.customer)
    /// ```
    public func fetch<M: PersistentModel, V>(
        _ type: M.Type,
        where condition: String? = nil,
        _ arguments: [SQLiteValue] = [],
        orderBy: KeyPath<M, V> & Sendable,
        descending: Bool = false
    ) throws(StoreError) -> [M] {
        let index = try Self.propertyIndex(of: orderBy)
        return try _fetch(type, where: condition, arguments, orderBy: index, descending: descending)
    }

    /// The index of the persisted property at `keyPath` (an `orderBy`), or a mapping error.
    static func propertyIndex<M: PersistentModel, V>(of keyPath: KeyPath<M, V>) throws(StoreError) -> Int {
        guard let index = M._$schema.index(of: keyPath) else {
            throw .mapping(.unsupportedType(model: M._$schema.name, property: "\(keyPath)", type: "(not a persisted property)"))
        }
        return index
    }

    /// The models whose rows match `condition` (SQL, with `?` placeholders bound to
    /// `arguments`), in the order of their ids, as live identity-mapped objects.
    ///
    /// ```swift
    /// let all = try store.fetch(Invoice.self)
    /// ```
    public func fetch<M: PersistentModel>(
        _ type: M.Type,
        where condition: String? = nil,
        _ arguments: [SQLiteValue] = []
    ) throws(StoreError) -> [M] {
        try _fetch(type, where: condition, arguments, orderBy: nil, descending: false)
    }

    func _fetch<M: PersistentModel>(
        _ type: M.Type,
        where condition: String?,
        _ arguments: [SQLiteValue],
        orderBy: Int?,
        descending: Bool
    ) throws(StoreError) -> [M] {
        let table = try table(for: type)
        let sql = try table.querySQL(columns: nil, where: condition, orderBy: orderBy, descending: descending)
        return try _fetch(type, sql: sql, arguments, table: table)
    }

    /// The live models of the rows `sql` selects (every column of `table`, id first).
    func _fetch<M: PersistentModel>(_ type: M.Type, sql: String, _ arguments: [SQLiteValue], table: _Table) throws(StoreError) -> [M] {
        // The models are made on the writer queue as the rows are stepped, while this thread
        // waits for it (see `_WhileWaiting`): no copy of the rows' values in between. They
        // belong to this thread.
        var fetched = _FetchedModels()
        let state = self.state
        let owner = ModelRegistrar.currentThread
        do {
            try withUnsafeMutablePointer(to: &fetched) { fetched throws(StoreError) in
                let waiting = _WhileWaiting((state: state, fetched: fetched))
                do {
                    try writer.sync { connection in
                        let statement = try connection.cachedStatement(sql)
                        defer { statement.reset() }
                        try statement.bind(arguments)
                        let (state, fetched) = waiting.value
                        try table.materialize(statement, live: state.identity.rows(table.name), into: &fetched.pointee, owner: owner)
                    }
                } catch {
                    throw StoreError.wrap(error)
                }
            }
        }
        return fetched.take(as: M.self)
    }

    /// Deletes the model's row; the model stops being written through (a later change to it is
    /// not written, and is reported on `errors` as `StoreError.deleted`).
    public func delete<M: PersistentModel>(_ model: M) throws(StoreError) {
        let table = try table(for: M.self)
        guard let id = model.persistentID else { throw .notStored(model: M._$schema.name) }
        let sql = "DELETE FROM \(table.quotedName) WHERE id = ?"
        let tracker = self.tracker
        let tableName = table.name
        let changes: _ChangeSet
        do {
            changes = try writer.sync { connection in
                try tracker.write(connection, { try connection.execute(sql, [.integer(id)]) },
                                  rows: { [(tableName, id, StoreChange.Kind.delete)] }).1
            }
        } catch {
            throw StoreError.wrap(error)
        }
        markDeleted(model, key: _RowKey(table: table.name, id: id), table: table)
        pruneLogIfDue()
        apply(changes)
    }

    // MARK: Write-through

    /// Makes `model` the live model of row `id`: its changes are written through from now on.
    func attach<M: PersistentModel>(_ model: M, id: Int64, table: _Table) {
        let registrar = model._$registrar
        registrar.rowID.store(id, ordering: .relaxed)
        registrar.setPersistence(table.liveHook)
        state.identity[_RowKey(table: table.name, id: id)] = model
    }

    /// The row of `model` is gone (deleted here or elsewhere): write-through stops, the model
    /// forgets its id (`persistentID` is nil; `deletion(of:)` fires), and any change to a
    /// persisted property from now on is reported on `errors` as `StoreError.deleted`, as are
    /// changes still pending (never resurrected).
    func markDeleted(_ model: any Model, key: _RowKey, table: _Table) {
        let object = ObjectIdentifier(model)
        if state.identity[key] === model { state.identity[key] = nil }
        if state.dirty.removeValue(forKey: object) != nil {
            errorSubject.sendNext(.deleted(model: table.definition.modelName, id: key.id))
        }
        model._$registrar.rowID.store(-key.id, ordering: .relaxed)
        model._$registrar.setPersistence(table.deletedHook)
    }

    /// A stored model changed (on the model's thread, called by its table's `liveHook`):
    /// remember which column, and make sure a commit is scheduled for the end of this turn.
    func changed(_ model: AnyObject, _ registrar: ModelRegistrar, column: Int, table: _Table) {
        guard table.persistsProperty(column) else { return }
        let object = ObjectIdentifier(model)
        if !state.suppressed.isEmpty, state.suppressed.remove(_Suppressed(object: object, column: column)) != nil {
            return   // a value reloaded from the database: not a change to write back
        }
        if state.dirty[object] == nil {
            let id = registrar.rowID.load(ordering: .relaxed)
            guard id > 0 else { return }
            state.dirty[object] = _DirtyRow(key: _RowKey(table: table.name, id: id), table: table, model: model, columns: [])
            state.dirtyOrder.append(object)
        }
        state.dirty[object]!.columns.insert(column)
        scheduleCommit()
    }

    /// A model whose row was deleted changed (called by its table's `deletedHook`).
    func changedAfterDeletion(_ registrar: ModelRegistrar, column: Int, table: _Table) {
        guard table.persistsProperty(column) else { return }
        errorSubject.sendNext(.deleted(model: table.definition.modelName, id: -registrar.rowID.load(ordering: .relaxed)))
    }

    private func scheduleCommit(after delay: Duration? = nil) {
        guard !state.commitScheduled else { return }
        state.commitScheduled = true
        let box = self.box
        let action: @Sendable () -> Void = { box.store?.commitScheduledChanges() }
        if let delay { scheduler.schedule(after: delay, action) } else { scheduler.schedule(action) }
    }

    private func commitScheduledChanges() {
        state.commitScheduled = false
        do {
            try commitPending(synchronously: false)
        } catch {
            // Reported on `errors` by commitPending.
        }
    }

    /// Commits every pending change now and returns when they are durable. Throws the commit's
    /// error if it fails; the changes then stay pending (and are retried).
    public func flush() throws(StoreError) {
        state.commitScheduled = false
        try commitPending(synchronously: true)
    }

    /// The number of rows with changes not yet committed.
    public var pendingRowCount: Int { state.dirty.count }

    /// Reads the values of every changed row (on the model's thread), hands them to the writer
    /// queue as one transaction, and handles the outcome.
    private func commitPending(synchronously: Bool) throws(StoreError) {
        let batch = takeBatch()
        guard !batch.updates.isEmpty else {
            finish(batch)
            if synchronously { writer.sync { _ in } }   // wait for commits already under way
            return
        }
        let tracker = self.tracker
        let work: @Sendable (Connection) throws -> _ChangeSet = { connection in
            try tracker.write(connection, {
                for update in batch.updates {
                    try connection.execute(update.sql, update.arguments)
                }
            }, rows: { batch.updates.lazy.map { ($0.key.table, $0.key.id, StoreChange.Kind.update) } }).1
        }
        if synchronously {
            let changes: _ChangeSet
            do {
                changes = try writer.sync(work)
            } catch {
                let storeError = StoreError.wrap(error)
                finish(batch)
                restore(batch)
                errorSubject.sendNext(storeError)
                throw storeError
            }
            finish(batch)
            state.retryDelay = nil
            pruneLogIfDue()
            apply(changes)
        } else {
            let box = self.box
            let scheduler = self.scheduler
            writer.async { connection in
                do {
                    let changes = try work(connection)
                    scheduler.schedule {
                        guard let store = box.store else { return }
                        store.finish(batch)
                        store.state.retryDelay = nil
                        store.apply(changes)
                    }
                    tracker.pruneIfDue(connection)
                } catch {
                    let storeError = StoreError.wrap(error)
                    scheduler.schedule {
                        guard let store = box.store else { return }
                        store.finish(batch)
                        store.restore(batch)
                        store.errorSubject.sendNext(storeError)
                        store.scheduleRetry()
                    }
                }
            }
        }
    }

    private func scheduleRetry() {
        let delay = state.retryDelay.map { min($0 * 2, .seconds(5)) } ?? .milliseconds(50)
        state.retryDelay = delay
        scheduleCommit(after: delay)
    }

    /// Takes the pending changes, reading each changed column's current value. Until the batch
    /// is finished, its columns are "in flight": a reload does not overwrite them.
    private func takeBatch() -> _Batch {
        var updates: [_Update] = []
        var taken: [(ObjectIdentifier, _DirtyRow)] = []
        for object in state.dirtyOrder {
            guard let row = state.dirty[object] else { continue }
            taken.append((object, row))
            let model = row.model
            let columns = row.columns.sorted()
            var arguments: [SQLiteValue] = []
            arguments.reserveCapacity(columns.count + 1)
            var names: [String] = []
            for index in columns {
                guard let column = row.table.column(forProperty: index) else { continue }
                do {
                    arguments.append(try row.table.encode(property: index, of: model))
                    names.append(column.name)
                } catch {
                    errorSubject.sendNext(StoreError.wrap(error))
                }
            }
            guard !names.isEmpty else { continue }
            arguments.append(.integer(row.key.id))
            updates.append(_Update(key: row.key, sql: row.table.updateSQL(columns: names), arguments: arguments))
        }
        state.dirty = [:]
        state.dirtyOrder = []
        let batch = _Batch(number: state.nextBatch, updates: updates, rows: taken.map { _TakenRow(object: $0.0, row: $0.1) })
        state.nextBatch += 1
        if !batch.rows.isEmpty { state.inFlight[batch.number] = batch.rows }
        return batch
    }

    /// The batch's commit is over (done or failed): its columns are no longer in flight.
    private func finish(_ batch: _Batch) {
        state.inFlight[batch.number] = nil
    }

    /// The columns of `objects` whose commit is under way (only asked when a reload meets an
    /// in-flight commit, which is rare: nothing is kept per row on the commit path).
    func inFlightColumns() -> [ObjectIdentifier: Set<Int>] {
        var columns: [ObjectIdentifier: Set<Int>] = [:]
        for rows in state.inFlight.values {
            for taken in rows { columns[taken.object, default: []].formUnion(taken.row.columns) }
        }
        return columns
    }

    /// Puts the rows of a failed batch back among the pending changes (newer changes to the
    /// same rows merge with them: the values are read again at the next commit).
    private func restore(_ batch: _Batch) {
        for taken in batch.rows.reversed() {
            // A row deleted meanwhile stays deleted.
            guard state.identity[taken.row.key] != nil else { continue }
            if var existing = state.dirty[taken.object] {
                existing.columns.formUnion(taken.row.columns)
                state.dirty[taken.object] = existing
            } else {
                state.dirty[taken.object] = taken.row
                state.dirtyOrder.insert(taken.object, at: 0)
            }
        }
    }

    /// Commits the pending changes of every open store (called at normal process exit).
    static func flushAllAtExit() {
        for store in _StoreRegistry.shared.all() {
            try? store.flush()
        }
    }
}

// MARK: - Internal state

/// Everything the store keeps on the model's thread.
final class _StoreState {
    var tables: [ObjectIdentifier: _Table] = [:]
    var tablesByName: [String: _Table] = [:]
    var identity = _IdentityMap()
    var dirty: [ObjectIdentifier: _DirtyRow] = [:]
    var dirtyOrder: [ObjectIdentifier] = []
    /// The rows of the batches whose commit is under way, by batch number.
    var inFlight: [Int: [_TakenRow]] = [:]
    var nextBatch = 1
    /// Columns being set from the database: their next change notification is not written back.
    var suppressed: Set<_Suppressed> = []
    var liveQueries: [Int: any _AnyLiveQuery] = [:]
    var commitScheduled = false
    var retryDelay: Duration?
}

struct _Suppressed: Hashable {
    let object: ObjectIdentifier
    let column: Int
}

/// A weak reference to the store, for closures that run on the store's scheduler.
///
/// Why `@unchecked Sendable` is safe: the closures that read it run on the store's scheduler,
/// which is the store's (and its models') thread; the writer queue never dereferences it, it
/// only passes it to work scheduled back onto the store's scheduler.
final class _StoreBox: @unchecked Sendable {
    weak var store: Store?
}

/// A weak reference to a model, carried in write-through closures.
///
/// Why `@unchecked Sendable` is safe: it is dereferenced only on the model's thread (in change
/// notifications, which run synchronously on the thread that changes the model, and in commits
/// scheduled on the store's scheduler).
final class _WeakObject: @unchecked Sendable {
    weak var object: AnyObject?
    init(_ object: AnyObject) { self.object = object }
}

struct _RowKey: Hashable, Sendable {
    let table: String
    let id: Int64
}

/// A weak reference to a live model, in the identity map.
struct _WeakModel {
    weak var model: AnyObject?
    init(_ model: AnyObject?) { self.model = model }
}

/// Models that the writer queue reads while their thread waits for it: `Store.insert` binds
/// their values inside `writer.sync`.
///
/// Why `@unchecked Sendable` is safe: a `_WaitingModels` is only made by `Store.insert` and only
/// used inside the `writer.sync` closure it is captured by. `sync` blocks the models' thread (the
/// only thread that touches them) until the closure returns, and Dispatch orders that thread's
/// writes before the closure and the closure's reads before the thread goes on; nothing keeps
/// the value after the closure. The closure only reads the models' backing storage, through
/// the table's column readers (no dependency tracking, no Observation).
struct _WaitingModels: @unchecked Sendable {
    let objects: UnsafeBufferPointer<AnyObject>
    let indices: [Int]
}

/// State of the store's thread that the writer queue uses while that thread waits for it:
/// `Store._fetch` makes models and updates the identity map inside `writer.sync`.
///
/// Why `@unchecked Sendable` is safe: a `_WhileWaiting` is only made by `Store._fetch` and only
/// used inside the `writer.sync` closure it is captured by. `sync` blocks the store's thread
/// (the only thread that touches what it wraps) until the closure returns, and Dispatch orders
/// that thread's writes before the closure and the closure's writes before the thread goes on;
/// nothing keeps the value after the closure.
struct _WhileWaiting<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// The models a fetch made or found, in order, in memory of its own (a fetch does not know the
/// number of rows in advance); `take(as:)` moves them into the result array.
struct _FetchedModels: ~Copyable {
    private var base: UnsafeMutablePointer<AnyObject>?
    private var stored = 0
    private var capacity = 0

    init() {}

    deinit {
        base?.deinitialize(count: stored)
        base?.deallocate()
    }

    mutating func append(_ model: AnyObject) {
        if stored == capacity { grow() }
        (base.unsafelyUnwrapped + stored).initialize(to: model)
        stored += 1
    }

    private mutating func grow() {
        let larger = max(4, capacity * 2)
        let new = UnsafeMutablePointer<AnyObject>.allocate(capacity: larger)
        if let base {
            new.moveInitialize(from: base, count: stored)
            base.deallocate()
        }
        base = new
        capacity = larger
    }

    /// The models, as an array of their type (which they all are), leaving this empty.
    mutating func take<M: AnyObject>(as _: M.Type) -> [M] {
        let taken = stored
        guard taken > 0, let base else { return [] }
        stored = 0
        // A reference to an `M` and an `AnyObject` are both one strong pointer to the object.
        return [M](unsafeUninitializedCapacity: taken) { buffer, initialized in
            buffer.baseAddress.unsafelyUnwrapped.withMemoryRebound(to: AnyObject.self, capacity: taken) {
                $0.moveInitialize(from: base, count: taken)
            }
            initialized = taken
        }
    }
}

/// The identity map: the live model of each row, held weakly, by table (a `_RowMap` each) then
/// id.
struct _IdentityMap {
    private var tables: [String: _RowMap] = [:]

    subscript(key: _RowKey) -> AnyObject? {
        get { tables[key.table]?[key.id] }
        set {
            if let newValue {
                rows(key.table).set(newValue, for: key.id)
            } else {
                tables[key.table]?.remove(key.id)
            }
        }
    }

    /// The rows of `table` (made empty on first use), swept first if that is due.
    mutating func rows(_ table: String) -> _RowMap {
        if let rows = tables[table] {
            rows.sweepIfDue()
            return rows
        }
        let rows = _RowMap()
        tables[table] = rows
        return rows
    }

    /// The number of entries of `table` (live or not yet swept).
    func entryCount(_ table: String) -> Int { tables[table]?.count ?? 0 }

    /// Every live model, with its key.
    var live: [(key: _RowKey, model: AnyObject)] {
        var all: [(key: _RowKey, model: AnyObject)] = []
        for (table, rows) in tables {
            rows.forEachLive { id, model in all.append((_RowKey(table: table, id: id), model)) }
        }
        return all
    }
}

/// The live models of one table's rows, held weakly, by id: in pages of 16 consecutive ids.
///
/// Row ids are mostly dense and ascending (SQLite gives a new row the largest id plus one), so
/// a page is looked up once for a run of rows (the last page used is kept), neighbouring rows
/// share cache lines, and nothing is hashed per row. (With a `Dictionary` of ids, every row
/// hashed and probed at a random place of a table of megabytes, entering 100,000 new models
/// took about 20 of the 75 ms that `TetherLatency profile-insert` measured for the insert.)
/// Sparse ids cost a page (136 bytes) each at worst.
///
/// Entries of freed models are swept out when the store next uses the map (an insert, a fetch,
/// a load: never in the middle of one, whose own models are all alive) once it has doubled
/// since the last sweep: amortised, and a long-running app that loads and drops rows keeps a
/// map in proportion to what it holds.
///
/// Confined to the store's thread (and to the writer queue while that thread waits: see
/// `_WhileWaiting`).
final class _RowMap {
    static let pageShift: Int64 = 4
    static let pageSize = 1 << Int(pageShift)
    /// An id's slot in its page.
    static let slotMask = Int64(pageSize - 1)

    /// One page: a word whose bit `i` is set while slot `i` holds a reference (to a live model,
    /// or to a freed one not yet swept), then 16 slots, for ids `number << 4 ..< (number + 1) << 4`.
    /// Raw memory rather than an object: finding a page and writing a slot retains nothing.
    struct Page {
        let base: UnsafeMutableRawPointer

        static let slotsOffset = 8
        static let byteCount = slotsOffset + _RowMap.pageSize * MemoryLayout<_WeakModel>.stride

        static func make() -> Page {
            let base = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 8)
            base.initializeMemory(as: UInt64.self, repeating: 0, count: 1)
            (base + slotsOffset).initializeMemory(as: _WeakModel.self, repeating: _WeakModel(nil), count: _RowMap.pageSize)
            return Page(base: base)
        }

        func free() {
            slots.deinitialize(count: _RowMap.pageSize)
            base.deallocate()
        }

        var occupied: UnsafeMutablePointer<UInt64> { base.assumingMemoryBound(to: UInt64.self) }
        var slots: UnsafeMutablePointer<_WeakModel> { (base + Self.slotsOffset).assumingMemoryBound(to: _WeakModel.self) }
    }

    private var pages: [Int64: Page] = [:]
    /// The pages the last sweep emptied, for new pages until the next sweep (which frees those
    /// still unused): loads scattered over a table would otherwise allocate a page for most
    /// rows, and free it at the next sweep.
    private var spare: [Page] = []
    /// The page used last, and its number.
    private var lastNumber: Int64 = .min
    private var lastPage: Page?
    /// Slots holding a reference, in every page.
    private(set) var count = 0
    /// `count` after the last sweep.
    private var swept = 0

    init() {}

    deinit {
        for page in pages.values { page.free() }
        for page in spare { page.free() }
    }

    @inline(__always)
    private func page(_ number: Int64) -> Page? {
        if number == lastNumber { return lastPage }
        guard let page = pages[number] else { return nil }
        lastNumber = number
        lastPage = page
        return page
    }

    /// The live model of row `id`, if there is one.
    subscript(id: Int64) -> AnyObject? {
        page(id >> Self.pageShift)?.slots[Int(id & Self.slotMask)].model
    }

    /// Makes `model` the live model of row `id`.
    func set(_ model: AnyObject, for id: Int64) {
        let number = id >> Self.pageShift
        let page: Page
        if let existing = self.page(number) {
            page = existing
        } else {
            page = spare.popLast() ?? Page.make()
            pages[number] = page
            lastNumber = number
            lastPage = page
        }
        let index = Int(id & Self.slotMask)
        let bit: UInt64 = 1 << UInt64(index)
        if page.occupied.pointee & bit == 0 {
            page.occupied.pointee |= bit
            count += 1
        }
        page.slots[index].model = model
    }

    /// Forgets row `id`.
    func remove(_ id: Int64) {
        guard let page = page(id >> Self.pageShift) else { return }
        let index = Int(id & Self.slotMask)
        let bit: UInt64 = 1 << UInt64(index)
        guard page.occupied.pointee & bit != 0 else { return }
        page.slots[index].model = nil
        page.occupied.pointee &= ~bit
        count -= 1
    }

    /// Calls `body` with each live model and its id.
    func forEachLive(_ body: (Int64, AnyObject) -> Void) {
        for (number, page) in pages {
            var bits = page.occupied.pointee
            while bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                if let model = page.slots[index].model { body(number << Self.pageShift | Int64(index), model) }
            }
        }
    }

    /// Sweeps if the map has doubled since the last sweep (and holds 2,048 entries or more).
    func sweepIfDue() {
        if count >= 2 * max(swept, 1024) { sweep() }
    }

    /// Drops the entries of freed models, and the pages left empty (kept as spares until the
    /// next sweep).
    private func sweep() {
        for page in spare { page.free() }
        spare.removeAll(keepingCapacity: true)
        var emptied: [Int64] = []
        for (number, page) in pages {
            var bits = page.occupied.pointee
            while bits != 0 {
                let index = bits.trailingZeroBitCount
                bits &= bits - 1
                if page.slots[index].model == nil {
                    page.slots[index].model = nil      // lets the freed model's side table go
                    page.occupied.pointee &= ~(1 << UInt64(index))
                    count -= 1
                }
            }
            if page.occupied.pointee == 0 { emptied.append(number) }
        }
        for number in emptied {
            // An emptied page's slots are all empty weak references again: reusable as it is.
            if let page = pages.removeValue(forKey: number) { spare.append(page) }
        }
        lastNumber = .min
        lastPage = nil
        swept = count
    }
}

/// A row with changes not yet committed. It keeps its model alive until they are: a model the
/// app drops right after changing it still has its changes written.
struct _DirtyRow {
    let key: _RowKey
    let table: _Table
    let model: AnyObject
    var columns: Set<Int>
}

struct _TakenRow {
    let object: ObjectIdentifier
    let row: _DirtyRow
}

/// One UPDATE of one row: its SQL and arguments (the changed columns' values, then the id).
struct _Update: Sendable {
    let key: _RowKey
    let sql: String
    let arguments: [SQLiteValue]
}

/// The changes committed in one transaction.
struct _Batch: @unchecked Sendable {
    let number: Int
    // `updates` is what crosses to the writer queue (Sendable); `rows` stays on the model's
    // thread: the writer's closures capture only `updates`, and `rows` is read back only by
    // `restore`, on the model's thread.
    let updates: [_Update]
    let rows: [_TakenRow]
}

/// Reads and writes one persisted property of the models of one type, converting to and from
/// SQLite values. For a property whose type is `SQLiteConvertible` both directions are typed
/// (no `Any`, no dynamic cast) and read the backing storage directly.
struct _ColumnIO: @unchecked Sendable {
    // The closures are made from the schema's `Sendable` closures and are used on the model's
    // thread (the store's), or on the writer queue while that thread waits (`_WaitingModels`).
    let read: (AnyObject) throws(SQLiteError) -> SQLiteValue
    let write: (AnyObject, SQLiteValue) throws(SQLiteError) -> Void

    /// The reader and writer of `property`, stored in `column`.
    static func make<M: AnyObject>(_ property: ModelProperty<M>, column: ColumnDefinition) -> _ColumnIO {
        if let convertible = property.valueType as? any SQLiteConvertible.Type,
           let typed = typed(convertible, property) {
            return typed
        }
        return _ColumnIO(
            read: { object throws(SQLiteError) in try column.encode(property.get(unsafeDowncast(object, to: M.self))) },
            write: { object, value throws(SQLiteError) in property.set(unsafeDowncast(object, to: M.self), try column.decode(value)) })
    }

    private static func typed<M: AnyObject, T: SQLiteConvertible>(_: T.Type, _ property: ModelProperty<M>) -> _ColumnIO? {
        guard let get = property.storageReader(as: T.self), let set = property.setterBox(as: T.self) else { return nil }
        return _ColumnIO(
            read: { object throws(SQLiteError) in try get.get(unsafeDowncast(object, to: M.self)).sqliteValue() },
            write: { object, value throws(SQLiteError) in set.set(unsafeDowncast(object, to: M.self), try T(sqliteValue: value)) })
    }
}

/// What the store knows about one model type's table.
final class _Table: @unchecked Sendable {
    // Immutable after init (the hooks are set at the end of init); used on the model's thread,
    // and on the writer queue: its SQL strings at any time, and the rest (the column readers
    // and writers, `makeModel`, the hooks) only while the model's thread waits for the queue
    // (see `_WaitingModels` and `_WhileWaiting`).
    let definition: TableDefinition
    /// Makes a model of the table's type with its default values, and returns its registrar.
    let makeModel: () -> (AnyObject, Unmanaged<ModelRegistrar>)
    /// The registrar of a model of the table's type, unretained (the model holds it).
    let registrarOf: (AnyObject) -> Unmanaged<ModelRegistrar>
    /// The reader and writer of each column of `definition.columns`, in that order.
    let columns: [_ColumnIO]
    let propertyNames: [String]
    let name: String
    let quotedName: String
    let insertSQL: String
    let selectSQL: String
    let selectByIDSQL: String
    private let columnByProperty: [Int: ColumnDefinition]
    /// The position in `columns` of each property's column, by property index (nil: transient).
    private let positionByProperty: [Int?]
    private let updateSQLCache = _Locked<[[String]: String]>([:])
    /// Installed on the registrar of every live model of the table: records its changes.
    private(set) var liveHook: _PersistenceHook!
    /// Installed on the registrar of a model whose row was deleted: reports its changes as errors.
    private(set) var deletedHook: _PersistenceHook!

    init(makeModel: @escaping () -> (AnyObject, Unmanaged<ModelRegistrar>),
         registrarOf: @escaping (AnyObject) -> Unmanaged<ModelRegistrar>,
         definition: TableDefinition, columns: [_ColumnIO], propertyNames: [String], box: _StoreBox) {
        self.makeModel = makeModel
        self.registrarOf = registrarOf
        self.definition = definition
        self.columns = columns
        self.propertyNames = propertyNames
        self.name = definition.tableName
        self.quotedName = _quote(definition.tableName)
        let quotedColumns = definition.columns.map { _quote($0.name) }
        let placeholders = Array(repeating: "?", count: quotedColumns.count).joined(separator: ", ")
        self.insertSQL = "INSERT INTO \(quotedName) (\(quotedColumns.joined(separator: ", "))) VALUES (\(placeholders))"
        self.selectSQL = "SELECT id\(quotedColumns.isEmpty ? "" : ", ")\(quotedColumns.joined(separator: ", ")) FROM \(quotedName)"
        self.selectByIDSQL = selectSQL + " WHERE id = ?"
        var byProperty: [Int: ColumnDefinition] = [:]
        var positions = [Int?](repeating: nil, count: propertyNames.count)
        for (position, column) in definition.columns.enumerated() {
            byProperty[column.propertyIndex] = column
            positions[column.propertyIndex] = position
        }
        self.columnByProperty = byProperty
        self.positionByProperty = positions
        // A hook lives as long as a model holding it, maybe longer than the store: it reaches the
        // store weakly, and the table only while the store (which holds the table) is alive.
        liveHook = _PersistenceHook { [unowned self] model, registrar, index in
            box.store?.changed(model, registrar, column: index, table: self)
        }
        deletedHook = _PersistenceHook { [unowned self] _, registrar, index in
            box.store?.changedAfterDeletion(registrar, column: index, table: self)
        }
    }

    func persistsProperty(_ index: Int) -> Bool {
        index < positionByProperty.count && positionByProperty[index] != nil
    }

    /// `SELECT` of the given columns (every column when nil) of the rows matching `condition`,
    /// ordered by property `orderBy` (then by id), or by id.
    func querySQL(columns: String?, where condition: String?, orderBy: Int?, descending: Bool) throws(StoreError) -> String {
        var sql = columns.map { "SELECT \($0) FROM \(quotedName)" } ?? selectSQL
        if let condition { sql += " WHERE \(condition)" }
        if let orderBy {
            guard let column = column(forProperty: orderBy) else {
                let name = orderBy < propertyNames.count ? propertyNames[orderBy] : "#\(orderBy)"
                throw .mapping(.unsupportedType(model: definition.modelName, property: name, type: "(not persisted)"))
            }
            sql += " ORDER BY \(_quote(column.name))\(descending ? " DESC" : ""), id"
        } else {
            sql += " ORDER BY id"
        }
        return sql
    }

    func column(forProperty index: Int) -> ColumnDefinition? { columnByProperty[index] }

    func updateSQL(columns: [String]) -> String {
        updateSQLCache.withLock { cache in
            if let sql = cache[columns] { return sql }
            let sets = columns.map { "\(_quote($0)) = ?" }.joined(separator: ", ")
            let sql = "UPDATE \(quotedName) SET \(sets) WHERE id = ?"
            cache[columns] = sql
            return sql
        }
    }

    /// Binds the value of every column of `model`, in column order, to `statement`'s
    /// parameters 1, 2, ...
    func bindAll(_ model: AnyObject, to statement: Statement) throws(SQLiteError) {
        for position in columns.indices { try statement.bind(try encode(position: position, of: model), at: position + 1) }
    }

    /// The value of property `index` of `model` (a persisted property).
    func encode(property index: Int, of model: AnyObject) throws(SQLiteError) -> SQLiteValue {
        try encode(position: positionByProperty[index]!, of: model)
    }

    private func encode(position: Int, of model: AnyObject) throws(SQLiteError) -> SQLiteValue {
        do {
            return try columns[position].read(model)
        } catch {
            throw error.locating(table: nil, column: definition.columns[position].name, sql: nil)
        }
    }

    /// Steps `statement` (the id, then every column) and appends the live model of each row
    /// to `out`: the one in `live` (the table's identity map) if there is one, else a new model
    /// made from the row, owned by thread `owner`, written through from now on and added to
    /// `live`. (Not generic, so that nothing here looks up generic type metadata per row.) On
    /// error, `out` holds the models of the rows before.
    ///
    /// Runs on the writer queue while the models' thread waits (see `_WhileWaiting`).
    func materialize(
        _ statement: Statement, live: _RowMap, into out: inout _FetchedModels, owner: UInt
    ) throws(SQLiteError) {
        // Everything the loop uses is loaded once (no retain and release per row).
        let hook = liveHook!
        let makeModel = self.makeModel
        try columns.withUnsafeBufferPointer { columns throws(SQLiteError) in
            while try statement.step() {
                guard case .integer(let id) = try statement.value(at: 0) else { continue }
                if let model = live[id] {
                    out.append(model)
                    continue
                }
                let (model, registrar) = makeModel()
                for position in 0..<columns.count {
                    let value = try statement.value(at: position + 1)
                    do throws(SQLiteError) {
                        try columns[position].write(model, value)
                    } catch {
                        throw located(error, position: position)
                    }
                }
                registrar._withUnsafeGuaranteedRef { registrar in
                    registrar.adopt(thread: owner)
                    registrar.rowID.store(id, ordering: .relaxed)
                    registrar.setPersistence(hook)
                }
                live.set(model, for: id)
                out.append(model)
            }
        }
    }

    /// `error`, naming this table and the column at `position`.
    private func located(_ error: SQLiteError, position: Int) -> SQLiteError {
        error.locating(table: name, column: definition.columns[position].name, sql: nil)
    }

    /// Sets the property stored in column `position` of `model` from `value`; a value that does
    /// not fit is a mismatch naming the table and column.
    func decode(_ value: SQLiteValue, position: Int, into model: AnyObject) throws(SQLiteError) {
        do {
            try columns[position].write(model, value)
        } catch {
            throw located(error, position: position)
        }
    }
}

func _quote(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}

/// The open stores, so that their pending changes are flushed at normal exit.
final class _StoreRegistry: Sendable {
    static let shared = _StoreRegistry()
    private let stores = _Locked<[ObjectIdentifier: _StoreBox]>([:])

    init() {
        atexit { Store.flushAllAtExit() }
    }

    func add(_ store: Store) {
        let box = _StoreBox()
        box.store = store
        stores.withLock { $0[ObjectIdentifier(store)] = box }
    }

    func remove(_ store: Store) {
        _ = stores.withLock { $0.removeValue(forKey: ObjectIdentifier(store)) }
    }

    func all() -> [Store] {
        stores.withLock { $0.values.compactMap(\.store) }
    }
}
