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

    /// The count of rows meeting `condition`, now and after every committed change to the
    /// table (here, by another connection or another process), when it changed.
    ///
    /// ```swift
    /// store.observeCount(Invoice.self, where: .isNil(\.paidOn)).sink(next: { badge = $0 })
    /// ```
    public func observeCount<M: PersistentModel>(
        _ type: M.Type, where condition: Condition<M> = .always(true)
    ) -> Signal<Int, StoreError> {
        let box = self.box
        let table = M._$schema.name
        return Signal<Int, StoreError> { observer in
            guard let store = box.store else {
                observer.sendCompleted()
                return nil
            }
            let send: @Sendable () -> Void = {
                guard let store = box.store else { return }
                do throws(StoreError) {
                    observer.sendNext(try store.count(type, where: condition))
                } catch {
                    observer.sendError(error)
                }
            }
            let changes = store.committedChanges.filter { $0.table == table }.subscribe(next: { _ in send() }, completed: {
                observer.sendCompleted()
            })
            send()
            return changes
        }
        .distinctUntilChanged()
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
        let index = try Self.propertyIndex(of: keyPath)
        let table = try table(for: M.self)
        guard let column = table.column(forProperty: index) else {
            throw .mapping(.unsupportedType(model: M._$schema.name, property: "\(keyPath)", type: "(not persisted)"))
        }
        return try aggregate(M.self, "\(function)(\(_quote(column.name)))", condition, as: Result.self)
    }

    /// One value computed by `expression` over the rows meeting `condition` (nil for NULL).
    private func aggregate<M: PersistentModel, V: SQLiteConvertible>(
        _ type: M.Type, _ expression: String, _ condition: Condition<M>, as _: V.Type
    ) throws(StoreError) -> V? {
        let table = try table(for: type)
        let (whereSQL, arguments) = try table.render(condition)
        let sql = "SELECT \(expression) FROM \(table.quotedName) WHERE \(whereSQL)"
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
