import Foundation
import Logging

// Write-through: changes to stored models recorded as they happen and committed in batches, one
// transaction per turn of the store's scheduler (Sources/TetherSQLite/TetherSQLite.docc/
// Persistence.md, "Write-through timing").

extension Store {
    // MARK: Write-through

    /// Makes `model` the live model of row `id`: its changes are written through from now on.
    func attach<M: PersistentModel>(_ model: M, id: Int64, table: _Table) {
        model._$registrar.rowID.store(id, ordering: .relaxed)
        model._$registrar.setPersistence(table.liveHook)
        state.identity[_RowKey(table: table.name, id: id)] = model
    }

    /// The row of `model` is gone (deleted here or elsewhere): write-through stops, the model
    /// forgets its id (`persistentID` is nil; `deletion(of:)` fires), and any change to a
    /// persisted property from now on is reported on `errors` as `StoreError.deleted`, as are
    /// changes still pending (never resurrected), or in a commit (`changesLost`: the commit
    /// leaves the row out).
    func markDeleted(_ model: any Model, key: _RowKey, table: _Table, changesLost: Bool = false) {
        // Once: marked again (a delete here of a row a look found deleted elsewhere), the model
        // would leave its parent's collection again, and so take the place of a new row that
        // has its id (memberships go by row id).
        let registrar = model._registrarAddress
        guard registrar.pointee.rowID.load(ordering: .relaxed) > 0 else { return }
        let object = ObjectIdentifier(model)
        if state.identity[key] === model { state.identity[key] = nil }
        if state.dirty.removeValue(forKey: object) != nil || changesLost {
            registrar.pointee.pendingColumns.store(0, ordering: .relaxed)
            errorSubject.sendNext(.deleted(model: table.definition.modelName, id: key.id))
        }
        if !state.toManyByParent.isEmpty { emptyCollections(of: model, table: table) }
        registrar.pointee.rowID.store(-key.id, ordering: .relaxed)
        registrar.pointee.setPersistence(table.deletedHook)
        if state.toManyByChild[table.name] != nil { placeEverywhere(model, table) }   // leaves its parent's collection
    }

    /// A stored model changed (on the model's thread, called by its table's `liveHook`):
    /// remember which column, and make sure a commit is scheduled for the end of this turn.
    func changed(_ model: AnyObject, _ registrar: borrowing ModelRegistrar, column: Int, table: _Table) {
        if !state.toManyByParent.isEmpty, relationshipChanged(model, registrar, column: column, table: table) { return }
        guard table.persistsProperty(column) else { return }
        let object = ObjectIdentifier(model)
        if !state.suppressed.isEmpty, state.suppressed.remove(_Suppressed(object: object, column: column)) != nil {
            return   // a value reloaded from the database: not a change to write back
        }
        if state.closed || file.readOnlyOnPurpose {
            // Not written, and never silently dropped.
            errorSubject.sendNext(state.closed ? .closed(path: path) : .readOnly(path: path))
            return
        }
        // The registrar's marks say whether the row is pending, and which of its columns
        // (`_DirtyRow`): a column already pending needs nothing; a row not pending is added
        // without looking for it first; only a new column of a pending row looks the row up.
        let marked = registrar.pendingColumns.load(ordering: .relaxed)
        if column >= 63 || marked & (1 << UInt64(column)) == 0 {
            if marked != 0, let pending = state.dirty.index(forKey: object) {
                state.dirty.values[pending].mark(column)
            } else {
                let id = registrar.rowID.load(ordering: .relaxed)
                guard id > 0 else { return }
                var row = _DirtyRow(key: _RowKey(table: table.name, id: id), table: table, model: model, registrar: registrar.address)
                row.mark(column)
                let columns = row.columns
                if var earlier = state.dirty.updateValue(consume row, forKey: object) {
                    // Pending without marks: they always agree, but if they did not, the
                    // earlier columns would not be lost.
                    assertionFailure("Tether: a pending row of \(table.name) without its marks")
                    earlier.merge(columns)
                    state.dirty[object] = earlier
                } else {
                    state.dirtyOrder.append(object)
                }
            }
        }
        // A row a constraint refused may be fine now: it is tried again.
        if !state.rejected.isEmpty { state.rejected[object] = nil }
        scheduleCommit()
    }

