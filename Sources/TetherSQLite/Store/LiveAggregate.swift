import Synchronization

// Live aggregates: the sum, the smallest or the largest value of a column over the rows that
// meet a condition, kept from the changed rows a look at the change log finds, not by reading
// every row again.

extension Store {
    /// The sum of a stored property over the rows that meet `condition` (nil when none does),
    /// now and after every committed change that alters it, made here, by another connection
    /// or by another process (as `sum(_:where:)` would read it then).
    ///
    /// It is kept from the changed rows: a look at the change log reads the rows it names, and
    /// takes out what each contributed before and adds what it contributes now, so a change
    /// costs the changed rows, not the table (the values each row contributes are kept, read
    /// once when the signal is subscribed). A look that changed another table the condition
    /// reads, more than 4,096 rows, or that follows a gap in the log sums every row again, and
    /// so does every 1,024th look, so that a sum of REAL values does not drift from what
    /// summing the rows gives.
    ///
    /// ```swift
    /// store.observeSum(\Invoice.quantity, where: \.customer == "Ada").sink(next: { units = $0 ?? 0 })
    /// ```
    ///
    /// Subscribe on the store's thread; the values arrive there. It fails if the value cannot
    /// be read, and completes when the store is closed.
    public func observeSum<M: PersistentModel, V: SQLiteConvertible & AdditiveArithmetic & SendableMetatype>(
        _ keyPath: KeyPath<M, V>, where condition: Condition<M> = .always(true)
    ) -> Signal<V?, StoreError> {
        observeAggregate(keyPath, .sum, condition, as: V.self)
    }

    /// The sum of an optional stored property (nil values are left out), live: see
    /// `observeSum(_:where:)`.
    public func observeSum<M: PersistentModel, V: SQLiteConvertible & AdditiveArithmetic & SendableMetatype>(
        _ keyPath: KeyPath<M, V?>, where condition: Condition<M> = .always(true)
    ) -> Signal<V?, StoreError> {
        observeAggregate(keyPath, .sum, condition, as: V.self)
    }

    /// The smallest value of a stored property among the rows that meet `condition` (nil when
    /// none does), now and after every committed change that alters it.
    ///
    /// It is kept from the changed rows: the row that holds the smallest value is known, and a
    /// look compares it with the smallest of the changed rows (in SQL, so as the column's
    /// collation orders). Only when that row itself changed or went is the smallest looked up
    /// again, through the index on the column, which the store makes when none serves it (see
    /// `observe(_:where:orderBy:descending:limit:offset:)`).
    ///
    /// ```swift
    /// store.observeMin(\Invoice.number, where: .isNil(\.paidOn)).sink(next: { oldest = $0 })
    /// ```
    public func observeMin<M: PersistentModel, V: SQLiteConvertible & Comparable & SendableMetatype>(
        _ keyPath: KeyPath<M, V>, where condition: Condition<M> = .always(true)
    ) -> Signal<V?, StoreError> {
        observeAggregate(keyPath, .min, condition, as: V.self)
    }

    /// The smallest value of an optional stored property (nil values are left out), live.
    public func observeMin<M: PersistentModel, V: SQLiteConvertible & Comparable & SendableMetatype>(
        _ keyPath: KeyPath<M, V?>, where condition: Condition<M> = .always(true)
    ) -> Signal<V?, StoreError> {
        observeAggregate(keyPath, .min, condition, as: V.self)
    }

    /// The largest value of a stored property among the rows that meet `condition` (nil when
    /// none does), live: see `observeMin(_:where:)`.
    ///
    /// ```swift
    /// store.observeMax(\Invoice.number).sink(next: { next = ($0 ?? 0) + 1 })
    /// ```
    public func observeMax<M: PersistentModel, V: SQLiteConvertible & Comparable & SendableMetatype>(
        _ keyPath: KeyPath<M, V>, where condition: Condition<M> = .always(true)
    ) -> Signal<V?, StoreError> {
        observeAggregate(keyPath, .max, condition, as: V.self)
    }

    /// The largest value of an optional stored property (nil values are left out), live.
    public func observeMax<M: PersistentModel, V: SQLiteConvertible & Comparable & SendableMetatype>(
        _ keyPath: KeyPath<M, V?>, where condition: Condition<M> = .always(true)
    ) -> Signal<V?, StoreError> {
        observeAggregate(keyPath, .max, condition, as: V.self)
    }

