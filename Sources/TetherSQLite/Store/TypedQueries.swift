// Queries written with typed conditions (`Condition`), paged, and aggregates.

extension Store {
    /// The SQL the store writes (see `_SQLDialect`).
    static let dialect = _SQLiteDialect()

    /// The models whose rows meet `condition`, in the order of their ids, optionally paged.
    /// The database evaluates the condition: it sees what was committed, not changes this store
    /// has not written yet (they are written at the end of the turn, or by `flush()`).
    ///
    /// ```swift
    /// let ada = try store.fetch(Invoice.self, where: \.customer == "Ada" && \.quantity > 2)
    /// ```
    public func fetch<M: PersistentModel>(
        _ type: M.Type,
        where condition: Condition<M>,
        limit: Int? = nil,
        offset: Int? = nil
    ) throws(StoreError) -> [M] {
        let (sql, arguments) = try table(for: type).render(condition)
        return try _fetch(type, where: sql, arguments, orderBy: nil, descending: false, limit: limit, offset: offset)
    }

    /// The models whose rows meet `condition`, ordered by a stored property (then by id),
    /// optionally paged.
    ///
    /// ```swift
    /// let firstPage = try store.fetch(Invoice.self, where: .always(true), orderBy: \.number, limit: 50)
    /// ```
    public func fetch<M: PersistentModel, V>(
        _ type: M.Type,
        where condition: Condition<M>,
        orderBy: KeyPath<M, V>,
        descending: Bool = false,
        limit: Int? = nil,
        offset: Int? = nil
    ) throws(StoreError) -> [M] {
        let index = try Self.propertyIndex(of: orderBy)
        let (sql, arguments) = try table(for: type).render(condition)
        return try _fetch(type, where: sql, arguments, orderBy: index, descending: descending, limit: limit, offset: offset)
    }

    /// A live query over the rows that meet `condition` (see `observe(_:where:_:orderBy:descending:)`
    /// for when it sends), in the order of their ids, optionally paged: a page is the rows at
    /// those positions now, and follows the rows as they move.
    ///
    /// ```swift
    /// store.observe(Invoice.self, where: .isNil(\.paidOn)).sink(next: { unpaid = $0 })
    /// ```
    public func observe<M: PersistentModel>(
        _ type: M.Type,
        where condition: Condition<M>,
        limit: Int? = nil,
        offset: Int? = nil
    ) -> Signal<QueryResult<M>, StoreError> {
        do {
            let (sql, arguments) = try table(for: type).render(condition)
            return _observe(type, where: sql, arguments, orderBy: nil, descending: false, limit: limit, offset: offset)
        } catch {
            return Signal(error: error)
        }
    }

    /// A live query over the rows that meet `condition`, ordered by a stored property (then by
    /// id), optionally paged.
    ///
    /// ```swift
    /// let page = store.observe(Invoice.self, where: .always(true), orderBy: \.number, limit: 50, offset: 100)
    /// ```
    public func observe<M: PersistentModel, V>(
        _ type: M.Type,
        where condition: Condition<M>,
        orderBy: KeyPath<M, V>,
        descending: Bool = false,
        limit: Int? = nil,
        offset: Int? = nil
    ) -> Signal<QueryResult<M>, StoreError> {
        do {
            let index = try Self.propertyIndex(of: orderBy)
            let (sql, arguments) = try table(for: type).render(condition)
            return _observe(type, where: sql, arguments, orderBy: index, descending: descending, limit: limit, offset: offset)
        } catch {
            return Signal(error: error)
        }
    }

    // MARK: Aggregates

    /// How many rows meet `condition` (every row by default), as committed.
    ///
    /// ```swift
    /// let open = try store.count(Invoice.self, where: .isNil(\.paidOn))
    /// ```
    public func count<M: PersistentModel>(_ type: M.Type, where condition: Condition<M> = .always(true)) throws(StoreError) -> Int {
        try aggregate(type, "COUNT(*)", condition, as: Int.self) ?? 0
    }

