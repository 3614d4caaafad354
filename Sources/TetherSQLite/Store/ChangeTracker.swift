/// One committed change to a row of a model's table, as the store's `committedChanges` feed
/// reports it.
///
/// ```swift
/// store.committedChanges.subscribe(next: { change in
///     print(change.table, change.rowID, change.kind, change.isLocal ? "here" : "elsewhere")
/// })
/// ```
public struct StoreChange: Hashable, Sendable, CustomStringConvertible {
    /// What happened to the row.
    public enum Kind: Int, Hashable, Sendable {
        /// The row was inserted.
        case insert = 1
        /// Some of the row's columns were updated.
        case update = 2
        /// The row was deleted.
        case delete = 3
    }

    /// The change's position in the database's change log (`tether_changes.seq`): changes are
    /// reported in this order, which is the order they were committed in.
    public let sequence: Int64
    /// The table (a model type's name).
    public let table: String
    /// The row's id.
    public let rowID: Int64
    /// Insert, update or delete.
    public let kind: Kind
    /// Whether this store made the change (an insert, a delete, a written-through change); false
    /// for a change made by another connection or another process.
    public let isLocal: Bool

    /// Creates a change (the store makes these; tests may too).
    public init(sequence: Int64, table: String, rowID: Int64, kind: Kind, isLocal: Bool) {
        self.sequence = sequence
        self.table = table
        self.rowID = rowID
        self.kind = kind
        self.isLocal = isLocal
    }

    public var description: String {
        "#\(sequence) \(kind) \(table) \(rowID)\(isLocal ? "" : " (external)")"
    }
}

/// What one look at the change log found, handed from the writer queue to the model's thread.
struct _ChangeSet: Sendable {
    /// Every change, in commit order.
    var changes: [StoreChange] = []
    /// The rows changed by others, each once, in the order of their first change.
    var externalKeys: [_RowKey] = []
    /// Of those, the rows that were deleted (and perhaps inserted again under the same id).
    var deletedKeys: Set<_RowKey> = []
    /// The current values (columns after `id`) of the rows changed by others that still exist,
    /// for the tables the store knows.
    var rows: [_RowKey: [SQLiteValue]] = [:]
    /// The new id list of each live query that reads a changed table.
    var queryResults: [Int: Result<[Int64], SQLiteError>] = [:]
    /// The log was pruned past what this store had read: everything it watches is reloaded.
    var resync = false

    var isEmpty: Bool { changes.isEmpty && !resync }
}

/// What a live query needs on the writer queue: its id query and the tables it reads.
struct _LiveQuerySpec: Sendable {
    let idSQL: String
    let arguments: [SQLiteValue]
    let tables: Set<String>
}

/// The store's reader of the change log (`schema/002_tether_changes.sql`). Its methods run on
/// the writer queue, with the store's connection; its state is behind one lock because live
/// queries are registered from the model's thread.
final class _ChangeTracker: Sendable {
    /// Entries kept in the log by each store's pruning: a reader further behind reloads all.
    static let retainedEntries: Int64 = 10_000
    /// How many new entries a store writes between two prunings.
    static let pruneInterval: Int64 = 1_000

    private struct State {
        /// The last log entry read (or written) by this store.
        var cursor: Int64 = 0
        var lastPrune: Int64 = 0
        var tables: [String: _Table] = [:]
        var queries: [Int: _LiveQuerySpec] = [:]
        var nextQuery = 1
    }

    private let state = _Locked(State())

    /// Starts reading after what is in the log now.
    func start(_ connection: Connection) throws(SQLiteError) {
        let now = try Self.highWater(connection)
        state.withLock { $0.cursor = now; $0.lastPrune = now }
    }

    /// The newest entry's sequence number (0 when the log is empty).
    static func highWater(_ connection: Connection) throws(SQLiteError) -> Int64 {
        try connection.scalar("SELECT max(seq) FROM tether_changes", as: Int64?.self).flatMap { $0 } ?? 0
    }