    private func observeAggregate<M: PersistentModel, Path, V: SQLiteConvertible & SendableMetatype>(
        _ keyPath: KeyPath<M, Path>, _ function: _IncrementalAggregate.Function, _ condition: Condition<M>, as _: V.Type
    ) -> Signal<V?, StoreError> {
        // The property, by index (a key path is not Sendable), or the error that names it.
        let use = "aggregate (\(function))"
        let index: Int
        do {
            index = try Self.propertyIndex(of: keyPath, use: use)
        } catch {
            return Signal(error: error)
        }
        let notStored = _notStored(keyPath, of: M.self, use: use)
        let box = self.box
        return Signal<V?, StoreError> { observer in
            guard let store = box.store else {
                observer.sendCompleted()
                return nil
            }
            return store.startLiveAggregate(M.self, index, function, condition, notStored: notStored, observer: observer)
        }
    }

    private func startLiveAggregate<M: PersistentModel, V: SQLiteConvertible>(
        _: M.Type, _ index: Int, _ function: _IncrementalAggregate.Function, _ condition: Condition<M>,
        notStored: StoreError, observer: Observer<V?, StoreError>
    ) -> (any Disposable)? {
        let id: Int
        let first: (value: SQLiteValue, stamp: UInt64)
        do {
            try checkOpen()
            let table = try table(for: M.self)
            guard let column = table.column(forProperty: index) else { throw notStored }
            if function != .sum { ensureOrderIndex(table, column: column.name) }
            let (whereSQL, arguments) = try table.render(condition)
            let aggregate = _IncrementalAggregate(
                function: function, table: table.name, quotedTable: table.quotedName, column: Store.dialect.quote(column.name),
                condition: whereSQL == "1" ? nil : whereSQL, arguments: arguments)
            let inbox = self.inbox
            (id, first) = try registerLiveQuery(idSQL: aggregate.rowsSQL, arguments: arguments, aggregate: aggregate) {
                try writer.sync { connection in
                    let stamp = inbox.stamp().stamp
                    return (try aggregate.start(connection), stamp)
                }
            }
        } catch {
            observer.sendError(StoreError.wrap(error))
            return nil
        }
        let live = _LiveAggregate<V>(observer: observer, value: first.value, stamp: first.stamp)
        do {
            observer.sendNext(try live.decoded(first.value))
        } catch {
            tracker.removeQuery(id)
            observer.sendError(StoreError.wrap(error))
            return nil
        }
        return keepLiveQuery(live, id: id)
    }
}

/// A live aggregate, as the store keeps it (on its thread): the value its look computed.
final class _LiveAggregate<V: SQLiteConvertible>: _AnyLiveQuery {
    let observer: Observer<V?, StoreError>
    /// The first value's read: looks stamped before it saw an older state, already counted.
    let stamp: UInt64
    private var value: SQLiteValue

    init(observer: Observer<V?, StoreError>, value: SQLiteValue, stamp: UInt64) {
        self.observer = observer
        self.value = value
        self.stamp = stamp
    }

    func decoded(_ value: SQLiteValue) throws(SQLiteError) -> V? {
        value == .null ? nil : try V(sqliteValue: value)
    }

    func update(_ change: _QueryChange, entries: [_LogEntry], resync: Bool, stamp: UInt64, store: Store) {
        guard stamp > self.stamp, case .value(let new) = change, new != value else { return }
        value = new
        do {
            observer.sendNext(try decoded(new))
        } catch {
            observer.sendError(StoreError.wrap(error))
        }
    }

    func fail(_ error: StoreError) { observer.sendError(error) }

    func end() { observer.sendCompleted() }
}

/// How a live aggregate follows the changed rows, on the writer queue (where every look runs,
/// one at a time, and where `start` runs when it is registered): for a sum, what each row that
/// meets the condition contributes, and their total; for a smallest or largest value, the row
/// that holds it.
final class _IncrementalAggregate: Sendable {
    enum Function: Sendable, CustomStringConvertible {
        case sum, min, max
        var description: String {
            switch self {
            case .sum: "sum"
            case .min: "min"
            case .max: "max"
            }
        }
    }

    let function: Function
    /// The table, as the change log names it, and quoted.
    let table: String
    let quotedTable: String
    /// The quoted column.
    let column: String
    /// The rendered condition, nil for every row; its bound values.
    let condition: String?
    let arguments: [SQLiteValue]

    /// Looks that changed more rows than this are summed again from every row.
    static var maximumChangedRows: Int { 4_096 }
    /// Every this many looks kept from the changed rows, a sum is made again from every row.
    static var looksBetweenFullSums: Int { 1_024 }