    /// A model whose row was deleted changed (called by its table's `deletedHook`).
    func changedAfterDeletion(_ registrar: borrowing ModelRegistrar, column: Int, table: _Table) {
        guard table.persistsProperty(column) else { return }
        errorSubject.sendNext(.deleted(model: table.definition.modelName, id: -registrar.rowID.load(ordering: .relaxed)))
    }

    func scheduleCommit(after delay: Duration? = nil) {
        guard !state.commitScheduled else { return }
        state.commitScheduled = true
        let box = self.box
        let action: @Sendable () -> Void = { box.store?.commitScheduledChanges() }
        if let delay { scheduler.schedule(after: delay, action) } else { scheduler.schedule(action) }
    }

    func commitScheduledChanges() {
        state.commitScheduled = false
        guard !state.closed else { return }
        do {
            try insertUnsavedChildren()
        } catch {
            // Reported, and tried again later; the other changes are committed all the same.
            errorSubject.sendNext(error)
            scheduleRetry()
        }
        do {
            try commitPending(synchronously: false)
        } catch {
            // Reported on `errors` by commitPending.
        }
    }

    /// Commits every pending change now, and returns when it is durable: the changes made before
    /// the call, including those whose commit was already under way (the end of a turn's
    /// commit, or a retry), are committed when it returns. Throws the error of a commit that
    /// failed; the changes then stay pending (`pendingRowCount`), and are retried.
    ///
    /// ```swift
    /// invoice.quantity = 3
    /// try store.flush()   // the row holds 3 now, or this threw and the change is still pending
    /// ```
    public func flush() throws(StoreError) {
        precondition(!state.inWriteLock, Self.calledInWriteLock("flush()"))
        try checkOpen()
        // Commits under way end first: a failed one puts its rows back among the pending ones.
        if !state.inFlight.isEmpty { writer.sync { _ in } }
        drain()
        // Children appended to a collection whose insert failed (busy, read-only...) go first;
        // if they fail again, the other changes are still committed, then the error is thrown.
        var unsaved: StoreError?
        do { try insertUnsavedChildren() } catch { unsaved = error }
        // Observers may change models in reaction to what the commit applied: those changes are
        // committed too, a few rounds at most (observers that keep changing models in reaction
        // to their own changes are not waited for).
        var rounds = 0
        // (Over a copy of the pending rows: a model's rules are the app's code.)
        while rounds < 4, case let dirty = state.dirty, dirty.contains(where: { invalidity(of: $0.key, $0.value) == nil }) {
            try commitPending(synchronously: true)
            rounds += 1
        }
        // Rows kept back because they break a rule: not written, and not silently.
        let (order, dirty) = (state.dirtyOrder, state.dirty)
        if let invalid = order.lazy.compactMap({ object in dirty[object].flatMap { self.invalidity(of: object, $0) } }).first {
            throw .invalid(invalid)
        }
        if let unsaved { throw unsaved }
    }

    /// Lets the store settle: waits until the commits already handed to the writer (the end
    /// of a turn's commit, a retry) have committed or failed, and applies their outcomes now,
    /// on the calling thread. Afterwards `pendingRowCount` counts only what still waits (for a
    /// retry, or kept back by its rules), and `errors` has sent every failure of those commits.
    /// Nothing new is committed (that is `flush()`), and nothing is thrown.
    ///
    /// The commit of a turn runs on the store's writer queue and its outcome comes back as an
    /// event of the store's scheduler, so a test on a `TestScheduler` that has run the turn
    /// (`advance()`) would otherwise see the commit still under way. With `settle()`, what a
    /// test sees after a turn does not depend on the writer queue's timing:
    ///
    /// ```swift
    /// invoice.quantity = 3
    /// scheduler.advance()    // the turn ends: its commit is handed to the writer
    /// store.settle()         // committed (pendingRowCount == 0), or its error is on `errors`
    /// ```
    public func settle() {
        precondition(!state.inWriteLock, Self.calledInWriteLock("settle()"))
        guard !state.closed else { return }
        if !state.inFlight.isEmpty { writer.sync { _ in } }
        drain()
    }

