import Foundation

// Live queries: a query's result, sent again when a committed change affects it.

extension Store {
    // MARK: Live queries

    /// A live query: the models whose rows match `condition`, ordered by `orderBy`, now and
    /// after every committed change that affects them — made here, by another connection, or by
    /// another process.
    ///
    /// Subscribe on the store's thread. The signal sends the current result at once, then a
    /// new result (the same identity-mapped objects, with any new ones) when a committed change
    /// inserts, deletes or updates a row of a table the query reads and the result's rows or
    /// their order changed, or a row in the result was updated. Many commits noticed at once
    /// give one new result. A change elsewhere to a row in the result also updates that
    /// model in place, so per-key-path observers fire as well. It fails if the SQL is invalid,
    /// and completes when the store is freed.
    ///
    /// ```swift
    /// let open = store.observe(Invoice.self, where: "paid = 0", orderBy: \.customer)
    /// open.subscribe(next: { invoices in render(invoices) })
    /// ```
    public func observe<M: PersistentModel, V>(
        _ type: M.Type,
        where condition: String? = nil,
        _ arguments: [SQLiteValue] = [],
        orderBy: KeyPath<M, V>,
        descending: Bool = false
    ) -> Signal<QueryResult<M>, StoreError> {
        let index: Int
        do {
            index = try Self.propertyIndex(of: orderBy)
        } catch {
            return Signal(error: error)
        }
        return _observe(type, where: condition, arguments, orderBy: index, descending: descending)
    }

    /// A live query ordered by id (see `observe(_:where:_:orderBy:descending:)`).
    ///
    /// ```swift
    /// store.observe(Invoice.self).subscribe(next: { print($0.count, "invoices") })
    /// ```
    public func observe<M: PersistentModel>(
        _ type: M.Type,
        where condition: String? = nil,
        _ arguments: [SQLiteValue] = []
    ) -> Signal<QueryResult<M>, StoreError> {
        _observe(type, where: condition, arguments, orderBy: nil, descending: false)
    }

    func _observe<M: PersistentModel>(
        _ type: M.Type,
        where condition: String?,
        _ arguments: [SQLiteValue],
        orderBy: Int?,
        descending: Bool,
        limit: Int? = nil,
        offset: Int? = nil
    ) -> Signal<QueryResult<M>, StoreError> {
        let box = self.box
        return Signal { observer in
            guard let store = box.store else {
                observer.sendCompleted()
                return nil
            }
            return store.startLiveQuery(
                type, where: condition, arguments, orderBy: orderBy, descending: descending, limit: limit, offset: offset,
                observer: observer)
        }
    }

    private func startLiveQuery<M: PersistentModel>(
        _ type: M.Type,
        where condition: String?,
        _ arguments: [SQLiteValue],
        orderBy: Int?,
        descending: Bool,
        limit: Int?,
        offset: Int?,
        observer: Observer<QueryResult<M>, StoreError>
    ) -> (any Disposable)? {
        let id: Int
        let models: [M]
        let stamp: UInt64
        do {
            let table = try table(for: type)
            if let orderBy, let column = table.column(forProperty: orderBy) { ensureOrderIndex(table, column: column.name) }
            let sql = try table.querySQL(
                columns: "id", where: condition, orderBy: orderBy, descending: descending, limit: limit, offset: offset)
            // A page is made again each time; a whole result follows a few changed rows.
            let incremental = limit != nil || offset != nil ? nil : _IncrementalQuery(
                table: table.name, quotedTable: table.quotedName, condition: condition, arguments: arguments,
                column: orderBy.flatMap { table.column(forProperty: $0) }.map { Store.dialect.quote($0.name) },
                descending: descending)
            (id, (models, stamp)) = try registerLiveQuery(idSQL: sql, arguments: arguments, incremental: incremental) {
                let select = try table.querySQL(
                    columns: nil, where: condition, orderBy: orderBy, descending: descending, limit: limit, offset: offset)
                return try _stampedFetch(type, sql: select, arguments, table: table)
            }
        } catch {
            observer.sendError(StoreError.wrap(error))
            return nil
        }
        let query = _LiveQuery<M>(id: id, observer: observer, models: models, stamp: stamp)
        tracker.setResultSize(query.count, ofQuery: id)
        observer.sendNext(query.result)
        return keepLiveQuery(query, id: id)
    }