    private struct State {
        /// Sum: the value each row that meets the condition contributes (non-NULL values only).
        var contributions: [Int64: SQLiteValue] = [:]
        var sum = _Sum()
        /// Min and max: the row that holds the value, and the value.
        var extreme: (id: Int64, value: SQLiteValue)?
        /// Looks since the value was computed from every row.
        var looks = 0
        /// Whether the condition reads its table only as the row it tests (else every look
        /// computes the value from every row).
        var followsChangedRows = true
    }

    private let state = Mutex(State())

    init(function: Function, table: String, quotedTable: String, column: String, condition: String?, arguments: [SQLiteValue]) {
        self.function = function
        self.table = table
        self.quotedTable = quotedTable
        self.column = column
        self.condition = condition
        self.arguments = arguments
    }

    /// `SELECT id, column FROM table WHERE condition`: the rows it reads (and which tables).
    var rowsSQL: String {
        "SELECT id, \(column) FROM \(quotedTable) WHERE \(filter)\(column) IS NOT NULL"
    }

    private var filter: String { condition.map { "(\($0)) AND " } ?? "" }

    private var order: String { function == .max ? "\(column) DESC, id" : "\(column), id" }

    /// The value from every row (when registered, and when a look cannot follow the changed
    /// rows), remembering what it needs to follow them.
    func start(_ connection: Connection) throws(SQLiteError) -> SQLiteValue {
        let follows = try _IncrementalQuery(
            table: table, quotedTable: quotedTable, condition: condition, arguments: arguments, column: nil, descending: false
        ).readsItsTableOnlyAsTheOuterRow(connection)
        state.withLock { $0.followsChangedRows = follows }
        return try full(connection)
    }

    private func full(_ connection: Connection) throws(SQLiteError) -> SQLiteValue {
        switch function {
        case .sum:
            let select = try connection.cachedStatement(rowsSQL)
            defer { select.reset() }
            try select.bind(arguments)
            var contributions: [Int64: SQLiteValue] = [:]
            var sum = _Sum()
            while try select.step() {
                let value = try select.value(at: 1)
                contributions[try select.column(0, as: Int64.self)] = value
                sum.add(value)
            }
            state.withLock {
                $0.contributions = contributions
                $0.sum = sum
                $0.looks = 0
            }
            if sum.needsSQL {
                // Text or blob values, or an integer overflow: as SQL sums them (or its error).
                return try scalar("SELECT sum(\(column)) FROM \(quotedTable)\(condition.map { " WHERE \($0)" } ?? "")", arguments, connection)
            }
            return sum.value
        case .min, .max:
            let extreme = try first("\(rowsSQL) ORDER BY \(order) LIMIT 1", arguments, connection)
            state.withLock {
                $0.extreme = extreme
                $0.looks = 0
            }
            return extreme?.value ?? .null
        }
    }

    /// The value after a look that found `entries` (which changed `changedTables`; the
    /// aggregate reads `tables`): from the changed rows when it can, else from every row.
    func follow(
        entries: [_LogEntry], changedTables: Set<String>, tables: Set<String>, resync: Bool, _ connection: Connection
    ) throws(SQLiteError) -> SQLiteValue {
        let (follows, looks) = state.withLock { state in
            state.looks += 1
            return (state.followsChangedRows, state.looks)
        }
        guard follows, !resync, changedTables.intersection(tables).isSubset(of: [table]),
              function != .sum || looks < Self.looksBetweenFullSums,
              let changed = changedRows(in: entries)
        else { return try full(connection) }
        guard !changed.isEmpty else { return state.withLock { function == .sum ? $0.sum.value : $0.extreme?.value ?? .null } }
        switch function {
        case .sum: return try followSum(changed, connection)
        case .min, .max: return try followExtreme(changed, connection)
        }
    }

    /// The rows of the aggregate's table that `entries` changed, or nil for more than
    /// `maximumChangedRows`.
    private func changedRows(in entries: [_LogEntry]) -> [Int64]? {
        var changed: [Int64] = []
        var seen: Set<Int64> = []
        for entry in entries where entry.table == table {
            guard entry.last - entry.first < Int64(Self.maximumChangedRows) else { return nil }
            for id in entry.rowIDs where seen.insert(id).inserted {
                changed.append(id)
                if changed.count > Self.maximumChangedRows { return nil }
            }
        }
        return changed
    }