    /// Why `row` may not be written now: a constraint refused it (and its model has not changed
    /// since), or it breaks one of its model's rules.
    func invalidity(of object: ObjectIdentifier, _ row: _DirtyRow) -> ValidationError? {
        if !state.rejected.isEmpty, let rejected = state.rejected[object] { return rejected }
        if !state.unstorable.isEmpty, state.unstorable.contains(object) {
            // Kept back because a value could not be stored: can it be now (the related model
            // was inserted meanwhile, say)?
            if let error = encode(row).unstorable { return error }
            state.unstorable.remove(object)
        }
        guard row.table.validates else { return nil }
        let failures = validationFailures(of: row.model)
        return failures.isEmpty ? nil : ValidationError(model: row.table.definition.modelName, id: row.key.id, failures: failures)
    }

    /// The number of rows with changes not yet committed: pending, in a commit that has not
    /// finished yet, or appended to a collection and not inserted yet (the insert failed and
    /// waits for a retry).
    public var pendingRowCount: Int {
        let unsaved = state.unsavedCollections.isEmpty ? 0 : unsavedChildren().count
        guard !state.inFlight.isEmpty else { return state.dirty.count + unsaved }
        var rows = Set(state.dirty.keys)
        for taken in state.inFlight.values { rows.formUnion(taken.lazy.map(\.object)) }
        return rows.count + unsaved
    }

    /// The models with changes not committed yet: pending (for the end of the turn, for a retry,
    /// or kept back because they break a rule), in a commit that has not finished, or appended
    /// to a collection and not inserted yet, each once.
    /// What an app names when it asks before quitting with changes it could not write.
    ///
    /// ```swift
    /// let lines = store.pendingModels.compactMap { $0 as? InvoiceLine }
    /// ```
    public var pendingModels: [AnyObject] {
        var seen = Set<ObjectIdentifier>()
        var models: [AnyObject] = []
        for number in state.inFlight.keys.sorted() {
            for taken in state.inFlight[number] ?? [] where seen.insert(taken.object).inserted { models.append(taken.row.model) }
        }
        for object in state.dirtyOrder where !seen.contains(object) {
            guard let row = state.dirty[object] else { continue }
            seen.insert(object)
            models.append(row.model)
        }
        for (object, row) in state.dirty where !seen.contains(object) {
            seen.insert(object)
            models.append(row.model)
        }
        for child in unsavedChildren() where seen.insert(ObjectIdentifier(child)).inserted { models.append(child) }
        return models
    }

    /// Reads the values of every changed row (on the model's thread) and hands them to the writer
    /// queue as one transaction, whose outcome comes back through the inbox (`drain`):
    /// synchronously, waiting for it and throwing its error, or at a later turn.
    func commitPending(synchronously: Bool) throws(StoreError) {
        let batch = takeBatch()
        guard !batch.updates.isEmpty else {
            finish(batch.number)
            return
        }
        let tracker = self.tracker
        let inbox = self.inbox
        let file = self.file
        let number = batch.number
        let updates = batch.updates
        let tables = batch.tables
        // What the values just taken reflect: rows deleted after that are not written.
        let seen = tracker.lastApplied
        let work: @Sendable (Connection) -> StoreError? = { connection in
            do {
                let changes: _ChangeSet
                var rejected: [_Rejected] = []
                do {
                    changes = try file.write(connection) {
                        try tracker.update(connection, count: updates.count, tables: tables) { () throws -> [_RowKey] in
                            // A row deleted elsewhere is not written (its id may be a new row's),
                            // nor one naming a row deleted elsewhere (see `namingDeletedRows`).
                            let gone = try tracker.deleted(since: seen, connection, among: updates.lazy.map(\.key))
                            let naming = try Self.namingDeletedRows(updates, since: seen, connection, tracker: tracker)
                            rejected = naming
                            var written: [_RowKey] = []
                            written.reserveCapacity(updates.count)
                            // Rows of one table with the same changed columns share their UPDATE:
                            // it is looked up in the statement cache once for them.
                            var statement: (sql: String, prepared: Statement)?
                            for update in updates where !gone.contains(update.key) {
                                if !naming.isEmpty, naming.contains(where: { $0.key == update.key }) { continue }
                                if statement?.sql != update.sql {
                                    statement = (update.sql, try connection.cachedStatement(update.sql))
                                }
                                let prepared = statement!.prepared
                                try prepared.bind(update.arguments)   // every parameter: run() reset it
                                try prepared.run()
                                if connection.changes > 0 { written.append(update.key) }
                            }
                            return written
                        }.1
                    }
                } catch let error as SQLiteError where error.code.primary == .constraint {
                    // A row breaks a constraint of the database: the batch was rolled back.
                    // Write it again, each row in a savepoint, leaving out the rows that break one.
                    (rejected, changes) = try Self.writeSkippingRejected(updates, since: seen, connection, tracker: tracker, file: file)
                }
                inbox.push(.committed(batch: number, changes: changes, rejected: rejected))
                return nil
            } catch {
                let storeError = StoreError.wrap(error)
                inbox.push(.failed(batch: number, error: storeError))
                return storeError
            }
        }
        if synchronously {
            let error = writer.sync(work)
            drain()
            if let error { throw error }
            pruneLogIfDue()
        } else {
            let box = self.box
            let scheduler = self.scheduler
            let before = state.beforeAsynchronousCommit
            writer.async { connection in
                before?()
                if work(connection) == nil { tracker.pruneIfDue(connection) }
                scheduler.schedule { box.store?.drain() }
            }
        }
    }

