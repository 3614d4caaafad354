import Logging

// To-one relationships: a property `var customer: Customer?` of a persistent model is stored as
// the related row's id (`customer_id INTEGER REFERENCES Customer(id) ON DELETE SET NULL`, with
// an index) and read back as the live, identity-mapped model of that row.

extension Store {
    // MARK: Setting up

    /// The triggers that hold every program to the rule of `table`'s to-one relationships that
    /// nullify: deleting the related row sets the column to NULL. The column's `ON DELETE SET
    /// NULL` does it only for connections with foreign keys on, which the sqlite3 shell and
    /// many programs do not have; without the trigger, the row would go on naming the deleted
    /// id, and the row that takes that id next. (Cascade and deny are the to-many
    /// relationship's triggers, `_ToMany.triggerSQL`.)
    func setUpToOne(_ table: _Table) throws {
        var triggers: [(name: String, sql: String)] = []
        for position in table.relationPositions {
            let column = table.definition.columns[position]
            guard let target = column.referencedTable, column.onDelete == .nullify else { continue }
            let name = "tether_\(table.name)_\(column.name)_nullify"
            let key = _quote(column.name)
            triggers.append((name, "CREATE TRIGGER \(_quote(name)) AFTER DELETE ON \(_quote(target)) "
                + "BEGIN UPDATE \(_quote(table.name)) SET \(key) = NULL WHERE \(key) = OLD.id; END"))
        }
        try install(triggers: triggers)
    }

    /// Creates the triggers that are missing or whose SQL differs (a rule changed), in one
    /// transaction; with all of them as they should be, nothing is written (no write lock: a
    /// store opens while another program holds it, or on a read-only file).
    ///
    /// A store that may not write (opened read-only, or on a file it cannot write) makes none:
    /// it reads as usual, and the next store that may write makes them (a warning is logged).
    func install(triggers: [(name: String, sql: String)]) throws {
        guard !triggers.isEmpty, !file.readOnlyOnPurpose else { return }
        do {
            try makeTriggers(triggers)
        } catch where StoreError.wrap(error).sqliteError?.isReadOnly == true {
            TetherLogger.logger(TetherLogger.storeLabel).warning(
                "the file cannot be written: the delete rules' triggers \(triggers.map(\.name)) are not made; a store that can write makes them")
        }
    }

    private func makeTriggers(_ triggers: [(name: String, sql: String)]) throws {
        let file = self.file
        try writer.sync { connection in
            var missing: [(name: String, sql: String)] = []
            for trigger in triggers {
                let existing = try connection.rows(
                    "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", [.text(trigger.name)]
                ).first?.values.first
                if existing != .text(trigger.sql) { missing.append(trigger) }
            }
            guard !missing.isEmpty else { return }
            try file.write(connection) {
                try connection.inTransaction {
                    for (name, sql) in missing {
                        try connection.execute("DROP TRIGGER IF EXISTS \(_quote(name))")
                        try connection.execute(sql)
                    }
                }
            }
        }
    }

    // MARK: Loading

    /// Sets the to-one relationships of models just fetched: the related rows are loaded with one
    /// query per relationship and 500 ids (those not in memory), whatever the number of models,
    /// so a list of invoices costs one more query for their customers, not one per invoice.
    /// The sets are not written back.
    func resolve(_ pending: [(model: AnyObject, position: Int, id: Int64)], table: _Table) throws(StoreError) {
        var byPosition: [Int: [(model: AnyObject, id: Int64)]] = [:]
        for entry in pending { byPosition[entry.position, default: []].append((entry.model, entry.id)) }
        for (position, entries) in byPosition {
            guard let relation = table.columns[position].relation else { continue }
            let related = try liveModels(relation.target, ids: Array(Set(entries.map(\.id))))
            let propertyIndex = table.definition.columns[position].propertyIndex
            for (model, id) in entries {
                setQuietly(model, propertyIndex) { relation.set(model, related[id]) }
            }
        }
    }

    /// The live models of `ids`, by id, for a model type known at run time.
    func liveModels(_ type: any PersistentModel.Type, ids: [Int64]) throws(StoreError) -> [Int64: AnyObject] {
        func load<M: PersistentModel>(_ type: M.Type) throws(StoreError) -> [Int64: AnyObject] {
            var byID: [Int64: AnyObject] = [:]
            for model in try models(type, ids: ids) {
                if let id = model.persistentID { byID[id] = model }
            }
            return byID
        }
        return try load(type)
    }

    /// The live model of row `id` of `type`'s table, loaded if it is not in memory; nil if
    /// there is no such row (deleted, or never there: a dangling id another program wrote).
    func related(_ type: any PersistentModel.Type, id: Int64) throws(SQLiteError) -> AnyObject? {
        do {
            return try liveModels(type, ids: [id])[id]
        } catch {
            if case .sqlite(let error) = error { throw error }
            throw SQLiteError(code: .error, message: "\(error)")
        }
    }

    /// After this store deleted row `id` of `table`: the live models among `changed` whose
    /// to-one relationships pointed at it now point at nothing, as their rows do.
    func nullifyRelationships(to table: String, id: Int64, in changed: [(String, Int64, StoreChange.Kind)]) {
        for (name, row, kind) in changed where kind == .update && !(name == table && row == id) {
            guard let referring = state.tablesByName[name],
                  let model = state.identity[_RowKey(table: name, id: row)] else { continue }
            for position in referring.relationPositions {
                guard let relation = referring.columns[position].relation, relation.target._tableName == table,
                      (try? referring.columns[position].read(model)) == .integer(id) else { continue }
                setQuietly(model, referring.definition.columns[position].propertyIndex) { relation.set(model, nil) }
                placeEverywhere(model, referring)
            }
        }
    }

    /// Runs `body`, which sets property `index` of `model` from the database: the change is not
    /// written back.
    func setQuietly(_ model: AnyObject, _ index: Int, _ body: () -> Void) {
        let suppressed = _Suppressed(object: ObjectIdentifier(model), column: index)
        state.suppressed.insert(suppressed)
        body()
        // In a quiet transaction the change is seen at its end, which clears the marks.
        if state.quietTransactions == 0 { state.suppressed.remove(suppressed) }
    }

    /// Runs `body`, which sets models from the database, in one model transaction: observers
    /// and computed properties see all of it at once, and nothing of it is written back.
    func quietTransaction(_ body: () -> Void) {
        state.quietTransactions += 1
        transaction(body)
        state.quietTransactions -= 1
        if state.quietTransactions == 0 { state.suppressed = [] }
    }
}