    /// Registers a live query's id query with the tracker (before its first result is read, so
    /// that no commit falls in between), then reads that result with `read`; a failed read
    /// unregisters it. Returns the query's number and what `read` returned.
    func registerLiveQuery<First>(
        idSQL: String, arguments: [SQLiteValue], incremental: _IncrementalQuery? = nil, insertsAndDeletesOnly: Bool = false,
        aggregate: _IncrementalAggregate? = nil, read: () throws -> First
    ) throws -> (id: Int, first: First) {
        let tracker = self.tracker
        let id = try writer.sync { connection in
            try tracker.addQuery(
                idSQL: idSQL, arguments: arguments, incremental: incremental, insertsAndDeletesOnly: insertsAndDeletesOnly,
                aggregate: aggregate, in: connection)
        }
        do {
            return (id, try read())
        } catch {
            tracker.removeQuery(id)
            throw error
        }
    }

    /// Keeps live query `id` until the returned disposable is disposed (from any thread).
    func keepLiveQuery(_ query: any _AnyLiveQuery, id: Int) -> any Disposable {
        state.liveQueries[id] = query
        let box = self.box
        let scheduler = self.scheduler
        return ActionDisposable {
            // Disposal may come from any thread: the store's bookkeeping is done on its own.
            scheduler.schedule { box.store?.stopLiveQuery(id) }
        }
    }

    func stopLiveQuery(_ id: Int) {
        tracker.removeQuery(id)
        state.liveQueries[id] = nil
    }

    /// The live models of `ids`, in that order, loading those not in memory (one query per
    /// 500 of them).
    func models<M: PersistentModel>(_ type: M.Type, ids: [Int64]) throws(StoreError) -> [M] {
        let table = try table(for: type)
        var result: [M?] = ids.map { state.identity[_RowKey(table: table.name, id: $0)] as? M }
        let missing = ids.indices.filter { result[$0] == nil }
        var start = 0
        while start < missing.count {
            let chunk = missing[start..<Swift.min(start + 500, missing.count)]
            let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
            // The identity map does not keep models alive: keep the new ones until they are returned.
            let loaded = try _fetch(type, where: "id IN (\(placeholders))", chunk.map { .integer(ids[$0]) }, orderBy: nil, descending: false)
            var byID: [Int64: M] = [:]
            for model in loaded { if let id = model.persistentID { byID[id] = model } }
            for index in chunk { result[index] = byID[ids[index]] }
            start += 500
        }
        return result.compactMap { $0 }   // a row deleted meanwhile is left out
    }

}

/// A live query, as the store keeps it (on its thread).
protocol _AnyLiveQuery: AnyObject {
    /// Applies what a look found (`stamp`: its event's stamp in the inbox).
    func update(_ change: _QueryChange, entries: [_LogEntry], resync: Bool, stamp: UInt64, store: Store)
    func fail(_ error: StoreError)
    func end()
}

final class _LiveQuery<M: PersistentModel>: _AnyLiveQuery {
    let id: Int
    let observer: Observer<QueryResult<M>, StoreError>
    /// The first result's read: looks stamped before it saw an older state, already in it.
    let stamp: UInt64
    /// The current result, kept alive while the query is subscribed (the identity map does not
    /// keep models alive).
    private var rows: _LiveRows<M>

    init(id: Int, observer: Observer<QueryResult<M>, StoreError>, models: [M], stamp: UInt64) {
        self.id = id
        self.observer = observer
        self.stamp = stamp
        // A model whose row went meanwhile is left out.
        let live = models.filter { $0.persistentID != nil }
        rows = _LiveRows(ids: live.map { $0.persistentID ?? 0 }, models: live)
    }