    func scheduleRetry() {
        let delay = state.retryDelay.map { Swift.min($0 * 2, .seconds(5)) } ?? .milliseconds(50)
        state.retryDelay = delay
        scheduleCommit(after: delay)
    }

    /// Takes the pending changes, reading each changed column's current value. Until the batch
    /// is finished, its columns are "in flight": a reload does not overwrite them.
    func takeBatch() -> _Batch {
        var updates: [_Update] = []
        updates.reserveCapacity(state.dirty.count)
        var taken: [_TakenRow] = []
        taken.reserveCapacity(state.dirty.count)
        // The UPDATE of the previous row, reused while rows of one table change the same columns.
        var last: (table: _Table, columns: _ColumnSet, sql: String)?
        var tables: Set<String> = []
        // Each row is moved out of the pending ones (not copied); a row that breaks its rules is
        // put back, unwritten, and so is one changed while the rows are taken (a model's rules
        // are the app's code, which may change models).
        let order = state.dirtyOrder
        state.dirtyOrder = []
        for object in order {
            guard let row = state.dirty.removeValue(forKey: object) else { continue }
            // No longer pending: a change made now (by the rules below) is a new pending row.
            row.registrar.pointee.pendingColumns.store(0, ordering: .relaxed)
            if let invalid = invalidity(of: object, row) {
                keepPending(object, row)
                report(invalid, for: object)
                continue
            }
            let (encoded, arguments, references, unstorable) = encode(row, thenID: true)
            if let error = unstorable {
                // A value that cannot be stored (a related model not inserted yet, a number
                // SQLite cannot hold): the row is kept back whole, and tried again.
                state.unstorable.insert(object)
                keepPending(object, row)
                report(error, for: object)
                continue
            }
            if !state.unstorable.isEmpty { state.unstorable.remove(object) }
            if !state.reportedInvalid.isEmpty { state.reportedInvalid[object] = nil }
            if !encoded.isEmpty {
                if last == nil || last!.table !== row.table || last!.columns != encoded {
                    last = (row.table, encoded, row.table.updateSQL(properties: encoded))
                    tables.insert(row.table.name)
                }
                updates.append(_Update(key: row.key, sql: last!.sql, arguments: arguments, references: references))
            }
            taken.append(_TakenRow(object: object, row: consume row))
        }
        let batch = _Batch(number: state.nextBatch, updates: updates, tables: tables, rows: taken)
        state.nextBatch += 1
        if !batch.rows.isEmpty { state.inFlight[batch.number] = batch.rows }
        return batch
    }

    /// Puts `row`, just taken out of the pending rows, back among them (after the rows already
    /// there), merged with any change made to its model since, and marks it again.
    private func keepPending(_ object: ObjectIdentifier, _ row: _DirtyRow) {
        putBack(_TakenRow(object: object, row: row), first: false)
    }

