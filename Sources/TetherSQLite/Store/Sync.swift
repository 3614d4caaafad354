import Foundation

// Changes committed to the database, whoever committed them, reaching the live models, the live
// queries and the `committedChanges` feed (docs/PERSISTENCE.md, "Changes made elsewhere").

extension Store {
    // MARK: Noticing changes

    /// Looks for changes committed by other connections and processes now, and applies them
    /// before returning: live models are updated, live queries send new results, and
    /// `committedChanges` reports them. Call it on the store's thread.
    ///
    /// A store that watches for external changes (the default) does this by itself shortly after
    /// each commit elsewhere; `refresh()` is for stores opened with
    /// `watchesExternalChanges: false`, and for code that must see a change it knows was just
    /// committed elsewhere.
    ///
    /// ```swift
    /// try otherConnection.execute("UPDATE Invoice SET quantity = 9 WHERE id = ?", [id])
    /// try store.refresh()
    /// invoice.quantity   // 9
    /// ```
    public func refresh() throws(StoreError) {
        let tracker = self.tracker
        let changes: _ChangeSet
        do {
            changes = try writer.sync { connection in try tracker.catchUp(connection) }
        } catch {
            throw StoreError.wrap(error)
        }
        apply(changes)
    }

    /// Starts the watcher thread, which calls `requestCatchUp` each time it may have seen a
    /// commit.
    func startWatching() {
        let request = catchUpRequest()
        watcher = _ChangeWatcher(path: path, fallbackInterval: .seconds(1), pollInterval: .milliseconds(20)) {
            request()
        }
    }

    /// A closure, callable from any thread, that reads the change log on the writer queue and
    /// hands what it found to the store's scheduler. The watcher thread calls it and waits
    /// (`sync`: the look runs on the watcher's own thread when the queue is idle, which saves a
    /// thread hop).
    func catchUpRequest() -> @Sendable () -> Void {
        let writer = self.writer
        let tracker = self.tracker
        let box = self.box
        let scheduler = self.scheduler
        return {
            let changes: _ChangeSet
            do {
                changes = try writer.sync { connection in try tracker.catchUp(connection) }
            } catch {
                scheduler.schedule { box.store?.errorSubject.sendNext(StoreError.wrap(error)) }
                return
            }
            guard !changes.isEmpty else { return }
            scheduler.schedule { box.store?.apply(changes) }
        }
    }

    // MARK: Applying changes (the model's thread)

    /// Applies what a look at the change log found: reloads live models changed elsewhere,
    /// marks deleted ones, reports every change on `committedChanges`, and updates the live
    /// queries.
    func apply(_ set: _ChangeSet) {
        guard !set.isEmpty else { return }
        if set.resync {
            reloadAllLiveModels()
        } else if !set.externalKeys.isEmpty {
            reload(set)
        }
        if changeSubject.subscriberCount > 0 {
            for change in set.changes { changeSubject.sendNext(change) }
        }
        updateLiveQueries(set)
    }

    /// Updates the live models of rows changed elsewhere, all in one model transaction (so
    /// computed properties see every field of a row at once), and marks deleted rows.
    private func reload(_ set: _ChangeSet) {
        var updates: [(model: any Model, table: _Table, values: [SQLiteValue])] = []
        var deletions: [(model: any Model, key: _RowKey, table: _Table)] = []
        for key in set.externalKeys {
            guard let model = state.identity[key] as? any Model,
                  let table = state.tablesByName[key.table] else { continue }
            if set.deletedKeys.contains(key) {
                // Deleted (and perhaps a new row inserted under the same id: a different row).
                deletions.append((model, key, table))
            } else if let values = set.rows[key] {
                updates.append((model, table, values))
            } else {
                deletions.append((model, key, table))   // gone by the time it was read
            }
        }
        if !updates.isEmpty {
            let inFlight = state.inFlight.isEmpty ? [:] : inFlightColumns()
            transaction {
                for update in updates {
                    reloadRow(update.model, table: update.table, values: update.values, inFlight: inFlight)
                }
            }
            state.suppressed = []
        }
        for deletion in deletions { markDeleted(deletion.model, key: deletion.key, table: deletion.table) }
    }

