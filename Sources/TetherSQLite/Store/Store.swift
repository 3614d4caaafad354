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
/// crosses between the two are `Sendable` snapshots of values.
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
            let table = _Table(definition: definition, properties: M._$schema.properties.map { property in
                _PropertyAccess(get: { property.get($0 as! M) }, set: { property.set($0 as! M, $1) })
            }, propertyNames: M._$schema.properties.map(\.name))
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
        let fresh = models.filter { $0.persistentID == nil }
        guard !fresh.isEmpty else { return }
        var rows: [[SQLiteValue]] = []
        rows.reserveCapacity(fresh.count)
        do {
            for model in fresh { rows.append(try table.encodeAll(model)) }
        } catch {
            throw StoreError.wrap(error)
        }
        let sql = table.insertSQL
        let values = rows
        let tracker = self.tracker
        let tableName = table.name
        let ids: [Int64]
        let changes: _ChangeSet
        do {
            (ids, changes) = try writer.sync { connection in
                // Many rows: the tracker runs this with the triggers off and logs ranges of ids.
                try tracker.insert(connection, into: tableName, count: values.count) {
                    let statement = try connection.cachedStatement(sql)
                    var ids: [Int64] = []
                    ids.reserveCapacity(values.count)
                    for row in values {
                        try statement.bind(row)
                        try statement.run()   // and resets
                        ids.append(connection.lastInsertRowID)
                    }
                    return ids
                }
            }
        } catch {
            throw StoreError.wrap(error)
        }
        state.identity.reserveCapacity(state.identity.count + fresh.count)
        for (model, id) in zip(fresh, ids) { attach(model, id: id, table: table) }
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
        if let live = state.identity[_RowKey(table: table.name, id: id)]?.model as? M { return live }
        return try fetch(type, where: "id = ?", [.integer(id)]).first
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
        guard let index = M._$schema.index(of: orderBy) else {
            throw .mapping(.unsupportedType(model: M._$schema.name, property: "\(orderBy)", type: "(not a persisted property)"))
        }
        return try _fetch(type, where: condition, arguments, orderBy: index, descending: descending)
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
        let rows: [SQLiteRow]
        let query = sql
        do {
            rows = try writer.sync { connection in try connection.rows(query, arguments) }
        } catch {
            throw StoreError.wrap(error)
        }
        var models: [M] = []
        models.reserveCapacity(rows.count)
        state.identity.reserveCapacity(state.identity.count + rows.count)
        for row in rows {
            guard case .integer(let id) = row[0] else { continue }
            if let live = state.identity[_RowKey(table: table.name, id: id)]?.model as? M {
                models.append(live)
                continue
            }
            let model = M()
            do {
                try table.decodeAll(row.values.dropFirst(), into: model)
            } catch {
                throw StoreError.wrap(error)
            }
            attach(model, id: id, table: table)
            models.append(model)
        }
        return models
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

    func attach<M: PersistentModel>(_ model: M, id: Int64, table: _Table) {
        model._$registrar.rowID.store(id, ordering: .relaxed)
        let key = _RowKey(table: table.name, id: id)
        let object = ObjectIdentifier(model)
        if !state.deletedObservers.isEmpty { state.deletedObservers.removeValue(forKey: object)?.dispose() }
        let weakModel = _WeakObject(model)
        let box = self.box
        // One observer of every property, straight on the model's registrar (cheaper than a
        // `changes(of:)` subscription: this runs for every row inserted or loaded).
        let subscription = model._$registrar.addObserver(index: nil, _SlotObserver(
            onChange: { index, _ in
                box.store?.changed(object: object, key: key, column: index, model: weakModel, table: table)
            },
            onEnd: {}
        ))
        state.identity[key] = _IdentityEntry(model: model, subscription: subscription)
    }

    /// The row of `model` is gone (deleted here or elsewhere): write-through stops, the model
    /// forgets its id (`persistentID` is nil; `deletion(of:)` fires), and any change to a
    /// persisted property from now on is reported on `errors` as `StoreError.deleted`, as are
    /// changes still pending (never resurrected).
    func markDeleted(_ model: any Model, key: _RowKey, table: _Table) {
        let object = ObjectIdentifier(model)
        state.identity[key]?.subscription.dispose()
        state.identity[key] = nil
        if state.dirty.removeValue(forKey: object) != nil {
            errorSubject.sendNext(.deleted(model: table.definition.modelName, id: key.id))
        }
        model._$registrar.rowID.store(-key.id, ordering: .relaxed)
        let box = self.box
        let modelName = table.definition.modelName
        state.deletedObservers[object]?.dispose()
        state.deletedObservers[object] = model._$registrar.addObserver(index: nil, _SlotObserver(
            onChange: { index, _ in
                guard table.persistsProperty(index), let store = box.store else { return }
                store.errorSubject.sendNext(.deleted(model: modelName, id: key.id))
            },
            onEnd: { box.store?.state.deletedObservers[object] = nil }
        ))
    }

    /// A stored model changed (on the model's thread): remember which column, and make sure a
    /// commit is scheduled for the end of this turn.
    fileprivate func changed(object: ObjectIdentifier, key: _RowKey, column: Int, model: _WeakObject, table: _Table) {
        guard table.persistsProperty(column) else { return }
        if !state.suppressed.isEmpty, state.suppressed.remove(_Suppressed(object: object, column: column)) != nil {
            return   // a value reloaded from the database: not a change to write back
        }
        if state.dirty[object] == nil {
            guard let live = model.object else { return }
            state.dirty[object] = _DirtyRow(key: key, table: table, model: live, columns: [])
            state.dirtyOrder.append(object)
        }
        state.dirty[object]!.columns.insert(column)
        scheduleCommit()
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
                    arguments.append(try column.encode(row.table.properties[index].get(model)))
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
    var identity: [_RowKey: _IdentityEntry] = [:]
    var dirty: [ObjectIdentifier: _DirtyRow] = [:]
    var dirtyOrder: [ObjectIdentifier] = []
    /// The rows of the batches whose commit is under way, by batch number.
    var inFlight: [Int: [_TakenRow]] = [:]
    var nextBatch = 1
    /// Columns being set from the database: their next change notification is not written back.
    var suppressed: Set<_Suppressed> = []
    var liveQueries: [Int: any _AnyLiveQuery] = [:]
    /// Models whose row was deleted (and not inserted again): the observer reporting changes.
    var deletedObservers: [ObjectIdentifier: any Disposable] = [:]
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

struct _IdentityEntry {
    weak var model: AnyObject?
    let subscription: any Disposable
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

/// Reads and writes one property of a model of a type known only at run time.
struct _PropertyAccess: @unchecked Sendable {
    // The closures only call the schema's `Sendable` get/set closures.
    let get: (AnyObject) -> Any
    let set: (AnyObject, Any) -> Void
}

/// What the store knows about one model type's table.
final class _Table: @unchecked Sendable {
    // Immutable after init; used on the model's thread.
    let definition: TableDefinition
    let properties: [_PropertyAccess]
    let propertyNames: [String]
    let name: String
    let quotedName: String
    let insertSQL: String
    let selectSQL: String
    let selectByIDSQL: String
    private let columnByProperty: [Int: ColumnDefinition]
    private let updateSQLCache = _Locked<[[String]: String]>([:])

    init(definition: TableDefinition, properties: [_PropertyAccess], propertyNames: [String]) {
        self.definition = definition
        self.properties = properties
        self.propertyNames = propertyNames
        self.name = definition.tableName
        self.quotedName = _quote(definition.tableName)
        let columns = definition.columns.map { _quote($0.name) }
        let placeholders = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        self.insertSQL = "INSERT INTO \(quotedName) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
        self.selectSQL = "SELECT id\(columns.isEmpty ? "" : ", ")\(columns.joined(separator: ", ")) FROM \(quotedName)"
        self.selectByIDSQL = selectSQL + " WHERE id = ?"
        var byProperty: [Int: ColumnDefinition] = [:]
        for column in definition.columns { byProperty[column.propertyIndex] = column }
        self.columnByProperty = byProperty
    }

    func persistsProperty(_ index: Int) -> Bool { columnByProperty[index] != nil }

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

    func encodeAll(_ model: AnyObject) throws -> [SQLiteValue] {
        try definition.columns.map { column in try column.encode(properties[column.propertyIndex].get(model)) }
    }

    func decodeAll(_ values: ArraySlice<SQLiteValue>, into model: AnyObject) throws {
        for (column, value) in zip(definition.columns, values) {
            properties[column.propertyIndex].set(model, try column.decode(value, table: name))
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
