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

extension PersistentModel {
    /// The name of the model's table (the model type's name).
    static var _tableName: String { _$schema.name }
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
/// <doc:Persistence>): call it there. Its connection lives on its own serial queue; what
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
/// retried at the next commit, after a short delay, or at `flush()`. Nothing is dropped. If the
/// database file is deleted or replaced while open, the store writes nothing more and says so
/// on `errors` (`StoreError.fileLost`); the changes stay pending.
///
/// **Closing.** `close()` writes what is pending and closes the connection, leaving the database
/// as one self-contained file (no `-wal` or `-shm` beside it, when no other connection has it
/// open). A store freed, or still open when the process exits normally, is flushed and closed
/// the same way.
public final class Store {
    /// The database file.
    public let path: String
    let writer: DatabaseQueue
    /// The scheduler of the store's thread: where it ends a turn (writing the changes made in
    /// it), and where live queries, `errors` and `committedChanges` deliver. Work that belongs
    /// after the current turn can be scheduled on it too.
    ///
    /// ```swift
    /// store.scheduler.schedule { print("after this turn") }
    /// ```
    public let scheduler: any Scheduler
    let state = _StoreState()
    let errorSubject = Subject<StoreError, Never>()
    let changeSubject = Subject<StoreChange, Never>()
    let box: _StoreBox
    let tracker = _ChangeTracker()
    let inbox = _SyncInbox()
    /// The database file, checked before each write (deleted or replaced while open?).
    let file: _StoreFile
    var watcher: _ChangeWatcher?

    /// The store's connection, on its serial queue: `Sendable`, so any thread can read through it
    /// (`store.database.sync { try $0.rows("SELECT ...") }`) while the models' thread changes
    /// models; reads and commits take turns on the queue. Once the store is closed, every call
    /// of the connection fails with `SQLITE_MISUSE`.
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
    /// `Migrator.builtIn()`, Tether's bookkeeping only: the migrations record and the change log;
    /// or pass your own, `Migrator(Migrator.builtIn().migrations + yours)`, which must include `001_tether_metadata.sql` and `002_tether_changes.sql`, and should
    /// include `004_tether_change_ranges.sql`: without it, a big insert logs every row through the
    /// trigger instead of one entry per range of ids). Tables for model types are created or
    /// extended on first use.
    ///
    /// - Parameters:
    ///   - path: the database file, created if missing (unless `readOnly`).
    ///   - scheduler: where the models live; pending changes are committed at the end of its turn
    ///     (`MainScheduler.shared` for an app whose models live on the main thread).
    ///   - migrator: the migrations to apply; `nil` applies Tether's own only (see above).
    ///   - busyTimeout: how long a write waits for another connection's lock.
    ///   - watchesExternalChanges: whether to notice changes made by other connections and
    ///     processes by itself (see <doc:Persistence>, "Changes made elsewhere"). Without it,
    ///     `refresh()` looks for them when called.
    ///   - readOnly: open the database read-only, on purpose: the store reads, loads, fetches
    ///     and follows changes made elsewhere, but writes nothing (`insert`, `delete` and
    ///     `update` throw `StoreError.readOnly`, and a change to one of its models is reported
    ///     on `errors` as `StoreError.readOnly` and not written; the model keeps the value). The
    ///     database must exist and need no migration.
    ///
    /// SQLite opens a file the process may not write read-only without a word, even without
    /// `readOnly`: check `isReadOnly` after opening. Such a store still tries to write: writes
    /// fail with `SQLITE_READONLY`, reported on `errors`, and the changes stay pending; the
    /// connection is opened again before the next try, so they are written once the file is
    /// writable. When it opens read-write, the store gives a leftover `-wal` or `-shm` that the
    /// process owns but may not write the database file's permissions (see <doc:Persistence>,
    /// "Read-only files").
    ///
    /// ```swift
    /// let viewer = try Store(path: "invoices.sqlite", readOnly: true)
    /// let store = try Store(path: "invoices.sqlite")
    /// if store.isReadOnly { showBanner("invoices.sqlite cannot be written: changes are not saved") }
    /// ```
    public init(
        path: String,
        scheduler: any Scheduler = MainScheduler.shared,
        migrator: Migrator? = nil,
        busyTimeout: Duration = .seconds(5),
        watchesExternalChanges: Bool = true,
        readOnly: Bool = false
    ) throws(StoreError) {
        self.path = path
        self.scheduler = scheduler
        let connectionReadOnly: Bool
        do {
            // -wal and -shm left read-only by a connection to a file that was read-only then.
            if !readOnly { _StoreFile.repairSidecarModes(of: path) }
            writer = try DatabaseQueue(path: path, options: .init(readOnly: readOnly, busyTimeout: busyTimeout), label: "Tether.Store")
            let migrator = try migrator ?? Migrator.builtIn()
            let tracker = self.tracker
            connectionReadOnly = try writer.sync { connection in
                _ = try migrator.migrate(connection)
                try tracker.start(connection)
                return connection.isReadOnly
            }
        } catch {
            throw StoreError.wrap(error)
        }
        file = _StoreFile(path: path, readOnlyOnPurpose: readOnly, connectionReadOnly: connectionReadOnly)
        box = _StoreBox()
        box.attach(self)
        _StoreRegistry.shared.add(self)
        if watchesExternalChanges { startWatching() }
    }

