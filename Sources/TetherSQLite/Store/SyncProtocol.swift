import Foundation
import Synchronization

// The sync protocol (Sources/TetherSQLite/TetherSQLite.docc/Persistence.md, "The sync
// protocol"): what the store's connection did and read on the writer queue reaches the store's
// thread in the order it happened there, and is applied in that order; changes committed
// elsewhere reach the live models, the live queries and the `committedChanges` feed.

/// Something the writer queue did or read, for the store's thread to apply.
enum _SyncEvent: Sendable {
    /// A look at the change log (by the watcher, by `refresh()`, after an insert or a delete).
    case changes(_ChangeSet)
    /// A write-through batch was committed; `changes` is the look at the log that followed.
    /// `rejected`: rows left out because they broke a constraint of the database.
    case committed(batch: Int, changes: _ChangeSet, rejected: [_Rejected])
    /// A write-through batch failed and was rolled back: its rows are pending again.
    case failed(batch: Int, error: StoreError)
    /// A look at the log failed.
    case error(StoreError)
}

/// An event and its stamp: its place in the order of everything the store's connection did.
struct _SyncItem: Sendable {
    let stamp: UInt64
    let event: _SyncEvent
}

/// The queue of events from the writer queue to the store's thread.
///
/// Events are stamped and appended on the writer queue, inside the work item that produced
/// them, so stamps follow the order in which the connection saw the database; the store's
/// thread takes them in that order. A read that hands nothing over (a fetch) takes a stamp too,
/// so the store knows which waiting events are older than the models it just loaded.
final class _SyncInbox: Sendable {
    private struct State {
        var nextStamp: UInt64 = 1
        var items: [_SyncItem] = []
    }

    private let state = Mutex(State())

    /// Appends `event` (on the writer queue) and returns its stamp.
    @discardableResult
    func push(_ event: _SyncEvent) -> UInt64 {
        state.withLock { state in
            let stamp = state.nextStamp
            state.nextStamp += 1
            state.items.append(_SyncItem(stamp: stamp, event: event))
            return stamp
        }
    }

    /// A stamp for a read that hands nothing over (on the writer queue), and whether events
    /// are waiting (all of them older than the read).
    func stamp() -> (stamp: UInt64, waiting: Bool) {
        state.withLock { state in
            let stamp = state.nextStamp
            state.nextStamp += 1
            return (stamp, !state.items.isEmpty)
        }
    }

    /// Takes the oldest event, if there is one older than `limit`.
    func pop(before limit: UInt64 = .max) -> _SyncItem? {
        state.withLock { state in
            guard let first = state.items.first, first.stamp < limit else { return nil }
            return state.items.removeFirst()
        }
    }

    /// Whether an event older than `stamp` is waiting.
    func hasItems(before stamp: UInt64) -> Bool {
        state.withLock { $0.items.first.map { $0.stamp < stamp } ?? false }
    }

    var isEmpty: Bool { state.withLock { $0.items.isEmpty } }
}

extension Store {
    // MARK: Noticing changes

    /// Looks for changes committed by other connections and processes now, and applies them
    /// before returning (with any the watcher had already read): live models are updated, live
    /// queries send new results, and `committedChanges` reports them. Call it on the store's
    /// thread.
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
        precondition(!state.inWriteLock, Self.calledInWriteLock("refresh()"))
        try checkOpen()
        let tracker = self.tracker
        let inbox = self.inbox
        do {
            _ = try writer.sync { connection in inbox.push(.changes(try tracker.catchUp(connection))) }
        } catch {
            drain()
            throw StoreError.wrap(error)
        }
        drain()
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
    /// hands what it found to the store's thread (the inbox, then a turn of its scheduler). The
    /// watcher thread calls it and waits (`sync`: the look runs on the watcher's own thread when
    /// the queue is idle, which saves a thread hop).
    func catchUpRequest() -> @Sendable () -> Void {
        let writer = self.writer
        let tracker = self.tracker
        let inbox = self.inbox
        let box = self.box
        let scheduler = self.scheduler
        let file = self.file
        return {
            let handed = writer.sync { connection -> Bool in
                guard !connection.isClosed else { return false }   // the store was closed meanwhile
                // The database file deleted or replaced: the store is told even when idle.
                if file.watcherFindsNewLoss() {
                    inbox.push(.error(.fileLost(path: file.path)))
                    return true
                }
                do {
                    let changes = try tracker.catchUp(connection)
                    guard !changes.isEmpty else { return false }
                    inbox.push(.changes(changes))
                } catch {
                    inbox.push(.error(StoreError.wrap(error)))
                }
                return true
            }
            if handed { scheduler.schedule { box.store?.drain() } }
        }
    }