    /// The changed properties of `row` that have a column, and their values in the order of
    /// their indexes (and the row's id after them, `thenID`: an UPDATE's arguments), the rows
    /// its changed to-one relationships name, or why some cannot be stored.
    func encode(_ row: _DirtyRow, thenID: Bool = false)
        -> (properties: _ColumnSet, arguments: [SQLiteValue], references: [_RowKey], unstorable: ValidationError?) {
        var arguments: [SQLiteValue] = []
        arguments.reserveCapacity(row.columns.count + 1)
        var encoded = _ColumnSet()
        var references: [_RowKey] = []
        var failures: [ValidationError.Failure] = []
        let related = row.table.references
        for index in row.columns where row.table.persistsProperty(index) {
            do {
                let value = try row.table.encode(property: index, of: row.model)
                arguments.append(value)
                encoded.insert(index)
                if !related.isEmpty, case .integer(let id) = value, let reference = related.first(where: { $0.property == index }) {
                    references.append(_RowKey(table: reference.table, id: id))
                }
            } catch {
                let name = row.table.column(forProperty: index)?.propertyName
                failures.append(ValidationError.Failure(property: name, rule: StoreError.wrap(error).description))
            }
        }
        if thenID { arguments.append(.integer(row.key.id)) }
        let unstorable = failures.isEmpty ? nil : ValidationError(model: row.table.definition.modelName, id: row.key.id, failures: failures)
        return (encoded, arguments, references, unstorable)
    }

    /// Batch `number`'s commit is over (done or failed): its columns are no longer in flight.
    func finish(_ number: Int) {
        state.inFlight[number] = nil
    }

    /// The columns of `objects` whose commit is under way (only asked when a reload meets an
    /// in-flight commit, which is rare: nothing is kept per row on the commit path).
    func inFlightColumns(and committed: [_TakenRow] = []) -> [ObjectIdentifier: Set<Int>] {
        var columns: [ObjectIdentifier: Set<Int>] = [:]
        for rows in state.inFlight.values {
            for taken in rows { columns[taken.object, default: []].formUnion(taken.row.columns) }
        }
        for taken in committed { columns[taken.object, default: []].formUnion(taken.row.columns) }
        return columns
    }

    /// Reports on `errors` that `object`'s pending change breaks a rule, unless the same
    /// failures were reported last time.
    func report(_ error: ValidationError, for object: ObjectIdentifier) {
        guard state.reportedInvalid[object] != error else { return }
        state.reportedInvalid[object] = error
        errorSubject.sendNext(.invalid(error))
    }

    /// Writes `updates` in one transaction, each in a savepoint; an update that breaks a
    /// constraint is rolled back to its savepoint and left out. Returns what was left out, and
    /// the look at the log after the commit.
    static func writeSkippingRejected(
        _ updates: [_Update], since seen: Int64, _ connection: Connection, tracker: _ChangeTracker, file: _StoreFile
    ) throws -> ([_Rejected], _ChangeSet) {
        var rejected: [_Rejected] = []
        let changes = try file.write(connection) {
            try tracker.write(connection, { () throws -> Set<_RowKey> in
                var left = try tracker.deleted(since: seen, connection, among: updates.lazy.map(\.key))
                rejected = try namingDeletedRows(updates, since: seen, connection, tracker: tracker)
                left.formUnion(rejected.map(\.key))
                for update in updates where !left.contains(update.key) {
                    try connection.execute("SAVEPOINT tether_row")
                    do {
                        try connection.execute(update.sql, update.arguments)
                    } catch let error as SQLiteError where error.code.primary == .constraint {
                        try connection.execute("ROLLBACK TO tether_row")
                        rejected.append(_Rejected(key: update.key, error: error))
                        left.insert(update.key)
                    }
                    try connection.execute("RELEASE tether_row")
                }
                return left
            }, rows: { left in
                updates.lazy.filter { !left.contains($0.key) }.map { ($0.key.table, $0.key.id, StoreChange.Kind.update) }
            }).1
        }
        return (rejected, changes)
    }

    /// The updates among `updates` whose changed to-one relationships name rows deleted after
    /// log entry `seen` (what the values reflect), each with those rows: they are not written. The
    /// database would take them when another row has the deleted row's id by now (the sqlite3
    /// shell can give it, and SQLite does for a table made without AUTOINCREMENT), and the
    /// change would name that row instead; like a change the foreign key refuses, each is
    /// dropped when the batch's outcome is applied (see `reject`).
    static func namingDeletedRows(_ updates: [_Update], since seen: Int64, _ connection: Connection, tracker: _ChangeTracker) throws -> [_Rejected] {
        let named = updates.lazy.flatMap(\.references)
        guard !named.isEmpty else { return [] }
        let deleted = try tracker.deleted(since: seen, connection, among: Array(named))
        guard !deleted.isEmpty else { return [] }
        return updates.compactMap { update in
            let gone = Set(update.references.filter(deleted.contains))
            return gone.isEmpty ? nil : _Rejected(key: update.key, error: .foreignKeyToDeletedRow, deleted: gone)
        }
    }

