// How a live query's result follows a few changed rows without running its query again.

/// How a live query's result changed, as one look at the change log found it.
enum _QueryChange: Sendable {
    /// The whole result, by id, in order (the query was run again).
    case ids([Int64])
    /// Only the rows `changed` may have changed: each leaves the result, and those of them in it
    /// now come back, in result order, each right after the row named (first when nil).
    case rows(changed: [Int64], arrivals: [(id: Int64, after: Int64?)])
    /// A live aggregate's new value (see `_IncrementalAggregate`).
    case value(SQLiteValue)
}

/// A live query whose new result the database can give from the changed rows alone: for each
/// changed row, whether it meets the condition now, and the row it now follows in the order,
/// found through the order column's index (a few steps, not a scan). The result's other rows
/// are where they were, since nothing they depend on changed.
///
/// That holds when the look changed no table the query reads other than its own and the
/// condition reads its own table only as the outer row (a subquery over the same table could
/// let one row's change move others in or out). The order is the one `_SQLDialect.select`
/// writes: the column (NULLs first ascending, last descending), then id ascending.
struct _IncrementalQuery: Sendable {
    /// The query's table, as the change log names it.
    let table: String
    let quotedTable: String
    let condition: String?
    let arguments: [SQLiteValue]
    /// The quoted order column; nil when ordered by id.
    let column: String?
    let descending: Bool

    /// Results smaller than this many times the changed rows are made again by their query
    /// (a look-up per changed row costs a few of the database's steps through an index; the
    /// query costs one step per row of the result).
    static var rowsPerChangedRow: Int { 256 }
    /// At most this many changed rows are followed one by one.
    static var maximumChangedRows: Int { 256 }

    /// The query's changed rows, if the result can be kept from them alone: the look
    /// (`entries`, which changed `changedTables`) changed no other table the query reads
    /// (`tables`), and at most `maximumChangedRows` and a 256th of `resultSize` rows.
    func changedRows(in entries: [_LogEntry], changedTables: Set<String>, tables: Set<String>, resultSize: Int) -> [Int64]? {
        guard changedTables.intersection(tables).isSubset(of: [table]) else { return nil }
        let limit = min(Self.maximumChangedRows, resultSize / Self.rowsPerChangedRow)
        var changed: [Int64] = []
        var seen: Set<Int64> = []
        for entry in entries where entry.table == table {
            guard entry.last - entry.first < Int64(limit) else { return nil }
            for id in entry.rowIDs where seen.insert(id).inserted {
                changed.append(id)
                if changed.count > limit { return nil }
            }
        }
        return changed
    }

    /// Of the rows `changed`, those that meet the condition now, in result order, each with
    /// the row it follows (in one read transaction, so that all of it is one state).
    func arrivals(among changed: [Int64], _ connection: Connection) throws(SQLiteError) -> [(id: Int64, after: Int64?)] {
        guard !changed.isEmpty else { return [] }
        let key = column ?? "id"
        // The list of ids is padded to a power of two, so that a few statements serve every size.
        var size = 1
        while size < changed.count { size *= 2 }
        let list = Array(repeating: "?", count: size).joined(separator: ", ")
        let members = try connection.cachedStatement(
            "SELECT id, \(key) FROM \(quotedTable) WHERE \(filter)id IN (\(list)) ORDER BY \(key)\(descending ? " DESC" : ""), id")
        try members.bind(arguments + (0..<size).map { .integer(changed[min($0, changed.count - 1)]) })
        var found: [(id: Int64, key: SQLiteValue)] = []
        while try members.step() { found.append((try members.column(0, as: Int64.self), try members.value(at: 1))) }
        members.reset()
        var arrivals: [(id: Int64, after: Int64?)] = []
        arrivals.reserveCapacity(found.count)
        for (id, value) in found { arrivals.append((id, try previous(id: id, key: value, connection))) }
        return arrivals
    }

    /// Whether the condition reads the query's table only through the row it tests: it is
    /// prepared over a stand-in row with the table's columns, and must then read no more of
    /// the table. (A condition that cannot be prepared so is taken as reading it.)
    func readsItsTableOnlyAsTheOuterRow(_ connection: Connection) throws(SQLiteError) -> Bool {
        guard let condition else { return true }
        let columns = try connection.columns(in: table).map { "NULL AS \(_quote($0.name))" }
        guard !columns.isEmpty else { return false }
        let standIn = "SELECT 1 FROM (SELECT \(columns.joined(separator: ", "))) AS \(quotedTable) WHERE \(condition)"
        do {
            return try !connection.tablesRead(by: standIn).contains(table)
        } catch {
            return false
        }
    }

    /// `WHERE`'s start: the condition and AND, or nothing.
    private var filter: String { condition.map { "(\($0)) AND " } ?? "" }

    /// The row that comes right before row `id`, whose order column holds `key`, among those
    /// that meet the condition (nil: it comes first). Each step is one range of the index.
    private func previous(id: Int64, key: SQLiteValue, _ connection: Connection) throws(SQLiteError) -> Int64? {
        let select = "SELECT id FROM \(quotedTable) WHERE \(filter)"
        guard let column else {
            return try first(select + "id < ? ORDER BY id DESC LIMIT 1", [.integer(id)], connection)
        }
        // Rows with the same key and a smaller id come right before it.
        let same = key == .null ? "\(column) IS NULL" : "\(column) = ?"
        let sameKey: [SQLiteValue] = key == .null ? [] : [key]
        if let row = try first(select + "\(same) AND id < ? ORDER BY id DESC LIMIT 1", sameKey + [.integer(id)], connection) {
            return row
        }
        // Then the nearest key before it: the largest smaller one ascending (NULLs come
        // first), the smallest larger one descending (NULLs come last); the largest id of it.
        switch (descending, key == .null) {
        case (false, true):
            return nil
        case (false, false):
            if let row = try first(select + "\(column) < ? ORDER BY \(column) DESC, id DESC LIMIT 1", [key], connection) {
                return row
            }
            return try first(select + "\(column) IS NULL ORDER BY id DESC LIMIT 1", [], connection)
        case (true, false):
            return try first(select + "\(column) > ? ORDER BY \(column), id DESC LIMIT 1", [key], connection)
        case (true, true):
            return try first(select + "\(column) IS NOT NULL ORDER BY \(column), id DESC LIMIT 1", [], connection)
        }
    }

    private func first(_ sql: String, _ values: [SQLiteValue], _ connection: Connection) throws(SQLiteError) -> Int64? {
        let statement = try connection.cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments + values)
        return try statement.step() ? try statement.column(0, as: Int64.self) : nil
    }
}