    /// `rowsSQL` for the rows `ids` (in lists of at most 256, padded to a power of two so that
    /// a few statements serve every size): each row that meets the condition, with its value.
    private func rows(_ ids: [Int64], ordered: Bool, _ connection: Connection) throws(SQLiteError) -> [(id: Int64, value: SQLiteValue)] {
        var found: [(id: Int64, value: SQLiteValue)] = []
        var start = 0
        while start < ids.count {
            let part = ids[start..<Swift.min(start + 256, ids.count)]
            var size = 1
            while size < part.count { size *= 2 }
            let list = Array(repeating: "?", count: size).joined(separator: ", ")
            let sql = "\(rowsSQL) AND id IN (\(list))" + (ordered ? " ORDER BY \(order) LIMIT 1" : "")
            let select = try connection.cachedStatement(sql)
            try select.bind(arguments + (0..<size).map { .integer(part[part.startIndex + Swift.min($0, part.count - 1)]) })
            while try select.step() { found.append((try select.column(0, as: Int64.self), try select.value(at: 1))) }
            select.reset()
            start += 256
        }
        return found
    }

    private func followSum(_ changed: [Int64], _ connection: Connection) throws(SQLiteError) -> SQLiteValue {
        let now = try rows(changed, ordered: false, connection)
        let needsSQL = state.withLock { state -> Bool in
            for id in changed {
                if let old = state.contributions.removeValue(forKey: id) { state.sum.remove(old) }
            }
            for (id, value) in now {
                state.contributions[id] = value
                state.sum.add(value)
            }
            return state.sum.needsSQL
        }
        if needsSQL { return try full(connection) }
        return state.withLock { $0.sum.value }
    }

    private func followExtreme(_ changed: [Int64], _ connection: Connection) throws(SQLiteError) -> SQLiteValue {
        let extreme = state.withLock { $0.extreme }
        // The row that held it changed or went: looked up again (through the column's index).
        if let extreme, changed.contains(extreme.id) { return try full(connection) }
        // Else the extreme of the changed rows (in lists of 256: the extreme of their extremes)
        // against it, compared by SQL, which orders as the column's collation does.
        var candidates = try rows(changed, ordered: true, connection).map(\.id)
        if let extreme { candidates.append(extreme.id) }
        guard !candidates.isEmpty else { return .null }
        let best = candidates.count == 1 && extreme != nil
            ? extreme
            : try rows(candidates, ordered: true, connection).first
        state.withLock { $0.extreme = best }
        return best?.value ?? .null
    }

    private func first(_ sql: String, _ values: [SQLiteValue], _ connection: Connection) throws(SQLiteError) -> (id: Int64, value: SQLiteValue)? {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? (try statement.column(0, as: Int64.self), try statement.value(at: 1)) : nil
    }

    private func scalar(_ sql: String, _ values: [SQLiteValue], _ connection: Connection) throws(SQLiteError) -> SQLiteValue {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? try statement.value(at: 0) : .null
    }
}

/// A sum kept as SQLite's `sum()` computes it: integers exactly while no REAL value takes part
/// (and no integer overflows), else as a REAL; NULL when no value takes part.
struct _Sum {
    var integer: Int64 = 0
    var real: Double = 0
    /// The values taking part, and how many of them are REAL.
    var values = 0
    var reals = 0
    /// An integer overflow, or a text or blob value: only SQL says what the sum is then.
    var needsSQL = false

    mutating func add(_ value: SQLiteValue) {
        switch value {
        case .integer(let integer):
            let (sum, overflow) = self.integer.addingReportingOverflow(integer)
            self.integer = sum
            if overflow { needsSQL = true }
            real += Double(integer)
            values += 1
        case .real(let real):
            self.real += real
            values += 1
            reals += 1
        case .null:
            break
        case .text, .blob:
            needsSQL = true
        }
    }

    mutating func remove(_ value: SQLiteValue) {
        switch value {
        case .integer(let integer):
            let (sum, overflow) = self.integer.subtractingReportingOverflow(integer)
            self.integer = sum
            if overflow { needsSQL = true }
            real -= Double(integer)
            values -= 1
        case .real(let real):
            self.real -= real
            values -= 1
            reals -= 1
        case .null:
            break
        case .text, .blob:
            needsSQL = true
        }
    }

    /// The sum, as `sum()` returns it.
    var value: SQLiteValue {
        if values == 0 { return .null }
        return reals == 0 ? .integer(integer) : .real(real)
    }
}