    /// The rows of committed batch `number` that a constraint refused: back among the pending
    /// changes, marked invalid (reported on `errors`), and no longer in flight.
    func reject(_ rejected: [_Rejected], of rows: [_TakenRow]) {
        for refusal in rejected {
            guard let taken = rows.first(where: { $0.row.key == refusal.key }),
                  state.identity[taken.row.key] != nil else { continue }
            putBack(taken, first: false)
            let error = Self.constraintFailure(refusal.error, table: taken.row.table, id: taken.row.key.id)
            state.rejected[taken.object] = error
            if refusal.error.message.contains("FOREIGN KEY") {
                // A relationship naming a row deleted meanwhile: dropped, not kept back forever.
                let namingNone = dropChangesNamingMissingRows(
                    of: CollectionOfOne(taken.object), deleted: refusal.deleted.isEmpty ? nil : refusal.deleted)
                // Changed again since (moved to a live row, say): the refusal no longer applies.
                if !namingNone.isEmpty { state.rejected[taken.object] = nil }
                if state.rejected[taken.object] == nil {
                    // The row's other changes are written at the next turn (not left for the
                    // next edit or flush).
                    if state.dirty[taken.object] != nil { scheduleCommit() }
                    continue
                }
            }
            report(error, for: taken.object)
        }
    }

    /// Drops the changes not written yet, of the models `objects`, that make a to-one
    /// relationship name a row that is not in the database (deleted, here or elsewhere, after
    /// the change was made): the database would refuse them forever (a foreign key). Each such
    /// property takes its row's value again (and the model its place in its parent's
    /// collection), and `StoreError.deleted` names the row it named. The model's other changes
    /// stay pending. With `deleted` (rows known to be gone), only changes naming those are
    /// dropped, without looking the rows up; without it, each row named is looked up.
    ///
    /// Returns the models among `objects` whose changes name no such row (changed again since
    /// the change a commit refused, say).
    @discardableResult
    func dropChangesNamingMissingRows(of objects: some Sequence<ObjectIdentifier>, deleted: Set<_RowKey>? = nil) -> [ObjectIdentifier] {
        var namingNone: [ObjectIdentifier] = []
        for object in objects {
            guard var row = state.dirty[object] else { continue }
            let table = row.table
            var named: [(position: Int, key: _RowKey, model: String)] = []
            for index in row.columns {
                guard let position = table.position(ofProperty: index),
                      let target = table.columns[position].relation?.target,
                      case .integer(let id)? = try? table.columns[position].read(row.model) else { continue }
                let namedKey = _RowKey(table: target._tableName, id: id)
                if let deleted, !deleted.contains(namedKey) { continue }
                named.append((position, namedKey, state.tablesByName[target._tableName]?.definition.modelName ?? target._tableName))
            }
            guard !named.isEmpty else {
                namingNone.append(object)
                continue
            }
            let id = row.key.id
            let keys = named.map(\.key)
            let known = deleted != nil
            let selectByID = table.selectByIDSQL
            let found: (missing: [Bool], values: [SQLiteValue]?)
            do {
                found = try writer.sync { connection in
                    let missing = try keys.map { key in
                        try known || connection.rows("SELECT 1 FROM \(_quote(key.table)) WHERE id = ?", [.integer(key.id)]).isEmpty
                    }
                    guard missing.contains(true) else { return (missing, nil) }
                    return (missing, try connection.rows(selectByID, [.integer(id)]).first.map { Array($0.values.dropFirst()) })
                }
            } catch {
                continue   // not known now: the change stays pending, and is tried again
            }
            guard found.missing.contains(true) else {
                namingNone.append(object)
                continue
            }
            for (item, missing) in zip(named, found.missing) where missing {
                let index = table.definition.columns[item.position].propertyIndex
                row.unmark(index)   // before the quiet set below: the set must not find it pending
                if let values = found.values {
                    setQuietly(row.model, index) { try? table.decode(values[item.position], position: item.position, into: row.model) }
                }
                errorSubject.sendNext(.deleted(model: item.model, id: item.key.id))
            }
            state.rejected[object] = nil
            if row.columns.isEmpty {
                state.dirty[object] = nil
                state.dirtyOrder.removeAll { $0 == object }
            } else {
                state.dirty[object] = row
            }
            if state.toManyByChild[table.name] != nil { placeEverywhere(row.model, table) }
        }
        return namingNone
    }