    // MARK: Applying, in order (the model's thread)

    /// Applies, in the order they happened, the events waiting in the inbox that are older than
    /// `limit` (all of them by default). May be called again from within (an observer that
    /// flushes, say): the inner call goes on with the next events, in order.
    func drain(before limit: UInt64 = .max) {
        let limit = Swift.min(limit, state.drainCeiling)
        while let item = inbox.pop(before: limit) {
            process(item)
        }
        // Protection lasts only while older events wait.
        if !state.rowStamps.isEmpty, inbox.isEmpty { state.rowStamps.removeAll() }
    }

    private func process(_ item: _SyncItem) {
        switch item.event {
        case .changes(let set):
            apply(set, stamp: item.stamp)
            tracker.applied(through: set.through)
        case .committed(let batch, let set, let rejected):
            // The batch is over; but the changes its commit found came before the commit, which
            // overwrote them: they are applied as if the batch's columns were still in flight.
            // (Finished first, so that events after this one, applied by an observer that
            // flushes in the middle of this one, see the batch as committed.)
            var rows = state.inFlight.removeValue(forKey: batch) ?? []
            state.retryDelay = nil
            state.fileLostReported = false
            if !rejected.isEmpty {
                reject(rejected, of: rows)
                rows.removeAll { taken in rejected.contains { $0.key == taken.row.key } }
            }
            // Rows others deleted before the commit were left out of it: the change is not
            // written, and said so when the model is marked deleted (by the reload below, or
            // by an earlier look while the row was in flight: see `reload`).
            apply(set, stamp: item.stamp, committed: rows)
            tracker.applied(through: set.through)
        case .failed(let batch, let error):
            restore(batch)
            report(error)
            scheduleRetry()
        case .error(let error):
            report(error)
        }
    }

    /// Sends `error` on `errors`; `StoreError.fileLost` only once per loss (not at every retry,
    /// nor again when the watcher notices it too).
    private func report(_ error: StoreError) {
        if case .fileLost = error {
            guard !state.fileLostReported else { return }
            state.fileLostReported = true
        }
        errorSubject.sendNext(error)
    }

    /// Marks the live models of `keys` as reflecting the database as of `stamp`, if older events
    /// are still waiting: those are not applied to them (they would be stale).
    func protect(_ keys: some Sequence<_RowKey>, at stamp: UInt64) {
        guard inbox.hasItems(before: stamp) else { return }
        for key in keys { state.rowStamps[key] = stamp }
    }

    /// Applies what a look at the change log found: reloads live models changed elsewhere,
    /// marks deleted ones, reports every change on `committedChanges`, and updates the live
    /// queries.
    func apply(_ set: _ChangeSet, stamp: UInt64, committed: [_TakenRow] = []) {
        guard !set.isEmpty else { return }
        if set.resync {
            reloadAllLiveModels()
        } else if !set.externalKeys.isEmpty {
            reload(set, stamp: stamp, committed: committed)
        }
        if changeSubject.subscriberCount > 0 {
            for change in set.changes { changeSubject.sendNext(change) }
        }
        updateLiveQueries(set, stamp: stamp)
    }

