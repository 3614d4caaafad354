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
    ) -> Signal<[M], StoreError> {
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
    ) -> Signal<[M], StoreError> {
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
    ) -> Signal<[M], StoreError> {
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
        observer: Observer<[M], StoreError>
    ) -> (any Disposable)? {
        let id: Int
        let models: [M]
        do {
            let table = try table(for: type)
            let sql = try table.querySQL(
                columns: "id", where: condition, orderBy: orderBy, descending: descending, limit: limit, offset: offset)
            let tracker = self.tracker
            // Registered before the first result is read, so that no commit falls in between.
            id = try writer.sync { connection in try tracker.addQuery(idSQL: sql, arguments: arguments, in: connection) }
            do {
                models = try _fetch(
                    type, where: condition, arguments, orderBy: orderBy, descending: descending, limit: limit, offset: offset)
            } catch {
                tracker.removeQuery(id)
                throw error
            }
        } catch {
            observer.sendError(StoreError.wrap(error))
            return nil
        }
        let query = _LiveQuery<M>(id: id, observer: observer, models: models)
        state.liveQueries[id] = query
        observer.sendNext(models)
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
            // The identity map holds models weakly: keep the new ones until they are returned.
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
    func update(ids: [Int64], entries: [_LogEntry], resync: Bool, store: Store)
    func fail(_ error: StoreError)
    func end()
}

final class _LiveQuery<M: PersistentModel>: _AnyLiveQuery {
    let id: Int
    let observer: Observer<[M], StoreError>
    /// The current result, kept alive while the query is subscribed (the identity map holds
    /// models weakly), with its ids in order and by id.
    private var ids: [Int64]
    private var byID: [Int64: M]
    private var current: [M]

    init(id: Int, observer: Observer<[M], StoreError>, models: [M]) {
        self.id = id
        self.observer = observer
        var ids: [Int64] = []
        var byID: [Int64: M] = [:]
        ids.reserveCapacity(models.count)
        byID.reserveCapacity(models.count)
        for model in models {
            guard let id = model.persistentID else { continue }
            ids.append(id)
            byID[id] = model
        }
        self.ids = ids
        self.byID = byID
        // Side by side with `ids`, place for place (a model whose row went meanwhile is left out).
        self.current = models.filter { $0.persistentID != nil }
    }

    func update(ids newIDs: [Int64], entries: [_LogEntry], resync: Bool, store: Store) {
        let table = M._$schema.name
        var affected = resync || newIDs != ids
        if !affected {
            affected = entries.contains { $0.touches(table, in: byID) }
        }
        guard affected else { return }
        // A row of the result deleted and inserted again under the same id (SQLite gives the
        // largest id again once its row is deleted) is a new row, with a new object.
        if newIDs == ids, !resync, !entries.contains(where: { $0.kind == .delete && $0.touches(table, in: byID) }) {
            // The same rows in the same order (one of them was updated): the same objects.
            observer.sendNext(current)
            return
        }
        do {
            try patch(to: newIDs, store: store)
            observer.sendNext(current)
        } catch {
            fail(error)
            store.stopLiveQuery(id)
        }
    }

    /// Makes the result the rows `newIDs`, in that order, from the current one: walking both
    /// lists side by side, a row at the same place in both keeps its object without a lookup;
    /// the others are looked up by id (reused if in the result, else loaded), and the result
    /// and `byID` are edited only where rows came or went. A few rows changed cost a few
    /// lookups and array moves, not one retain and lookup per row of the result. A row deleted
    /// and inserted again under the same id is a new object; a row deleted meanwhile (not
    /// loaded) is left out.
    /// Up to how many rows that came or went the result is edited in place (each edit moves
    /// the array's tail); beyond, it is made again in one pass.
    static var editedRows: Int { 64 }

    private func patch(to newIDs: [Int64], store: Store) throws(StoreError) {
        let old = ids
        // Walking both lists side by side: the old rows passed over (their places in `old`),
        // and the rows that must be looked up (their places in the new result).
        var passed: [Int] = []
        var lookups: [(place: Int, id: Int64)] = []
        var i = 0
        for (place, id) in newIDs.enumerated() {
            if i < old.count, old[i] == id, current[i].persistentID == id {
                i += 1
            } else if i + 1 < old.count, old[i + 1] == id, current[i + 1].persistentID == id {
                passed.append(i)   // went away, or moved
                i += 2
            } else {
                lookups.append((place, id))   // came, moved here, or made again under its id
            }
        }
        if i < old.count { passed.append(contentsOf: i..<old.count) }
        // Rows looked up: from the result if they only moved, else loaded.
        var found: [Int64: M] = [:]
        var missing: [Int64] = []
        for (_, id) in lookups {
            if let model = byID[id], model.persistentID == id { found[id] = model } else { missing.append(id) }
        }
        if !missing.isEmpty {
            for model in try store.models(M.self, ids: missing) {
                if let id = model.persistentID { found[id] = model }
            }
        }
        // The new result is the old one edited: the passed rows removed, the looked-up ones
        // inserted at their places (a row deleted meanwhile is left out, and the places after
        // it move up). Unchanged rows are moved in memory, never retained and released again:
        // with a few rows changed, this is a few moves of the array, whatever its size.
        var models: [M]
        var newIDsKept: [Int64]
        if passed.count + lookups.count <= Self.editedRows {
            // Taken, not shared: editing does not copy them (unless a subscriber holds them).
            models = current
            current = []
            newIDsKept = ids
            ids = []
            for index in passed.reversed() {
                models.remove(at: index)
                newIDsKept.remove(at: index)
            }
            var skipped = 0
            for (place, id) in lookups {
                guard let model = found[id] else {
                    skipped += 1
                    continue
                }
                models.insert(model, at: place - skipped)
                newIDsKept.insert(id, at: place - skipped)
            }
        } else {
            // Many rows changed: one pass over the new ids rather than an edit per row.
            models = []
            newIDsKept = []
            models.reserveCapacity(newIDs.count)
            newIDsKept.reserveCapacity(newIDs.count)
            for id in newIDs {
                guard let model = found[id] ?? byID[id].flatMap({ $0.persistentID == id ? $0 : nil }) else { continue }
                models.append(model)
                newIDsKept.append(id)
            }
        }
        // `byID` changes only for the rows that left and those that came (or were made again).
        if !passed.isEmpty {
            let arrived = Set(lookups.map(\.id))
            for index in passed where !arrived.contains(old[index]) { byID[old[index]] = nil }
        }
        for (id, model) in found { byID[id] = model }
        for (_, id) in lookups where found[id] == nil { byID[id] = nil }
        ids = newIDsKept
        current = models
    }

    func fail(_ error: StoreError) { observer.sendError(error) }

    func end() { observer.sendCompleted() }
}