    /// Puts the rows of failed batch `number` back among the pending changes (newer changes to
    /// the same rows merge with them: the values are read again at the next commit).
    func restore(_ number: Int) {
        guard let rows = state.inFlight.removeValue(forKey: number) else { return }
        for taken in rows.reversed() {
            // A row deleted meanwhile stays deleted.
            guard state.identity[taken.row.key] != nil else { continue }
            putBack(taken, first: true)
        }
    }

    /// Puts a row taken for a commit back among the pending ones, merged with its newer changes
    /// if it has any: first in the order of the pending rows, or last.
    func putBack(_ taken: _TakenRow, first: Bool) {
        if var existing = state.dirty[taken.object] {
            existing.merge(taken.row.columns)
            state.dirty[taken.object] = existing
        } else {
            var row = taken.row
            row.merge(taken.row.columns)   // marks them in the registrar again
            state.dirty[taken.object] = row
            if first { state.dirtyOrder.insert(taken.object, at: 0) } else { state.dirtyOrder.append(taken.object) }
        }
    }

    /// Commits the pending changes of every open store and closes it (called at normal process
    /// exit); what cannot be committed is logged as an error (`flushOrReport`), and the store is
    /// closed all the same.
    static func flushAllAtExit() {
        for store in _StoreRegistry.shared.all() {
            store.flushOrReport(when: "at exit")
            store.shutDown()
        }
    }

    /// Flushes; if that fails, logs what is lost at `error` level on the `tether.store` logger
    /// (the store is going away: nobody can be told through `errors` or a throw any more). An app
    /// that never bootstraps swift-log's `LoggingSystem` gets its default handler, which writes
    /// `error` messages to standard error, so the user is told without any set-up.
    func flushOrReport(when: String) {
        do {
            try flush()
        } catch {
            guard pendingRowCount > 0 else { return }
            TetherLogger.logger(TetherLogger.storeLabel).error(
                "\(when), \(unwrittenDescription()) could not be written to \(path): \(error)"
            )
        }
    }

    /// The rows with uncommitted changes and their columns ("2 changed rows (Ticket 3: points,
    /// title; Ticket 5: title)").
    func unwrittenDescription() -> String {
        var rows: [ObjectIdentifier: (row: _DirtyRow, columns: _ColumnSet)] = [:]
        for taken in state.inFlight.values.joined() { rows[taken.object] = (taken.row, taken.row.columns) }
        for (object, row) in state.dirty { rows[object, default: (row, _ColumnSet())].columns.formUnion(row.columns) }
        let listed = rows.values.sorted { ($0.row.key.table, $0.row.key.id) < ($1.row.key.table, $1.row.key.id) }.map { row, columns in
            let names = columns.sorted().compactMap { row.table.column(forProperty: $0)?.name }
            return "\(row.table.definition.modelName) \(row.key.id): \(names.joined(separator: ", "))"
        }
        return "\(rows.count) changed row\(rows.count == 1 ? "" : "s") (\(listed.joined(separator: "; ")))"
    }
}

/// A row with changes not yet committed. It keeps its model alive until they are: a model the
/// app drops right after changing it still has its changes written.
///
/// Its columns are also marked in the model's registrar (`pendingColumns`, `_ColumnSet.marks`),
/// so that a set finds there whether its row and column are pending without looking the row
/// up. The two always agree (`mark`, `unmark`, `merge`; the marks are cleared when the row
/// stops being pending: taken for a commit, deleted): a mark without its column here would let
/// a set go unwritten, and a pending row without marks would be replaced by the next set.
struct _DirtyRow {
    let key: _RowKey
    let table: _Table
    let model: AnyObject
    /// The model's registrar, inside the model (which this row keeps alive).
    let registrar: UnsafePointer<ModelRegistrar>
    private(set) var columns = _ColumnSet()