    deinit {
        if !state.closed {
            watcher?.stop()                // no look at the log while the last changes are written
            watcher = nil
            flushOrReport(when: "when the store was freed")
            shutDown()
        }
        changeSubject.sendCompleted()
        errorSubject.sendCompleted()
    }

    // MARK: Closing

    /// Writes every pending change (`flush()`), then closes the store: its watcher stops, its
    /// live queries and `committedChanges` complete, and its connection is closed, so SQLite
    /// checkpoints the write-ahead log into the database file and removes the `-wal` and `-shm`
    /// files (when no other connection has the database open). The file can then be copied,
    /// sent or backed up on its own.
    ///
    /// If the flush fails, `close()` throws its error and the store stays open and usable: the
    /// changes are still pending, and a later `close()` tries again. Once closed, every call
    /// throws `StoreError.closed`, and a change to one of the store's models is not written and
    /// is reported on `errors` (as `StoreError.closed`). Closing a closed store does nothing.
    ///
    /// A store that is freed, or still open when the process exits normally, is flushed and
    /// closed all the same; if that flush fails, what could not be written is named on standard
    /// error, and the store is closed.
    ///
    /// ```swift
    /// invoice.paid = true
    /// try store.close()          // written; invoices.sqlite is the whole database now
    /// ```
    public func close() throws(StoreError) {
        guard !state.closed else { return }
        try flush()
        shutDown()
    }

    /// Closes the store without writing the changes still pending, which are lost: for an app
    /// whose user chose to quit without them, after being told what they are (the file is
    /// read-only, another program holds the lock, a line breaks its rules). A commit already
    /// under way ends first. Returns the number of rows whose changes were not written; the exit
    /// handler does not try them again. Closing a closed store does nothing and returns 0.
    ///
    /// ```swift
    /// if userChoseToQuitAnyway { store.closeDiscardingChanges() } else { try store.close() }
    /// ```
    @discardableResult
    public func closeDiscardingChanges() -> Int {
        guard !state.closed else { return 0 }
        let lost = pendingRowCount
        shutDown()
        return lost
    }

    /// Whether the store is closed (by `close()`, or by the exit handler).
    public var isClosed: Bool { state.closed }

    /// Whether the store cannot write its database: it was opened with `readOnly: true`, or
    /// SQLite opened the file read-only because the process may not write it (a 0444 file, a
    /// read-only file system). Check it after opening to tell the user; in the second case the
    /// first write that is tried also reports `SQLITE_READONLY` on `errors`, the changes stay
    /// pending, and they are written (and this becomes false) once the file is writable again,
    /// at the next retry or `flush()`.
    ///
    /// ```swift
    /// let store = try Store(path: path)
    /// if store.isReadOnly { showBanner("\(path) cannot be written: changes are not saved") }
    /// ```
    public var isReadOnly: Bool { file.isReadOnly }

    /// Throws `StoreError.closed` once the store is closed, `StoreError.readOnly` if it was
    /// opened read-only on purpose.
    func checkWritable() throws(StoreError) {
        try checkOpen()
        if file.readOnlyOnPurpose { throw .readOnly(path: path) }
    }

    /// Stops the watcher, ends the live queries and `committedChanges`, closes the connection
    /// and leaves the registry of open stores. Pending changes are not written (`close()` and
    /// the exit handler flush first).
    func shutDown() {
        guard !state.closed else { return }
        state.closed = true
        watcher?.stop()
        watcher = nil
        _StoreRegistry.shared.remove(self)
        let queries = state.liveQueries
        state.liveQueries = [:]
        for (id, query) in queries {
            tracker.removeQuery(id)
            query.end()
        }
        changeSubject.sendCompleted()
        writer.close()
    }