    var count: Int { rows.count }
    var result: QueryResult<M> { rows.snapshot() }

    /// Up to how many rows that came, went or moved a result made again by its query is
    /// edited; beyond, it is made again in one pass.
    static var editedRows: Int { 64 }

    func update(_ change: _QueryChange, entries: [_LogEntry], resync: Bool, stamp: UInt64, store: Store) {
        guard stamp > self.stamp else { return }
        do {
            let changed: Bool
            switch change {
            case .rows(let ids, let arrivals):
                changed = try follow(ids, arrivals, entries: entries, store: store)
            case .ids(let ids):
                changed = try replace(with: ids, entries: entries, resync: resync, store: store)
            case .value:
                return   // an aggregate's: not for a query of rows
            }
            store.tracker.setResultSize(rows.count, ofQuery: id)
            if changed { observer.sendNext(rows.snapshot()) }
        } catch {
            fail(error)
            store.stopLiveQuery(id)
        }
    }

    /// The rows of the result that `entries` deleted: if they are in the new result, they were
    /// inserted again under the same id (SQLite gives the largest id again once its row is
    /// deleted), and are new rows with new objects. Nil when there are more than `limit`.
    private func deleted(in entries: [_LogEntry], limit: Int) -> Set<Int64>? {
        let table = M._$schema.name
        var deleted: Set<Int64> = []
        for entry in entries where entry.kind == .delete && entry.table == table && rows.touches(entry, table: table) {
            if entry.last - entry.first >= Int64(rows.count) {
                for id in rows.ids where entry.rowIDs.contains(id) { deleted.insert(id) }
            } else {
                for id in entry.rowIDs where rows.contains(id) { deleted.insert(id) }
            }
            if deleted.count > limit { return nil }
        }
        return deleted
    }

    /// Applies a change found from the changed rows alone: each of `changed` leaves the
    /// result, and `arrivals` come back in order, each after the row named. Unchanged rows are
    /// not looked at. Returns whether the result or one of its rows changed.
    private func follow(
        _ changed: [Int64], _ arrivals: [(id: Int64, after: Int64?)], entries: [_LogEntry], store: Store
    ) throws(StoreError) -> Bool {
        let made = deleted(in: entries, limit: .max) ?? []
        var kept: [Int64: M] = [:]
        var touched = false
        for id in changed {
            guard let model = rows.remove(id) else { continue }
            touched = true
            if model.persistentID == id, !made.contains(id) { kept[id] = model }
        }
        if try insert(arrivals, reusing: kept, store: store) { return touched || !arrivals.isEmpty }
        // A row to follow was not in the result: it is made again by its query.
        let tracker = store.tracker
        let id = self.id
        let ids: [Int64]?
        do {
            ids = try store.writer.sync { connection in try tracker.ids(ofQuery: id, connection) }
        } catch {
            throw StoreError.wrap(error)
        }
        try rebuild(from: ids ?? [], madeAgain: made, store: store)
        return true
    }

    /// Inserts `arrivals` in order, each after the row named, with the models of `kept` or
    /// else the live (or loaded) ones. A row deleted meanwhile is left out, and a row that was
    /// to follow it follows the row it followed. Returns false when a row to follow is not in
    /// the result (the result is then partly edited).
    private func insert(
        _ arrivals: [(id: Int64, after: Int64?)], reusing kept: [Int64: M], store: Store
    ) throws(StoreError) -> Bool {
        var models = kept
        let missing = arrivals.lazy.map(\.id).filter { models[$0] == nil }
        if !missing.isEmpty {
            for model in try store.models(M.self, ids: Array(missing)) {
                if let id = model.persistentID { models[id] = model }
            }
        }
        var standIns: [Int64: Int64?] = [:]
        for (id, after) in arrivals {
            var after = after
            while let previous = after, let standIn = standIns[previous] { after = standIn }
            guard let model = models[id] else {
                standIns[id] = after
                continue
            }
            guard rows.insert(id, model, after: after) else { return false }
        }
        return true
    }