    init(key: _RowKey, table: _Table, model: AnyObject, registrar: UnsafePointer<ModelRegistrar>) {
        self.key = key
        self.table = table
        self.model = model
        self.registrar = registrar
    }

    mutating func mark(_ column: Int) {
        columns.insert(column)
        registrar.pointee.pendingColumns.store(columns.marks, ordering: .relaxed)
    }

    mutating func unmark(_ column: Int) {
        columns.remove(column)
        registrar.pointee.pendingColumns.store(columns.marks, ordering: .relaxed)
    }

    mutating func merge(_ other: _ColumnSet) {
        columns.formUnion(other)
        registrar.pointee.pendingColumns.store(columns.marks, ordering: .relaxed)
    }
}

/// The changed properties of a row, by index: a bit mask for the first 64 (what a write marks
/// on every set, without hashing), a set for the others. Iterates in ascending order.
struct _ColumnSet: Sequence, Hashable {
    /// Bit `i` is set when property `i` (i < 64) is in the set.
    private(set) var bits: UInt64 = 0
    /// The properties with an index of 64 or more (nil while there are none).
    private var more: Set<Int>?

    init() {}

    init(_ indexes: some Sequence<Int>) {
        for index in indexes { insert(index) }
    }

    var isEmpty: Bool { bits == 0 && (more?.isEmpty ?? true) }

    /// The set as a registrar marks it (`ModelRegistrar.pendingColumns`): bit `i` for property
    /// `i` below 63, bit 63 for any property from 63 on. Zero only when the set is empty.
    var marks: UInt64 {
        let wide = bits >> 63 != 0 || !(more?.isEmpty ?? true)
        return bits & ~(1 << 63) | (wide ? 1 << 63 : 0)
    }

    var count: Int { bits.nonzeroBitCount + (more?.count ?? 0) }

    func contains(_ index: Int) -> Bool {
        index < 64 ? bits & (1 << UInt64(index)) != 0 : more?.contains(index) ?? false
    }

    mutating func insert(_ index: Int) {
        if index < 64 { bits |= 1 << UInt64(index) } else { more = (more ?? []).union(CollectionOfOne(index)) }
    }

    mutating func remove(_ index: Int) {
        if index < 64 { bits &= ~(1 << UInt64(index)) } else { more?.remove(index) }
    }

    mutating func formUnion(_ other: _ColumnSet) {
        bits |= other.bits
        if let others = other.more { more = (more ?? []).union(others) }
    }

    /// Walks the bits, then the others in ascending order (sorted only if there are any): a
    /// row's columns are walked for every commit, with nothing allocated.
    struct Iterator: IteratorProtocol {
        var rest: UInt64
        var more: IndexingIterator<[Int]>?

        mutating func next() -> Int? {
            if rest != 0 {
                let index = rest.trailingZeroBitCount
                rest &= rest - 1
                return index
            }
            return more?.next()
        }
    }

    func makeIterator() -> Iterator {
        Iterator(rest: bits, more: more.map { $0.sorted().makeIterator() })
    }
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
    /// The rows the changed to-one relationships name: an update naming one deleted after the
    /// last look its values reflect is not written (its id may be a new row's).
    var references: [_RowKey] = []
}

/// The changes committed in one transaction: `updates` cross to the writer queue; `rows` stay on
/// the model's thread (in `inFlight` until the commit's outcome is applied).
struct _Batch {
    let number: Int
    let updates: [_Update]
    /// The tables of `updates`.
    let tables: Set<String>
    let rows: [_TakenRow]
}


/// A row of a batch that a database constraint refused.
struct _Rejected: Sendable {
    let key: _RowKey
    let error: SQLiteError
    /// For a row left out because a relationship names rows deleted after the last look its
    /// values reflect: those rows.
    var deleted: Set<_RowKey> = []
}

extension SQLiteError {
    /// What a write naming a row deleted after the last look its values reflect fails with:
    /// the error the foreign key gives when the row's id is free (see `Store.namingDeletedRows`).
    static let foreignKeyToDeletedRow = SQLiteError(code: .constraintForeignKey, message: "FOREIGN KEY constraint failed")
}