    /// The triggers that log every change to `table` (see schema/002_tether_changes.sql).
    static func triggerSQL(table: String) -> [String] {
        let quoted = _quote(table)
        let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        func name(_ suffix: String) -> String { _quote("tether_\(table)_\(suffix)") }
        let insert = "INSERT INTO tether_changes (tbl, row, kind)"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(name("insert")) AFTER INSERT ON \(quoted) BEGIN \(insert) VALUES (\(literal), NEW.id, 1); END",
            "CREATE TRIGGER IF NOT EXISTS \(name("update")) AFTER UPDATE ON \(quoted) BEGIN \(insert) VALUES (\(literal), NEW.id, 2); END",
            // Only statements that set `id` consider this one (`UPDATE OF id`).
            "CREATE TRIGGER IF NOT EXISTS \(name("rekey")) AFTER UPDATE OF id ON \(quoted) WHEN OLD.id <> NEW.id BEGIN \(insert) VALUES (\(literal), OLD.id, 3), (\(literal), NEW.id, 1); END",
            "CREATE TRIGGER IF NOT EXISTS \(name("delete")) AFTER DELETE ON \(quoted) BEGIN \(insert) VALUES (\(literal), OLD.id, 3); END",
        ]
    }

    /// Makes `table`'s changes logged (its triggers) and its rows readable by `catchUp`.
    func register(_ table: _Table, in connection: Connection) throws(SQLiteError) {
        for sql in Self.triggerSQL(table: table.name) { try connection.execute(sql) }
        state.withLock { $0.tables[table.name] = table }
    }

    // MARK: Live queries

    /// Registers a live query: from now on every look at the log that finds a change to a table
    /// it reads runs its id query again. Returns its number.
    func addQuery(idSQL: String, arguments: [SQLiteValue], in connection: Connection) throws(SQLiteError) -> Int {
        let tables = try connection.tablesRead(by: idSQL)
        let spec = _LiveQuerySpec(idSQL: idSQL, arguments: arguments, tables: tables)
        return state.withLock { state in
            let id = state.nextQuery
            state.nextQuery += 1
            state.queries[id] = spec
            return id
        }
    }

    func removeQuery(_ id: Int) {
        _ = state.withLock { $0.queries.removeValue(forKey: id) }
    }

    func tables(ofQuery id: Int) -> Set<String> {
        state.withLock { $0.queries[id]?.tables ?? [] }
    }

    // MARK: Writing

    /// Runs `body` in a write transaction, then reads the log (`catchUp`): returns `body`'s
    /// result and every change committed since the last look, this transaction's included.
    ///
    /// `rows(result)` says what the transaction changed, one (table, row id, kind) per logged
    /// row in statement order; the store knows, so its own entries are numbered from the range
    /// the transaction wrote instead of being read back (unless something else logged more in
    /// it, such as a trigger of the app's own: then they are read back).
    func write<Result, Rows: Sequence>(
        _ connection: Connection,
        _ body: () throws -> Result,
        rows: (Result) -> Rows
    ) throws -> (Result, _ChangeSet) where Rows.Element == (String, Int64, StoreChange.Kind) {
        let (result, range) = try connection.inTransaction {
            let before = try Self.highWater(connection)
            let result = try body()
            let after = try Self.highWater(connection)
            return (result, before + 1 ..< after + 1)
        }
        var local: [StoreChange] = []
        local.reserveCapacity(range.count)
        var sequence = range.lowerBound
        for (table, id, kind) in rows(result) {
            local.append(StoreChange(sequence: sequence, table: table, rowID: id, kind: kind, isLocal: true))
            sequence += 1
        }
        return (result, try catchUp(connection, local: range, localChanges: local))
    }

    /// Deletes old log entries (keeping the newest `retainedEntries`) once `pruneInterval`
    /// entries were written since the last time. Called on the writer queue after a commit, in
    /// a transaction of its own, so that it never slows the commit down.
    func pruneIfDue(_ connection: Connection) {
        guard let highWater = try? Self.highWater(connection) else { return }
        let due = state.withLock { state -> Bool in
            guard highWater - state.lastPrune >= Self.pruneInterval else { return false }
            state.lastPrune = highWater
            return true
        }
        guard due, highWater > Self.retainedEntries else { return }
        // Busy or read-only: it is only housekeeping; the next commit tries again.
        try? connection.execute("DELETE FROM tether_changes WHERE seq <= ?", [.integer(highWater - Self.retainedEntries)])
    }

    /// Whether a prune may be due (cheap: no SQL): this store read or wrote `pruneInterval`
    /// entries since it last pruned.
    func pruneDue() -> Bool {
        state.withLock { $0.cursor - $0.lastPrune >= Self.pruneInterval }
    }

    // MARK: Reading

    /// Reads the log from where this store stopped: every change committed since, in order.
    ///
    /// `local` is the range of entries the store's own transaction just wrote and `localChanges`
    /// what they are (the store knows; it does not read them back). Entries outside it are
    /// changes made by others: for those, the current values of the rows are read (for known
    /// tables), so that the model's thread can update live models. Live queries that read a
    /// changed table run their id query again.
    func catchUp(
        _ connection: Connection,
        local: Range<Int64>? = nil,
        localChanges: [StoreChange] = []
    ) throws(SQLiteError) -> _ChangeSet {
        var set = _ChangeSet()
        let (cursor, tables) = state.withLock { ($0.cursor, $0.tables) }
        var newCursor = cursor
        var resetCursor = false

        // Others' entries: all of them, or those before the local range (the ones after it
        // are read next time).
        let externalEnd = local?.lowerBound ?? Int64.max
        let statement = try connection.cachedStatement(
            "SELECT seq, tbl, row, kind FROM tether_changes WHERE seq > ? AND seq < ? ORDER BY seq")
        try statement.bind([.integer(cursor), .integer(externalEnd)])
        var first = true
        var seen: Set<_RowKey> = []
        while try statement.step() {
            let seq = try statement.column(0, as: Int64.self)
            let table = try statement.column(1, as: String.self)
            let row = try statement.column(2, as: Int64.self)
            let kind = StoreChange.Kind(rawValue: try statement.column(3, as: Int.self)) ?? .update
            if first, seq > cursor + 1 { set.resync = true }   // entries were pruned before we read them
            first = false
            set.changes.append(StoreChange(sequence: seq, table: table, rowID: row, kind: kind, isLocal: false))
            let key = _RowKey(table: table, id: row)
            if seen.insert(key).inserted { set.externalKeys.append(key) }
            if kind == .delete { set.deletedKeys.insert(key) }
            newCursor = seq
        }
        statement.reset()
        if first, let local, local.lowerBound > cursor + 1 {
            // Our transaction started after entries we never saw (pruned by another store).
            set.resync = true
        }
        if first, local == nil, cursor > 0, try Self.highWater(connection) < cursor {
            // The log was emptied by hand and numbering started again: reload everything.
            set.resync = true
            newCursor = try Self.highWater(connection)
            resetCursor = true
        }
        if let local {
            if localChanges.count == local.count {
                set.changes += localChanges
            } else {
                // Something else logged in our transaction too (a trigger of the app's own):
                // read our range back.
                let mine = try connection.cachedStatement(
                    "SELECT seq, tbl, row, kind FROM tether_changes WHERE seq >= ? AND seq < ? ORDER BY seq")
                try mine.bind([.integer(local.lowerBound), .integer(local.upperBound)])
                while try mine.step() {
                    set.changes.append(StoreChange(
                        sequence: try mine.column(0, as: Int64.self),
                        table: try mine.column(1, as: String.self),
                        rowID: try mine.column(2, as: Int64.self),
                        kind: StoreChange.Kind(rawValue: try mine.column(3, as: Int.self)) ?? .update,
                        isLocal: true))
                }
                mine.reset()
            }
            newCursor = max(newCursor, local.upperBound - 1)
        }

        // The current values of the rows others changed.
        for key in set.externalKeys {
            guard let table = tables[key.table] else { continue }
            let select = try connection.cachedStatement(table.selectByIDSQL)
            try select.bind([.integer(key.id)])
            if try select.step() {
                var values: [SQLiteValue] = []
                values.reserveCapacity(table.definition.columns.count)
                for index in 0..<table.definition.columns.count { values.append(try select.value(at: index + 1)) }
                set.rows[key] = values
            }
            select.reset()
        }

        // Live queries over changed tables.
        let queries = state.withLock { $0.queries }
        if !queries.isEmpty, !set.changes.isEmpty || set.resync {
            let changedTables = Set(set.changes.map(\.table))
            for (id, spec) in queries where set.resync || !spec.tables.isDisjoint(with: changedTables) {
                do {
                    let select = try connection.cachedStatement(spec.idSQL)
                    try select.bind(spec.arguments)
                    var ids: [Int64] = []
                    while try select.step() { ids.append(try select.column(0, as: Int64.self)) }
                    select.reset()
                    set.queryResults[id] = .success(ids)
                } catch {
                    set.queryResults[id] = .failure(error)
                }
            }
        }

        state.withLock { $0.cursor = resetCursor ? newCursor : max($0.cursor, newCursor) }
        return set
    }
}