    /// Makes the result the rows `newIDs`, in that order (the query run again). Walking the
    /// old and new ids side by side, a row at the same place in both keeps its object; with a
    /// few rows that came, went or moved, only they are removed and inserted, as when
    /// following changed rows; with more, the result is made again in one pass. Returns
    /// whether the result or one of its rows changed.
    private func replace(with newIDs: [Int64], entries: [_LogEntry], resync: Bool, store: Store) throws(StoreError) -> Bool {
        let table = M._$schema.name
        guard let made = deleted(in: entries, limit: Self.editedRows) else {
            try rebuild(from: newIDs, madeAgain: nil, store: store)
            return true
        }
        let old = rows.ids
        if !resync, made.isEmpty, newIDs == old {
            // The same rows in the same order: changed if one of them was updated.
            return entries.contains { rows.touches($0, table: table) }
        }
        func matches(_ index: Int, _ id: Int64) -> Bool {
            index < old.count && old[index] == id && (made.isEmpty || !made.contains(id))
        }
        // The old rows passed over (went away, moved or made again), and the rows that arrive
        // (came, moved here, or made again), at their places in the new result.
        var passed: [Int64] = []
        var arrivals: [(id: Int64, after: Int64?)] = []
        var i = 0
        var many = false
        for (place, id) in newIDs.enumerated() {
            if matches(i, id) {
                i += 1
            } else if matches(i + 1, id) {
                passed.append(old[i])
                i += 2
            } else {
                arrivals.append((id, place > 0 ? newIDs[place - 1] : nil))
            }
            if passed.count + arrivals.count > Self.editedRows {
                many = true
                break
            }
        }
        if !many, i < old.count { passed.append(contentsOf: old[i...]) }
        if many || passed.count + arrivals.count > Self.editedRows {
            try rebuild(from: newIDs, madeAgain: made, store: store)
            return true
        }
        var kept: [Int64: M] = [:]
        for id in passed {
            if let model = rows.remove(id), model.persistentID == id, !made.contains(id) { kept[id] = model }
        }
        if try !insert(arrivals, reusing: kept, store: store) {
            try rebuild(from: newIDs, madeAgain: made, store: store)
            return true
        }
        return true
    }

    /// Makes the result the rows `ids`, in one pass: the objects of rows already in it are
    /// kept (except those made again, all of them when `madeAgain` is nil), the others loaded.
    private func rebuild(from ids: [Int64], madeAgain: Set<Int64>?, store: Store) throws(StoreError) {
        let current = madeAgain == nil ? [:] : rows.modelsByID
        var models: [M?] = ids.map { id in
            guard let made = madeAgain, !made.contains(id), let model = current[id], model.persistentID == id else { return nil }
            return model
        }
        let missing = ids.indices.filter { models[$0] == nil }
        if !missing.isEmpty {
            var loaded: [Int64: M] = [:]
            for model in try store.models(M.self, ids: missing.map { ids[$0] }) {
                if let id = model.persistentID { loaded[id] = model }
            }
            for index in missing { models[index] = loaded[ids[index]] }
        }
        // A row deleted meanwhile (not loaded) is left out.
        var keptIDs: [Int64] = []
        var keptModels: [M] = []
        keptIDs.reserveCapacity(ids.count)
        keptModels.reserveCapacity(ids.count)
        for (id, model) in zip(ids, models) {
            guard let model else { continue }
            keptIDs.append(id)
            keptModels.append(model)
        }
        rows = _LiveRows(ids: keptIDs, models: keptModels)
    }

    func fail(_ error: StoreError) { observer.sendError(error) }

    func end() { observer.sendCompleted() }
}