    /// Sets the model's properties whose column holds a different value, except those with a
    /// local change not yet committed (pending or in flight): the local change wins, and is
    /// written after (see docs/PERSISTENCE.md, "Conflicts"). The sets are not written back.
    private func reloadRow(_ model: any Model, table: _Table, values: [SQLiteValue], inFlight: [ObjectIdentifier: Set<Int>]) {
        let object = ObjectIdentifier(model)
        let dirty = state.dirty[object]?.columns
        let committing = inFlight[object]
        for (position, (column, value)) in zip(table.definition.columns, values).enumerated() {
            let index = column.propertyIndex
            if dirty?.contains(index) == true || committing?.contains(index) == true { continue }
            if let current = try? table.encode(property: index, of: model), current == value { continue }
            state.suppressed.insert(_Suppressed(object: object, column: index))
            do {
                try table.decode(value, position: position, into: model)
            } catch {
                state.suppressed.remove(_Suppressed(object: object, column: index))
                // A value of the wrong type, written by another program: the model keeps its
                // value, and the error says which row and column.
                errorSubject.sendNext(StoreError.wrap(error))
            }
        }
    }

    /// Reloads every live model (after the log was pruned past what this store had read).
    private func reloadAllLiveModels() {
        var keysByTable: [String: [_RowKey]] = [:]
        for (key, _) in state.identity.live {
            keysByTable[key.table, default: []].append(key)
        }
        var set = _ChangeSet()
        for (name, keys) in keysByTable {
            guard let table = state.tablesByName[name] else { continue }
            let sql = table.selectByIDSQL
            let ids = keys.map(\.id)
            let rows: [Int64: [SQLiteValue]]
            do {
                rows = try writer.sync { connection in
                    var rows: [Int64: [SQLiteValue]] = [:]
                    for id in ids {
                        if let row = try connection.rows(sql, [.integer(id)]).first {
                            rows[id] = Array(row.values.dropFirst())
                        }
                    }
                    return rows
                }
            } catch {
                errorSubject.sendNext(StoreError.wrap(error))
                continue
            }
            for key in keys {
                set.externalKeys.append(key)
                if let values = rows[key.id] { set.rows[key] = values }
            }
        }
        reload(set)
    }

    private func updateLiveQueries(_ set: _ChangeSet) {
        guard !state.liveQueries.isEmpty else { return }
        for (id, result) in set.queryResults {
            guard let query = state.liveQueries[id] else { continue }
            switch result {
            case .success(let ids):
                query.update(ids: ids, entries: set.entries, resync: set.resync, store: self)
            case .failure(let error):
                query.fail(.sqlite(error))
                stopLiveQuery(id)
            }
        }
    }


    // MARK: Deletion

    /// Sends once, then completes, when `model`'s row is deleted — by this store or elsewhere
    /// (another connection, another process). From then on the model is no longer written
    /// through: its `persistentID` is nil, and a change to it is reported on `errors` as
    /// `StoreError.deleted` (the row is never silently brought back). Sends at once if the row
    /// is already deleted; completes without sending when the model is freed or the store is.
    ///
    /// ```swift
    /// store.deletion(of: invoice).subscribe(next: { showGone(invoice) })
    /// ```
    public func deletion<M: PersistentModel>(of model: M) -> Signal<Void, Never> {
        let rowID = model._$registrar.rowID.load(ordering: .relaxed)
        if rowID < 0 { return .just(()) }
        guard rowID > 0 else { return .empty }
        let table = M._$schema.name
        return committedChanges
            .filter { $0.kind == .delete && $0.rowID == rowID && $0.table == table }
            .map { _ in () }
            .take(1)
            .take(until: lifetime(of: model))
    }
}