    /// Updates the live models of rows changed elsewhere, all in one model transaction (so
    /// computed properties see every field of a row at once), and marks deleted rows. Skips a
    /// row whose live model reflects a later state than the look (loaded, or inserted here,
    /// after it: see `protect`).
    private func reload(_ set: _ChangeSet, stamp: UInt64, committed: [_TakenRow] = []) {
        var updates: [(model: any Model, table: _Table, values: [SQLiteValue])] = []
        var deletions: [(model: any Model, key: _RowKey, table: _Table)] = []
        // A row this look's own transaction inserted: what others did before is about an earlier
        // row with the same id, whose model the insert already marked deleted.
        let insertedHere = set.entries.filter { $0.isLocal && $0.kind == .insert }
        // Rows deleted, whether their models are in memory or not: a change here naming one
        // can never be written (another row may have its id by now).
        var gone: Set<_RowKey> = []
        for key in set.externalKeys {
            if !state.rowStamps.isEmpty, let newer = state.rowStamps[key], newer >= stamp { continue }
            if !insertedHere.isEmpty, insertedHere.contains(where: { $0.table == key.table && $0.rowIDs.contains(key.id) }) { continue }
            if set.deletedKeys.contains(key) { gone.insert(key) }
            guard let model = state.identity[key] as? any Model,
                  let table = state.tablesByName[key.table] else { continue }
            if set.deletedKeys.contains(key) {
                // Deleted (and perhaps a new row inserted under the same id: a different row).
                deletions.append((model, key, table))
            } else if let values = set.rows[key] {
                updates.append((model, table, values))
            } else if set.missing.contains(key) {
                deletions.append((model, key, table))   // gone by the time it was read
            }
            // Otherwise the look did not read the row (its table was not the store's yet).
        }
        let children = state.toManyByChild.isEmpty ? [:] : newChildren(in: set)
        let dropping = !gone.isEmpty && !state.dirty.isEmpty
        guard !updates.isEmpty || !deletions.isEmpty || !children.isEmpty || dropping else { return }
        let inFlight = state.inFlight.isEmpty && committed.isEmpty ? [:] : inFlightColumns(and: committed)
        // One model transaction: computed properties, over several rows and collections, see
        // the whole change at once.
        quietTransaction {
            for update in updates {
                reloadRow(update.model, table: update.table, values: update.values, inFlight: inFlight)
            }
            if !state.toManyByChild.isEmpty {
                // Children given another parent, or another place in the order.
                for update in updates { placeEverywhere(update.model, update.table) }
            }
            // A row in a commit (under way, or just over, which left it out) loses its change:
            // said once, here.
            for deletion in deletions {
                let object = ObjectIdentifier(deletion.model)
                markDeleted(deletion.model, key: deletion.key, table: deletion.table, changesLost: inFlight[object] != nil)
            }
            loadNewChildren(children, of: set, inFlight: inFlight)
            if !state.dirty.isEmpty, !gone.isEmpty {
                // Changes here that name a row deleted there can never be written.
                let deleted = gone
                let tables = Set(deleted.map(\.table))
                let naming = state.dirty.compactMap { object, row in
                    row.table.columns.contains { $0.relation.map { tables.contains($0.target._tableName) } ?? false } ? object : nil
                }
                dropChangesNamingMissingRows(of: naming, deleted: deleted)
            }
        }
        // A change kept back because its row broke a rule may be valid now that the other
        // columns came from elsewhere (another copy gave the line the description its price
        // needed): it is written at the end of this turn, not left until the next edit.
        if !state.dirty.isEmpty, updates.contains(where: { state.dirty[ObjectIdentifier($0.model)] != nil }) {
            scheduleCommit()
        }
    }

    /// Sets the model's properties whose column holds a different value, except those with a
    /// local change not yet committed (pending or in flight): the local change wins, and is
    /// written after (see Sources/TetherSQLite/TetherSQLite.docc/Persistence.md, "Conflicts").
    /// The sets are not written back.
    func reloadRow(_ model: any Model, table: _Table, values: [SQLiteValue], inFlight: [ObjectIdentifier: Set<Int>]) {
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

    /// Reloads every live model (after the log was pruned past what this store had read). The
    /// rows are read now, so they are newer than any event still waiting: those are not applied
    /// to them.
    private func reloadAllLiveModels() {
        var keysByTable: [String: [_RowKey]] = [:]
        for (key, _) in state.identity.live {
            keysByTable[key.table, default: []].append(key)
        }
        var set = _ChangeSet()
        var stamp: UInt64 = 0
        let inbox = self.inbox
        for (name, keys) in keysByTable {
            guard let table = state.tablesByName[name] else { continue }
            let sql = table.selectByIDSQL
            let ids = keys.map(\.id)
            let rows: [Int64: [SQLiteValue]]
            do {
                (rows, stamp) = try writer.sync { connection in
                    var rows: [Int64: [SQLiteValue]] = [:]
                    for id in ids {
                        if let row = try connection.rows(sql, [.integer(id)]).first {
                            rows[id] = Array(row.values.dropFirst())
                        }
                    }
                    return (rows, inbox.stamp().stamp)
                }
            } catch {
                errorSubject.sendNext(StoreError.wrap(error))
                continue
            }
            for key in keys {
                set.externalKeys.append(key)
                if let values = rows[key.id] { set.rows[key] = values } else { set.missing.insert(key) }
            }
        }
        reload(set, stamp: stamp)
        protect(set.externalKeys, at: stamp)
    }

    private func updateLiveQueries(_ set: _ChangeSet, stamp: UInt64) {
        guard !state.liveQueries.isEmpty else { return }
        for (id, result) in set.queryResults {
            guard let query = state.liveQueries[id] else { continue }
            switch result {
            case .success(let change):
                query.update(change, entries: set.entries, resync: set.resync, stamp: stamp, store: self)
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