    /// The sum of a stored property over the rows that meet `condition`, or nil when none does.
    ///
    /// ```swift
    /// let units = try store.sum(\Invoice.quantity, where: \.customer == "Ada")
    /// ```
    public func sum<M: PersistentModel, V: SQLiteConvertible & AdditiveArithmetic>(
        _ keyPath: KeyPath<M, V>, where condition: Condition<M> = .always(true)
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, "SUM", condition)
    }

    /// The smallest value of a stored property among the rows that meet `condition`, or nil.
    public func min<M: PersistentModel, V: SQLiteConvertible & Comparable>(
        _ keyPath: KeyPath<M, V>, where condition: Condition<M> = .always(true)
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, "MIN", condition)
    }

    /// The largest value of a stored property among the rows that meet `condition`, or nil.
    ///
    /// ```swift
    /// let last = try store.max(\Invoice.number)
    /// ```
    public func max<M: PersistentModel, V: SQLiteConvertible & Comparable>(
        _ keyPath: KeyPath<M, V>, where condition: Condition<M> = .always(true)
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, "MAX", condition)
    }

    /// The sum of an optional stored property over the rows that meet `condition` (nil values
    /// are left out), or nil when no row has a value.
    public func sum<M: PersistentModel, V: SQLiteConvertible & AdditiveArithmetic>(
        _ keyPath: KeyPath<M, V?>, where condition: Condition<M> = .always(true)
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, "SUM", condition, as: V.self)
    }

    /// The smallest value of an optional stored property (nil values are left out), or nil.
    public func min<M: PersistentModel, V: SQLiteConvertible & Comparable>(
        _ keyPath: KeyPath<M, V?>, where condition: Condition<M> = .always(true)
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, "MIN", condition, as: V.self)
    }

    /// The largest value of an optional stored property (nil values are left out), or nil.
    public func max<M: PersistentModel, V: SQLiteConvertible & Comparable>(
        _ keyPath: KeyPath<M, V?>, where condition: Condition<M> = .always(true)
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, "MAX", condition, as: V.self)
    }

    /// Where `model` stands among the rows that meet `condition`, ordered by a stored property
    /// (then by id), as committed: how many of those rows come before it. Nil when its row does
    /// not meet the condition, or it has none (never inserted, or deleted).
    ///
    /// With a live page (`observe(_:where:orderBy:descending:limit:offset:)`) it tells which
    /// page shows a model, and where a list's selection stands:
    ///
    /// ```swift
    /// let index = try store.position(of: invoice, orderBy: \.number)     // 41: the 42nd
    /// let page = store.observe(Invoice.self, where: .always(true), orderBy: \.number, limit: 20, offset: index! / 20 * 20)
    /// ```
    ///
    /// One statement, so one state of the database: the rows before it are counted through the
    /// order column's index when it has one (the work grows with the count, not the table).
    public func position<M: PersistentModel, V>(
        of model: M, where condition: Condition<M> = .always(true), orderBy: KeyPath<M, V>, descending: Bool = false
    ) throws(StoreError) -> Int? {
        let index = try Self.propertyIndex(of: orderBy)
        let table = try table(for: M.self)
        guard let column = table.column(forProperty: index) else {
            // As a query ordered by it says (`querySQL`): the property, by name.
            throw _notStored(orderBy, of: M.self, use: "order by")
        }
        return try position(of: model, condition, table: table, key: Store.dialect.quote(column.name), descending: descending)
    }

    /// Where `model` stands among the rows that meet `condition`, in the order of their ids
    /// (see `position(of:where:orderBy:descending:)`).
    ///
    /// ```swift
    /// let index = try store.position(of: invoice, where: .isNil(\.paidOn))
    /// ```
    public func position<M: PersistentModel>(of model: M, where condition: Condition<M> = .always(true)) throws(StoreError) -> Int? {
        try position(of: model, condition, table: try table(for: M.self), key: nil, descending: false)
    }

    private func position<M: PersistentModel>(
        of model: M, _ condition: Condition<M>, table: _Table, key: String?, descending: Bool
    ) throws(StoreError) -> Int? {
        try checkOpen()
        guard let id = model.persistentID else { return nil }
        let (whereSQL, conditionArguments) = try table.render(condition)
        var arguments: [SQLiteValue] = []
        /// `count(*)` of the rows meeting the condition and `test` (over `o`, the model's row).
        func count(_ test: String) -> String {
            arguments += conditionArguments
            return "(SELECT count(*) FROM \(table.quotedName) WHERE (\(whereSQL)) AND \(test))"
        }
        // The order `_SQLDialect.select` writes: the key (NULLs first ascending, last
        // descending), then id ascending. Each count is one range of an index on the key.
        let before: String
        if let key {
            let sameKeyBefore = count("\(key) = o.k AND id < o.i")
            if descending {
                let nullKey = count("\(key) IS NOT NULL") + " + " + count("\(key) IS NULL AND id < o.i")
                before = "CASE WHEN o.k IS NULL THEN \(nullKey) ELSE \(count("\(key) > o.k")) + \(sameKeyBefore) END"
            } else {
                let nullKey = count("\(key) IS NULL AND id < o.i")
                before = "CASE WHEN o.k IS NULL THEN \(nullKey) ELSE \(count("\(key) IS NULL")) + \(count("\(key) < o.k")) + \(sameKeyBefore) END"
            }
        } else {
            before = count("id < o.i")
        }
        let sql = "SELECT \(before) FROM (SELECT \(key ?? "id") AS k, id AS i FROM \(table.quotedName) WHERE id = ? AND (\(whereSQL))) AS o"
        arguments += [.integer(id)] + conditionArguments
        let bound = arguments
        do {
            return try writer.sync { connection in
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                try statement.bind(bound)
                return try statement.step() ? try statement.column(0, as: Int.self) : nil
            }
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// `function(column)` of a property over the rows meeting `condition`.
    private func aggregate<M: PersistentModel, V: SQLiteConvertible>(
        _ keyPath: KeyPath<M, V>, _ function: String, _ condition: Condition<M>
    ) throws(StoreError) -> V? {
        try aggregate(keyPath, function, condition, as: V.self)
    }

    /// `function(column)` of a property over the rows meeting `condition`, read as a `Result`.
    private func aggregate<M: PersistentModel, V, Result: SQLiteConvertible>(
        _ keyPath: KeyPath<M, V>, _ function: String, _ condition: Condition<M>, as _: Result.Type
    ) throws(StoreError) -> Result? {
        let use = function == "count" ? "count" : "aggregate (\(function.lowercased()))"
        let index = try Self.propertyIndex(of: keyPath, use: use)
        let table = try table(for: M.self)
        guard let column = table.column(forProperty: index) else {
            throw _notStored(keyPath, of: M.self, use: use)
        }
        return try aggregate(M.self, "\(function)(\(_quote(column.name)))", condition, as: Result.self)
    }

    /// ` WHERE condition`, or nothing for a condition every row meets: SQLite counts every row
    /// of a table from its smallest index's pages (a few milliseconds for a million rows) only
    /// when the statement has no WHERE clause at all; `WHERE 1` reads every entry (five times
    /// as long).
    static func whereClause(_ condition: String) -> String {
        condition == "1" ? "" : " WHERE \(condition)"
    }

    /// One value computed by `expression` over the rows meeting `condition` (nil for NULL).
    private func aggregate<M: PersistentModel, V: SQLiteConvertible>(
        _ type: M.Type, _ expression: String, _ condition: Condition<M>, as _: V.Type
    ) throws(StoreError) -> V? {
        let table = try table(for: type)
        let (whereSQL, arguments) = try table.render(condition)
        let sql = "SELECT \(expression) FROM \(table.quotedName)\(Self.whereClause(whereSQL))"
        do {
            // The value crosses from the writer queue as an SQLiteValue (Sendable), then becomes a V.
            let value = try writer.sync { connection in
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                try statement.bind(arguments)
                return try statement.step() ? try statement.value(at: 0) : SQLiteValue.null
            }
            if value == .null { return nil }
            return try V(sqliteValue: value)
        } catch {
            throw StoreError.wrap(error)
        }
    }
}