    /// Throws `StoreError.closed` once the store is closed.
    func checkOpen() throws(StoreError) {
        if state.closed { throw .closed(path: path) }
    }

    // MARK: Tables

    func table<M: PersistentModel>(for type: M.Type) throws(StoreError) -> _Table {
        precondition(!state.inWriteLock, Self.calledInWriteLock("\(#function)"))
        try checkOpen()
        let key = ObjectIdentifier(type)
        if let table = state.tables[key] { return table }
        do {
            let definition = try TableDefinition(for: type, defaultsFrom: M())
            let properties = M._$schema.properties
            let table = _Table(
                makeModel: {
                    let model = M()
                    // The registrar is inside the model: valid for as long as the caller holds the model.
                    return (model, model._$registrar.address)
                },
                registrarOf: { unsafeDowncast($0, to: M.self)._$registrar.address },
                definition: definition,
                columns: definition.columns.map { _ColumnIO.make(properties[$0.propertyIndex], column: $0) },
                propertyNames: properties.map(\.name),
                validates: M.self is any Validating.Type,
                box: box)
            let tracker = self.tracker
            let file = self.file
            try writer.sync { connection in
                // A table (and triggers) as they should be needs no write, so no write lock: a
                // store opens while another program holds that lock (or on a read-only file).
                if try !definition.migrationStatements(existing: connection.columns(in: definition.tableName)).isEmpty
                    || !tracker.hasTriggers(table, in: connection) {
                    try file.write(connection) {
                        _ = try definition.createOrUpdate(in: connection)
                        try tracker.register(table, in: connection)
                    }
                } else {
                    try tracker.register(table, in: connection)
                }
            }
            state.tables[key] = table
            state.tablesByName[table.name] = table
            do {
                // The tables this one's relationships reference must exist before a row is
                // written (SQLite checks a foreign key's parent table). Registered first: a
                // cycle ends here.
                for position in table.relationPositions {
                    guard let target = table.columns[position].relation?.target else { continue }
                    func ensure<T: PersistentModel>(_ type: T.Type) throws { _ = try self.table(for: type) }
                    try ensure(target)
                }
                try setUpToOne(table)
                try setUpToMany(type, table: table)
            } catch {
                // Not left half set up (a related table or a delete rule's trigger that could
                // not be made: the database was locked, read-only...): the next use sets the
                // whole table up again, relationships and triggers included.
                state.tables[key] = nil
                state.tablesByName[table.name] = nil
                if let relations = state.toManyByParent.removeValue(forKey: table.name) {
                    for relation in relations {
                        state.toManyByChild[relation.childTable]?.removeAll { $0.triggerName == relation.triggerName }
                    }
                }
                throw error
            }
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
    ///
    /// A model that breaks its rules (`Validating`) is not inserted, nor are the others: the
    /// call throws `StoreError.invalid`, naming the model, the property and the rule, as it
    /// does for a database constraint the rows break (UNIQUE, CHECK, NOT NULL, a foreign key).
    public func insert<M: PersistentModel>(contentsOf models: [M]) throws(StoreError) {
        try checkWritable()
        let table = try table(for: M.self)
        if M.self is any Validating.Type {
            for model in models where model.persistentID == nil {
                let failures = validationFailures(of: model)
                if !failures.isEmpty { throw .invalid(ValidationError(model: M._$schema.name, id: nil, failures: failures)) }
            }
        }
        // The children in the models' collections that will be inserted with them are checked
        // first too: a child that breaks its rules leaves everything uninserted.
        if let relations = state.toManyByParent[table.name] {
            for relation in relations {
                guard let childTable = state.tablesByName[relation.childTable], childTable.validates else { continue }
                for model in models where model.persistentID == nil {
                    for child in relation.relationship.read(model)
                    where childTable.registrarOf(child).pointee.rowID.load(ordering: .relaxed) <= 0 {
                        let failures = validationFailures(of: child)
                        if !failures.isEmpty { throw .invalid(ValidationError(model: childTable.definition.modelName, id: nil, failures: failures)) }
                    }
                }
            }
        }
        // The work is done without generics (nothing looks up generic type metadata per
        // model). A reference to an `M` and an `AnyObject` are both one strong pointer to the
        // object: the buffer can be seen as either.
        do {
            try models.withUnsafeBufferPointer { buffer in
                try buffer.withMemoryRebound(to: AnyObject.self) { objects in try insert(objects, table: table) }
            }
        } catch let error as SQLiteError where error.code.primary == .constraint {
            throw .invalid(Self.constraintFailure(error, table: table, id: nil))
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Inserts the models among `objects` (of `table`'s type) that are not stored yet, after
    /// checking their rules (`Validating`): one that breaks them is not inserted, nor are the
    /// others, and this throws `StoreError.invalid`, as for a database constraint.
    func insertObjects(_ objects: [AnyObject], table: _Table) throws {
        if table.validates {
            let registrarOf = table.registrarOf
            for object in objects where registrarOf(object).pointee.rowID.load(ordering: .relaxed) <= 0 {
                let failures = validationFailures(of: object)
                if !failures.isEmpty { throw StoreError.invalid(ValidationError(model: table.definition.modelName, id: nil, failures: failures)) }
            }
        }
        do {
            try objects.withUnsafeBufferPointer { try insert($0, table: table) }
        } catch let error as SQLiteError where error.code.primary == .constraint {
            throw StoreError.invalid(Self.constraintFailure(error, table: table, id: nil))
        }
    }

    /// Inserts the models of `table`'s type among `objects` that are not stored yet.
    private func insert(_ objects: UnsafeBufferPointer<AnyObject>, table: _Table) throws {
        let registrarOf = table.registrarOf
        var fresh: [Int] = []
        fresh.reserveCapacity(objects.count)
        for index in objects.indices where registrarOf(objects[index]).pointee.rowID.load(ordering: .relaxed) <= 0 {
            fresh.append(index)
        }
        guard !fresh.isEmpty else { return }
        // The rows are bound straight from the models, on the writer queue, while this thread
        // waits for it (see `_WaitingModels`): no copy of the values in between.
        let models = _WaitingModels(objects: objects, indices: fresh)
        // The rows their to-one relationships name: none may have been deleted after the last
        // look the store applied (another row may have its id by now; see `namingDeletedRows`).
        let named = table.references.isEmpty ? [] : fresh.flatMap { index in
            table.references.compactMap { reference -> _RowKey? in
                guard case .integer(let id)? = try? table.encode(property: reference.property, of: objects[index]) else { return nil }
                return _RowKey(table: reference.table, id: id)
            }
        }
        let sql = table.insertSQL
        let count = fresh.count
        let tracker = self.tracker
        let seen = tracker.lastApplied
        let tableName = table.name
        let inbox = self.inbox
        let file = self.file
        let (ids, stamp) = try writer.sync { connection in
            // Many rows: the tracker runs this with the triggers off and logs ranges of ids.
            let (ids, changes) = try file.write(connection) {
                try tracker.insert(connection, into: tableName, count: count) {
                    if !named.isEmpty, try !tracker.deleted(since: seen, connection, among: named).isEmpty {
                        throw SQLiteError.foreignKeyToDeletedRow
                    }
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
            return (ids, inbox.push(.changes(changes)))
        }
        // What happened before the insert is applied first; then the new models are attached
        // (replacing the model of a deleted row whose id SQLite gave again) and placed in their
        // parents' collections, their children inserted; then the insert, and what happened
        // since. Until then nothing later is applied, even by an observer that refreshes while
        // the earlier events are applied: it would meet models that do not have their rows yet
        // (and make others for them), or children not placed yet.
        let ceiling = state.drainCeiling
        state.drainCeiling = Swift.min(ceiling, stamp)
        drain(before: stamp)
        let hook = table.liveHook!
        let live = state.identity.rows(table.name, endedModels: table.endedModels)
        for id in ids {
            if let previous = live[id], let model = previous as? any Model { markDeleted(model, key: _RowKey(table: table.name, id: id), table: table) }
        }
        if !state.dirty.isEmpty {
            // Likewise a change here naming a row of this table with one of these ids named a
            // row deleted since (SQLite gave its id again): dropped, before the new rows can be
            // named.
            let naming = state.dirty.compactMap { object, row in row.table.references.contains { $0.table == tableName } ? object : nil }
            if !naming.isEmpty { dropChangesNamingMissingRows(of: naming, deleted: Set(ids.lazy.map { _RowKey(table: tableName, id: $0) })) }
        }
        for (index, id) in zip(fresh, ids) {
            // `objects[index]` is borrowed each time, not held in a local (which would be
            // retained and released).
            let registrar = registrarOf(objects[index])
            registrar.pointee.rowID.store(id, ordering: .relaxed)
            registrar.pointee.setPersistence(hook)
            live.set(objects[index], for: id)
        }
        protect(ids.lazy.map { _RowKey(table: tableName, id: $0) }, at: stamp)
        state.fileLostReported = false
        if state.toManyByChild[tableName] != nil, state.insertingChildren == 0 {
            for index in fresh { placeEverywhere(objects[index], table) }
        }
        if state.toManyByParent[tableName] != nil {
            do {
                try insertChildren(of: fresh.map { objects[$0] }, table: table)
            } catch {
                state.drainCeiling = ceiling
                drain()
                throw error
            }
        }
        state.drainCeiling = ceiling
        pruneLogIfDue()
        // (Children inserted with their parents: up to the parents' insert only, which applies
        // the rest once it has placed them.)
        drain()
    }

    /// Has the writer queue prune the change log after this write, if it is due (in a
    /// transaction of its own, after the write: it never slows a commit down).
    func pruneLogIfDue() {
        let tracker = self.tracker
        let file = self.file
        guard tracker.pruneDue() else { return }
        writer.async { connection in
            if !file.isLost { tracker.pruneIfDue(connection) }
        }
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
        orderBy: KeyPath<M, V>,
        descending: Bool = false
    ) throws(StoreError) -> [M] {
        let index = try Self.propertyIndex(of: orderBy)
        return try _fetch(type, where: condition, arguments, orderBy: index, descending: descending)
    }

    /// The index of the persisted property at `keyPath` (an `orderBy`), or a mapping error
    /// naming it.
    static func propertyIndex<M: PersistentModel, V>(of keyPath: KeyPath<M, V>, use: String = "order by") throws(StoreError) -> Int {
        guard let index = M._$schema.index(of: keyPath), !M._$schema.properties[index].isTransient else {
            throw _notStored(keyPath, of: M.self, use: use)
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
        descending: Bool,
        limit: Int? = nil,
        offset: Int? = nil
    ) throws(StoreError) -> [M] {
        let table = try table(for: type)
        let sql = try table.querySQL(columns: nil, where: condition, orderBy: orderBy, descending: descending, limit: limit, offset: offset)
        return try _fetch(type, sql: sql, arguments, table: table)
    }

    /// The live models of the rows `sql` selects (every column of `table`, id first).
    func _fetch<M: PersistentModel>(_ type: M.Type, sql: String, _ arguments: [SQLiteValue], table: _Table) throws(StoreError) -> [M] {
        try _stampedFetch(type, sql: sql, arguments, table: table).models
    }

    /// `_fetch`, and the read's stamp: the events in the inbox stamped before it were read from
    /// an older state of the database than the models.
    func _stampedFetch<M: PersistentModel>(
        _ type: M.Type, sql: String, _ arguments: [SQLiteValue], table: _Table
    ) throws(StoreError) -> (models: [M], stamp: UInt64) {
        // The models are made on the writer queue as the rows are stepped, while this thread
        // waits for it (see `_WhileWaiting`): no copy of the rows' values in between. They
        // belong to this thread.
        var fetched = _FetchedModels()
        let parentOfCollections = state.toManyByParent[table.name] != nil
        let childOfCollections = state.toManyByChild[table.name] != nil
        fetched.collectsFresh = parentOfCollections || childOfCollections
        // The ids of the models made, kept only if older events wait in the inbox (see below).
        var made: [Int64] = []
        let state = self.state
        let inbox = self.inbox
        let owner = ModelRegistrar.currentOwner
        var stamp: (stamp: UInt64, waiting: Bool) = (0, false)
        do {
            try withUnsafeMutablePointer(to: &fetched) { fetched throws(StoreError) in
                try withUnsafeMutablePointer(to: &made) { made throws(StoreError) in
                    let waiting = _WhileWaiting((state: state, fetched: fetched, made: made))
                    do {
                        stamp = try writer.sync { connection in
                            let statement = try connection.cachedStatement(sql)
                            defer { statement.reset() }
                            try statement.bind(arguments)
                            let (state, fetched, made) = waiting.value
                            let stamp = inbox.stamp()
                            try table.materialize(statement, live: state.identity.rows(table.name, endedModels: table.endedModels), into: &fetched.pointee,
                                                  made: stamp.waiting ? made : nil, owner: owner)
                            return stamp
                        }
                    } catch {
                        throw StoreError.wrap(error)
                    }
                }
            }
        }
        // New models reflect the database as of this read: events read before it and not
        // applied yet are not applied to them.
        if stamp.waiting { protect(made.lazy.map { _RowKey(table: table.name, id: $0) }, at: stamp.stamp) }
        if !fetched.relations.isEmpty { try resolve(fetched.relations, table: table) }
        if !fetched.fresh.isEmpty {
            if childOfCollections, state.loadingCollections == 0 {
                // Children loaded on their own: each joins its parent's collection, if that is live.
                for (child, _) in fetched.fresh { placeEverywhere(child, table) }
            }
            if parentOfCollections {
                // Their collections are loaded on first use (`loadCollectionsOnFirstUse`).
                let hook = table.unloadedHook!
                for (parent, _) in fetched.fresh {
                    table.registrarOf(parent).pointee.setPersistence(hook)
                }
                state.lastFetchedParents[table.name] = fetched.fresh.prefix(Self.collectionBatch * 8).map { (_WeakModel($0.model), $0.id) }
            }
        }
        return (fetched.take(as: M.self), stamp.stamp)
    }

    /// Deletes the model's row; the model stops being written through (a later change to it is
    /// not written, and is reported on `errors` as `StoreError.deleted`). Pending changes are
    /// written first.
    ///
    /// The delete rules of the model's to-many relationships apply (see `Relationship`): its
    /// children are deleted with it (`.cascade`, their models too) or left without a parent
    /// (`.nullify`), or the delete is refused with `StoreError.deleteDenied`, naming them
    /// (`.deny`).
    ///
    /// ```swift
    /// do { try store.delete(customer) } catch .deleteDenied(_, _, _, _, let invoices) { show(invoices) }
    /// ```
    public func delete<M: PersistentModel>(_ model: M) throws(StoreError) {
        try checkWritable()
        let table = try table(for: M.self)
        guard model.persistentID != nil else { throw .notStored(model: M._$schema.name) }
        // Changes made before the delete are written before it: the delete rules see them (a
        // child taken out of a denying collection no longer blocks the delete).
        if !state.dirty.isEmpty || !state.inFlight.isEmpty { try flush() }
        // The flush may have found the row deleted elsewhere (the model is marked deleted): then
        // there is nothing to delete, and the id may already be another row's.
        guard let id = model.persistentID else { return }
        let sql = "DELETE FROM \(table.quotedName) WHERE id = ?"
        let tracker = self.tracker
        let seen = tracker.lastApplied
        let tableName = table.name
        let inbox = self.inbox
        let file = self.file
        let stamp: UInt64
        let changed: [(String, Int64, StoreChange.Kind)]
        do {
            (stamp, changed) = try deleteDenied(by: table, id: id) { try writer.sync { connection in
                let (changed, changes) = try file.write(connection) {
                    try tracker.write(connection, { () throws -> [(String, Int64, StoreChange.Kind)] in
                        // What the delete changed: its row, and the rows whose to-one
                        // relationships pointed at it (set to NULL by their foreign keys).
                        let before = try _ChangeTracker.highWater(connection)
                        // Deleted elsewhere already: the id may be a new row's, not ours.
                        if try tracker.deleted(since: seen, connection, among: [_RowKey(table: tableName, id: id)]).isEmpty {
                            try connection.execute(sql, [.integer(id)])
                        }
                        return try _ChangeTracker.rows(after: before, connection)
                    }, rows: { $0 })
                }
                return (inbox.push(.changes(changes)), changed)
            } }
        } catch {
            throw StoreError.wrap(error)
        }
        // What happened before is applied first, then the delete; nothing later until its
        // models are marked (see `insert`).
        let ceiling = state.drainCeiling
        state.drainCeiling = Swift.min(ceiling, stamp)
        drain(before: stamp)
        quietTransaction {
            // What the delete rules did: the rows deleted with it, and those nullified.
            for (name, row, kind) in changed where kind == .delete && !(name == tableName && row == id) {
                let key = _RowKey(table: name, id: row)
                guard let other = state.tablesByName[name], let live = state.identity[key] as? any Model else { continue }
                markDeleted(live, key: key, table: other)
            }
            nullifyRelationships(to: tableName, id: id, in: changed)
            markDeleted(model, key: _RowKey(table: table.name, id: id), table: table)
        }
        state.drainCeiling = ceiling
        state.fileLostReported = false
        pruneLogIfDue()
        drain()
    }
}
