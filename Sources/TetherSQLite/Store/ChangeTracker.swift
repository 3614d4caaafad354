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

    /// The position in the database's change log (`tether_changes.seq`) of the entry that
    /// recorded the change: changes are reported in this order, which is the order they were
    /// committed in. One entry may record many rows (a store's insert of many rows logs one
    /// entry per range of consecutive ids, see <doc:Persistence>): its changes share its
    /// sequence number and are reported one per row, in id order. So (`sequence`, `table`,
    /// `rowID`) tells changes apart, `sequence` alone may not.
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

/// One entry of the change log: a change to one row, or the same change to every row of a
/// range of ids (`row...last`, see schema/004_tether_change_ranges.sql).
struct _LogEntry: Sendable, Hashable {
    let sequence: Int64
    let table: String
    /// The range's first and last row ids (the same for an entry about one row).
    let first: Int64
    let last: Int64
    let kind: StoreChange.Kind
    let isLocal: Bool

    /// An entry about one row.
    init(sequence: Int64, table: String, row: Int64, kind: StoreChange.Kind, isLocal: Bool) {
        self.init(sequence: sequence, table: table, first: row, last: row, kind: kind, isLocal: isLocal)
    }

    /// An entry about rows `first...last` (a `last` below `first`, which Tether never writes,
    /// is taken as `first`).
    init(sequence: Int64, table: String, first: Int64, last: Int64, kind: StoreChange.Kind, isLocal: Bool) {
        self.sequence = sequence
        self.table = table
        self.first = first
        self.last = max(first, last)
        self.kind = kind
        self.isLocal = isLocal
    }

    var rowIDs: ClosedRange<Int64> { first...last }

    /// The entry's changes, one per row, in id order.
    var changes: LazyMapSequence<ClosedRange<Int64>, StoreChange> {
        let (sequence, table, kind, isLocal) = (self.sequence, self.table, self.kind, self.isLocal)
        return rowIDs.lazy.map { StoreChange(sequence: sequence, table: table, rowID: $0, kind: kind, isLocal: isLocal) }
    }

    /// Whether the entry is about a row of `table` that `ids` holds.
    func touches<Value>(_ table: String, in ids: [Int64: Value]) -> Bool {
        guard self.table == table, !ids.isEmpty else { return false }
        if first == last { return ids[first] != nil }
        // The cheaper way round: look up each row of the range, or check each id.
        if last - first < Int64(ids.count) { return rowIDs.contains { ids[$0] != nil } }
        return ids.keys.contains { rowIDs.contains($0) }
    }
}

/// What one look at the change log found, handed from the writer queue to the model's thread.
struct _ChangeSet: Sendable {
    /// Every log entry, in commit order.
    var entries: [_LogEntry] = []
    /// The rows changed by others, each once, in the order of their first change.
    var externalKeys: [_RowKey] = []
    /// Of those, the rows that were deleted (and perhaps inserted again under the same id).
    var deletedKeys: Set<_RowKey> = []
    /// The current values (columns after `id`) of the rows changed by others that still exist,
    /// for the tables the store knows.
    var rows: [_RowKey: [SQLiteValue]] = [:]
    /// Of those, the rows of known tables that were looked for and not found (deleted).
    var missing: Set<_RowKey> = []
    /// How the result of each live query that reads a changed table changed.
    var queryResults: [Int: Result<_QueryChange, SQLiteError>] = [:]
    /// The log was pruned past what this store had read: everything it watches is reloaded.
    var resync = false
    /// The log entry this look read up to (0: not a look at the log).
    var through: Int64 = 0

    var isEmpty: Bool { entries.isEmpty && !resync }

    /// Every change, one per row (range entries expanded), in commit order.
    var changes: some Sequence<StoreChange> { entries.lazy.flatMap(\.changes) }
}

/// What a live query needs on the writer queue: its id query, the tables it reads, and how
/// its result follows a few changed rows (nil: it is made again each time).
struct _LiveQuerySpec: Sendable {
    let idSQL: String
    let arguments: [SQLiteValue]
    let tables: Set<String>
    let incremental: _IncrementalQuery?
    /// Whether only inserted and deleted rows can change the result (a count of every row):
    /// a look that only updated rows does not run the query again.
    var insertsAndDeletesOnly = false
    /// For a live aggregate: how its value follows the changed rows (its `idSQL` is only the
    /// rows it reads, which say which tables it depends on).
    var aggregate: _IncrementalAggregate? = nil
}

/// The store's reader of the change log (`schema/002_tether_changes.sql`, with the range
/// entries of `schema/004_tether_change_ranges.sql`). Its methods run on the writer queue, with
/// the store's connection; its state is behind one lock because live queries are registered
/// from the model's thread.
final class _ChangeTracker: Sendable {
    /// Entries kept in the log by each store's pruning: a reader further behind reloads all.
    static let retainedEntries: Int64 = 10_000
    /// How many new entries a store writes between two prunings.
    static let pruneInterval: Int64 = 1_000
    /// From how many rows a store's insert switches the triggers off and logs ranges of ids
    /// itself (see `insert`). Switching costs a new preparation of each statement the
    /// connection runs next; the insert trigger costs 0.5 to 0.7 µs per row. Measured (release
    /// build, cycles of an insert, a one-row write-through and a fetch): at 32 rows switching
    /// costs a little more than the triggers, at 64 a little less, at 128 clearly less.
    static let bulkInsertThreshold = 64

    private struct State {
        /// The last log entry read (or written) by this store.
        var cursor: Int64 = 0
        /// The last log entry whose look the store's thread has applied (`cursor` moves when a
        /// look is read; the look may wait in the inbox a while).
        var applied: Int64 = 0
        var lastPrune: Int64 = 0
        /// Whether the log has the `last` column (schema/004). Without it (a migrator of the
        /// app's own that lacks that file), the store writes and reads no range entries.
        var hasRanges = false
        var tables: [String: _Table] = [:]
        var queries: [Int: _LiveQuerySpec] = [:]
        /// The size of each live query's result, as its last update left it.
        var resultSizes: [Int: Int] = [:]
        var nextQuery = 1
        /// Run by `catchUp` right after it read the log (tests commit elsewhere there).
        var afterReadingTheLog: (@Sendable () -> Void)?
    }

    private let state = _Locked(State())

    /// The store's thread has applied the looks up to log entry `through`.
    func applied(through: Int64) {
        guard through > 0 else { return }
        state.withLock { $0.applied = max($0.applied, through) }
    }

    /// The last log entry whose look the store's thread has applied: what its models reflect
    /// (read on that thread when a write takes their values; see `deleted(since:_:among:)`).
    var lastApplied: Int64 { state.withLock { $0.applied } }

    /// Starts reading after what is in the log now.
    func start(_ connection: Connection) throws(SQLiteError) {
        let now = try Self.highWater(connection)
        let hasRanges = try connection.columns(in: "tether_changes").contains { $0.name.lowercased() == "last" }
        state.withLock { $0.cursor = now; $0.applied = now; $0.lastPrune = now; $0.hasRanges = hasRanges }
    }

    /// The newest entry's sequence number (0 when the log is empty).
    /// The rows the log recorded after entry `sequence`, in order (inside a transaction: what
    /// its statements changed, including what foreign-key actions changed).
    static func rows(after sequence: Int64, _ connection: Connection) throws(SQLiteError) -> [(String, Int64, StoreChange.Kind)] {
        try connection.rows("SELECT tbl, row, kind FROM tether_changes WHERE seq > ? ORDER BY seq", [.integer(sequence)]).compactMap { row in
            guard case .text(let table) = row.values[0], case .integer(let id) = row.values[1],
                  case .integer(let kind) = row.values[2], let kind = StoreChange.Kind(rawValue: Int(kind)) else { return nil }
            return (table, id, kind)
        }
    }

    static func highWater(_ connection: Connection) throws(SQLiteError) -> Int64 {
        try connection.scalar("SELECT max(seq) FROM tether_changes", as: Int64?.self).flatMap { $0 } ?? 0
    }

    /// The name of one of the triggers of `table` (`suffix`: insert, update, rekey, delete).
    static func triggerName(_ table: String, _ suffix: String) -> String { "tether_\(table)_\(suffix)" }

    /// The triggers that log every change to `table` (see schema/002_tether_changes.sql).
    static func triggerSQL(table: String) -> [String] {
        let quoted = _quote(table)
        let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        func name(_ suffix: String) -> String { _quote(triggerName(table, suffix)) }
        let insert = "INSERT INTO tether_changes (tbl, row, kind)"
        return [
            "CREATE TRIGGER IF NOT EXISTS \(name("insert")) AFTER INSERT ON \(quoted) BEGIN \(insert) VALUES (\(literal), NEW.id, 1); END",
            "CREATE TRIGGER IF NOT EXISTS \(name("update")) AFTER UPDATE ON \(quoted) BEGIN \(insert) VALUES (\(literal), NEW.id, 2); END",
            // Only statements that set `id` consider this one (`UPDATE OF id`).
            "CREATE TRIGGER IF NOT EXISTS \(name("rekey")) AFTER UPDATE OF id ON \(quoted) WHEN OLD.id <> NEW.id BEGIN \(insert) VALUES (\(literal), OLD.id, 3), (\(literal), NEW.id, 1); END",
            "CREATE TRIGGER IF NOT EXISTS \(name("delete")) AFTER DELETE ON \(quoted) BEGIN \(insert) VALUES (\(literal), OLD.id, 3); END",
        ]
    }

    /// Whether `table`'s four triggers exist (a read: no lock).
    func hasTriggers(_ table: _Table, in connection: Connection) throws(SQLiteError) -> Bool {
        let names = ["insert", "update", "rekey", "delete"].map { SQLiteValue.text(Self.triggerName(table.name, $0)) }
        let existing = try connection.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name IN (?, ?, ?, ?)", names, as: Int.self) ?? 0
        return existing == names.count
    }

    /// Makes `table`'s changes logged (its triggers, created if missing: nothing is written when
    /// they exist) and its rows readable by `catchUp`.
    func register(_ table: _Table, in connection: Connection) throws(SQLiteError) {
        if try !hasTriggers(table, in: connection) {
            for sql in Self.triggerSQL(table: table.name) { try connection.execute(sql) }
        }
        state.withLock { $0.tables[table.name] = table }
    }

    /// Sets what `catchUp` runs right after reading the log (for tests: a commit by another
    /// connection at that moment).
    func runAfterReadingTheLog(_ hook: (@Sendable () -> Void)?) {
        state.withLock { $0.afterReadingTheLog = hook }
    }

    // MARK: Live queries

    /// Registers a live query: from now on every look at the log that finds a change to a table
    /// it reads runs its id query again. Returns its number.
    func addQuery(
        idSQL: String, arguments: [SQLiteValue], incremental: _IncrementalQuery?, insertsAndDeletesOnly: Bool = false,
        aggregate: _IncrementalAggregate? = nil, in connection: Connection
    ) throws(SQLiteError) -> Int {
        let tables = try connection.tablesRead(by: idSQL)
        var incremental = incremental
        if let query = incremental, try !query.readsItsTableOnlyAsTheOuterRow(connection) { incremental = nil }
        let spec = _LiveQuerySpec(
            idSQL: idSQL, arguments: arguments, tables: tables, incremental: incremental, insertsAndDeletesOnly: insertsAndDeletesOnly,
            aggregate: aggregate)
        return state.withLock { state in
            let id = state.nextQuery
            state.nextQuery += 1
            state.queries[id] = spec
            return id
        }
    }

    func removeQuery(_ id: Int) {
        state.withLock { state in
            state.queries[id] = nil
            state.resultSizes[id] = nil
        }
    }

    /// Records the size of live query `id`'s result (which decides whether a change is
    /// followed row by row).
    func setResultSize(_ size: Int, ofQuery id: Int) {
        state.withLock { state in
            if state.queries[id] != nil { state.resultSizes[id] = size }
        }
    }

    /// Runs live query `id`'s id query (nil if it was removed).
    func ids(ofQuery id: Int, _ connection: Connection) throws(SQLiteError) -> [Int64]? {
        guard let spec = state.withLock({ $0.queries[id] }) else { return nil }
        return try Self.ids(spec, connection)
    }

    private static func ids(_ spec: _LiveQuerySpec, _ connection: Connection) throws(SQLiteError) -> [Int64] {
        let select = try connection.cachedStatement(spec.idSQL)
        defer { select.reset() }
        try select.bind(spec.arguments)
        var ids: [Int64] = []
        while try select.step() { ids.append(try select.column(0, as: Int64.self)) }
        return ids
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
        var local: [_LogEntry] = []
        local.reserveCapacity(range.count)
        var sequence = range.lowerBound
        for (table, id, kind) in rows(result) {
            local.append(_LogEntry(sequence: sequence, table: table, row: id, kind: kind, isLocal: true))
            sequence += 1
        }
        return (result, try catchUp(connection, local: range, localEntries: local))
    }

    /// Runs `insert`, which inserts `count` new rows into `table` without giving their ids and
    /// returns their ids in order, in a write transaction; then reads the log, like `write`.
    ///
    /// From `bulkInsertThreshold` rows on, if the table has no trigger besides Tether's own
    /// (checked inside the transaction), `insert` runs with the connection's triggers off, and
    /// the log gets one entry per run of consecutive ids (`row...last`), written here, instead of
    /// one entry per row from the insert trigger. The triggers are back on when `insert`
    /// returns or throws. A trigger of the app's own must fire for every row: with one, or in a
    /// log without the `last` column, the insert trigger logs each row as usual.
    func insert(
        _ connection: Connection,
        into table: String,
        count: Int,
        _ insert: () throws -> [Int64]
    ) throws -> ([Int64], _ChangeSet) {
        let bulk = count >= Self.bulkInsertThreshold && state.withLock { $0.hasRanges }
        let (ids, range, runs) = try connection.inTransaction { () throws -> ([Int64], Range<Int64>, [ClosedRange<Int64>]?) in
            let before = try Self.highWater(connection)
            let ids: [Int64]
            var runs: [ClosedRange<Int64>]?
            if bulk, try !Self.hasOtherTriggers(on: table, connection) {
                ids = try connection.withTriggersDisabled(insert)
                let found = Self.runs(of: ids)
                try Self.log(found, of: table, kind: .insert, connection)
                runs = found
            } else {
                ids = try insert()
            }
            let after = try Self.highWater(connection)
            return (ids, before + 1 ..< after + 1, runs)
        }
        // The store's entries: one per run (triggers off), or one per row (the trigger's).
        let logged = runs ?? ids.map { $0...$0 }
        let local = Self.localEntries(from: range.lowerBound, logged.lazy.map { (table, $0) }, kind: .insert)
        return (ids, try catchUp(connection, local: range, localEntries: local))
    }

    /// Runs `update`, which UPDATEs existing rows and returns the rows it changed, in a write
    /// transaction; then reads the log, like `write`.
    ///
    /// From `bulkInsertThreshold` rows (`count`, the rows it may change) on, if no table in
    /// `tables` has a trigger besides Tether's own (checked inside the transaction), `update`
    /// runs with the connection's triggers off, and the log gets one entry per run of
    /// consecutive ids of a table, written here, instead of one entry per row from the update
    /// trigger (a trigger costs each row about as much as the UPDATE itself). A trigger of the
    /// app's own must fire for every row: with one, or in a log without the `last` column, the
    /// update trigger logs each row as usual.
    func update(
        _ connection: Connection,
        count: Int,
        tables: Set<String>,
        _ update: () throws -> [_RowKey]
    ) throws -> ([_RowKey], _ChangeSet) {
        let bulk = count >= Self.bulkInsertThreshold && state.withLock { $0.hasRanges }
        typealias Run = (table: String, ids: ClosedRange<Int64>)
        let (written, range, runs) = try connection.inTransaction { () throws -> ([_RowKey], Range<Int64>, [Run]?) in
            let before = try Self.highWater(connection)
            let written: [_RowKey]
            var runs: [Run]?
            if bulk, try !tables.contains(where: { try Self.hasOtherTriggers(on: $0, connection) }) {
                written = try connection.withTriggersDisabled(update)
                var idsByTable: [String: [Int64]] = [:]
                for key in written { idsByTable[key.table, default: []].append(key.id) }
                var found: [Run] = []
                for table in idsByTable.keys.sorted() {
                    let tableRuns = Self.runs(of: idsByTable[table]!.sorted())
                    try Self.log(tableRuns, of: table, kind: .update, connection)
                    found += tableRuns.map { (table, $0) }
                }
                runs = found
            } else {
                written = try update()
            }
            let after = try Self.highWater(connection)
            return (written, before + 1 ..< after + 1, runs)
        }
        // The store's entries: one per run (triggers off), or one per row (the trigger's).
        let logged = runs ?? written.map { ($0.table, $0.id...$0.id) }
        let local = Self.localEntries(from: range.lowerBound, logged, kind: .update)
        return (written, try catchUp(connection, local: range, localEntries: local))
    }

    /// The entries a store's own transaction wrote, in order, numbered from `sequence`: one per
    /// run of ids of a table (a row alone is a run of one).
    static func localEntries(
        from sequence: Int64, _ runs: some Sequence<(table: String, ids: ClosedRange<Int64>)>, kind: StoreChange.Kind
    ) -> [_LogEntry] {
        zip(sequence..., runs).map { sequence, run in
            _LogEntry(sequence: sequence, table: run.table, first: run.ids.lowerBound, last: run.ids.upperBound, kind: kind, isLocal: true)
        }
    }

    /// Writes one log entry per run of ids of `table` (`row...last`; `last` NULL for one row).
    static func log(_ runs: [ClosedRange<Int64>], of table: String, kind: StoreChange.Kind, _ connection: Connection) throws {
        let log = try connection.cachedStatement("INSERT INTO tether_changes (tbl, row, kind, last) VALUES (?, ?, ?, ?)")
        for run in runs {
            let last: SQLiteValue = run.lowerBound == run.upperBound ? .null : .integer(run.upperBound)
            try log.bind([.text(table), .integer(run.lowerBound), .integer(Int64(kind.rawValue)), last])
            try log.run()
        }
    }

    /// Whether `table` has triggers other than Tether's (in the main schema, or temporary ones
    /// on this connection). Tether's are the four that log its changes and the delete rules'
    /// (`tether_Invoice_lines_delete`, `tether_Invoice_customer_id_nullify`), which an insert
    /// or an update does not fire.
    static func hasOtherTriggers(on table: String, _ connection: Connection) throws(SQLiteError) -> Bool {
        let sql = """
            SELECT 1 FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE \
            AND NOT (name IN (?2, ?3, ?4, ?5) OR (name LIKE 'tether\\_%\\_delete' ESCAPE '\\' AND sql LIKE '% BEFORE DELETE ON %') \
            OR (name LIKE 'tether\\_%\\_nullify' ESCAPE '\\' AND sql LIKE '% AFTER DELETE ON %')) \
            UNION ALL SELECT 1 FROM sqlite_temp_master WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE \
            LIMIT 1
            """
        let ours = ["insert", "update", "rekey", "delete"].map { SQLiteValue.text(triggerName(table, $0)) }
        return try connection.scalar(sql, [.text(table)] + ours, as: Int.self) != nil
    }

    /// The runs of consecutive ids in `ids`, in order (`[4, 5, 6, 9, 10]`: `4...6`, `9...10`).
    static func runs(of ids: [Int64]) -> [ClosedRange<Int64>] {
        guard var start = ids.first else { return [] }
        var runs: [ClosedRange<Int64>] = []
        var end = start
        for id in ids.dropFirst() {
            if end < Int64.max, id == end + 1 {
                end = id
            } else {
                runs.append(start...end)
                start = id
                end = id
            }
        }
        runs.append(start...end)
        return runs
    }

    /// Deletes old log entries (keeping the newest `retainedEntries`) once `pruneInterval`
    /// entries were written since the last time. Called on the writer queue after a commit, in
    /// a transaction of its own, so that it never slows the commit down. It counts entries,
    /// whatever number of rows each is about.
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

    /// Which of `keys` were deleted after log entry `position` (called in a write transaction,
    /// so nobody can delete more before it commits). A write passes the entry its store's
    /// thread had applied when it took the models' values (`lastApplied`): a look read after
    /// that, still waiting in the inbox or applied meanwhile, did not reach the values written.
    /// SQLite gives the id of a deleted last row to the next row inserted: a model of such a
    /// row must not write into, or delete, the new row, which is somebody else's.
    func deleted(since position: Int64, _ connection: Connection, among keys: some Collection<_RowKey>) throws(SQLiteError) -> Set<_RowKey> {
        guard !keys.isEmpty else { return [] }
        let hasRanges = state.withLock { $0.hasRanges }
        let statement = try connection.cachedStatement(hasRanges ? Self.deletesSQL : Self.deletesSQLWithoutRanges)
        defer { statement.reset() }
        try statement.bind([.integer(position), .integer(Int64(StoreChange.Kind.delete.rawValue))])
        var deleted: Set<_RowKey> = []
        var wanted: Set<_RowKey>?
        while try statement.step() {
            if wanted == nil { wanted = Set(keys) }
            let table = try statement.column(0, as: String.self)
            let first = try statement.column(1, as: Int64.self)
            let last = try statement.column(2, as: Int64?.self) ?? first
            for key in wanted! where key.table == table && key.id >= first && key.id <= last { deleted.insert(key) }
        }
        return deleted
    }

    private static let deletesSQL = "SELECT tbl, row, last FROM tether_changes WHERE seq > ? AND kind = ?"
    private static let deletesSQLWithoutRanges = "SELECT tbl, row, NULL FROM tether_changes WHERE seq > ? AND kind = ?"

    /// The entries after one and before another (`catchUp`'s look for others' entries), with
    /// `last` (NULL in a log without that column).
    private static let othersSQL = "SELECT seq, tbl, row, kind, last FROM tether_changes WHERE seq > ? AND seq < ? ORDER BY seq"
    private static let othersSQLWithoutRanges = "SELECT seq, tbl, row, kind, NULL FROM tether_changes WHERE seq > ? AND seq < ? ORDER BY seq"
    /// The entries of a range of sequence numbers (the store's own, read back).
    private static let mineSQL = "SELECT seq, tbl, row, kind, last FROM tether_changes WHERE seq >= ? AND seq < ? ORDER BY seq"
    private static let mineSQLWithoutRanges = "SELECT seq, tbl, row, kind, NULL FROM tether_changes WHERE seq >= ? AND seq < ? ORDER BY seq"

    /// The entry of the statement's current row (columns seq, tbl, row, kind, last).
    private static func entry(_ statement: Statement, isLocal: Bool) throws(SQLiteError) -> _LogEntry {
        let row = try statement.column(2, as: Int64.self)
        return _LogEntry(
            sequence: try statement.column(0, as: Int64.self),
            table: try statement.column(1, as: String.self),
            first: row,
            last: try statement.column(4, as: Int64?.self) ?? row,
            kind: StoreChange.Kind(rawValue: try statement.column(3, as: Int.self)) ?? .update,
            isLocal: isLocal)
    }

    /// Reads the log from where this store stopped: every change committed since, in order.
    ///
    /// `local` is the range of entries the store's own transaction just wrote and
    /// `localEntries` what they are (the store knows; it does not read them back). Entries
    /// outside it are changes made by others: for those, the current values of the rows are
    /// read (for known tables), so that the model's thread can update live models. Live queries
    /// that read a changed table run their id query again.
    func catchUp(
        _ connection: Connection,
        local: Range<Int64>? = nil,
        localEntries: [_LogEntry] = []
    ) throws(SQLiteError) -> _ChangeSet {
        // Everything read is one state of the database: a live query followed row by row
        // places a changed row after another as the same state orders them. (Inside the
        // store's write transaction it is already so.)
        let reads = !connection.isInTransaction
        if reads { try connection.cachedStatement("BEGIN DEFERRED TRANSACTION").run() }
        defer {
            if reads {
                do { try connection.cachedStatement("COMMIT TRANSACTION").run() } catch { try? connection.execute("ROLLBACK") }
            }
        }
        var set = _ChangeSet()
        let (cursor, tables, hasRanges, hook) = state.withLock { ($0.cursor, $0.tables, $0.hasRanges, $0.afterReadingTheLog) }
        var newCursor = cursor
        var resetCursor = false

        // Others' entries: all of them, or those before the local range (the ones after it
        // are read next time).
        let externalEnd = local?.lowerBound ?? Int64.max
        let statement = try connection.cachedStatement(hasRanges ? Self.othersSQL : Self.othersSQLWithoutRanges)
        try statement.bind([.integer(cursor), .integer(externalEnd)])
        var first = true
        var seen: Set<_RowKey> = []
        var hasRangeEntries = false
        while try statement.step() {
            let entry = try Self.entry(statement, isLocal: false)
            if first, entry.sequence > cursor + 1 { set.resync = true }   // entries were pruned before we read them
            first = false
            set.entries.append(entry)
            if entry.first != entry.last { hasRangeEntries = true }
            for row in entry.rowIDs {
                let key = _RowKey(table: entry.table, id: row)
                if seen.insert(key).inserted { set.externalKeys.append(key) }
                if entry.kind == .delete { set.deletedKeys.insert(key) }
            }
            newCursor = entry.sequence
        }
        statement.reset()
        hook?()
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
            if localEntries.count == local.count {
                set.entries += localEntries
            } else {
                // Something else logged in our transaction too (a trigger of the app's own):
                // read our range back.
                let mine = try connection.cachedStatement(hasRanges ? Self.mineSQL : Self.mineSQLWithoutRanges)
                try mine.bind([.integer(local.lowerBound), .integer(local.upperBound)])
                while try mine.step() { set.entries.append(try Self.entry(mine, isLocal: true)) }
                mine.reset()
            }
            newCursor = max(newCursor, local.upperBound - 1)
        }

        // The current values of the rows others changed: those of a range entry with one query
        // (SQLite walks the ids in order), the others one by one.
        if hasRangeEntries {
            for entry in set.entries where !entry.isLocal && entry.first != entry.last {
                guard let table = tables[entry.table] else { continue }
                let select = try connection.cachedStatement(table.selectSQL + " WHERE id BETWEEN ? AND ?")
                try select.bind([.integer(entry.first), .integer(entry.last)])
                let count = table.definition.columns.count
                while try select.step() {
                    var values: [SQLiteValue] = []
                    values.reserveCapacity(count)
                    for index in 0..<count { values.append(try select.value(at: index + 1)) }
                    set.rows[_RowKey(table: entry.table, id: try select.column(0, as: Int64.self))] = values
                }
                select.reset()
            }
        }
        for key in set.externalKeys where !hasRangeEntries || set.rows[key] == nil {
            guard let table = tables[key.table] else { continue }
            let select = try connection.cachedStatement(table.selectByIDSQL)
            try select.bind([.integer(key.id)])
            if try select.step() {
                var values: [SQLiteValue] = []
                values.reserveCapacity(table.definition.columns.count)
                for index in 0..<table.definition.columns.count { values.append(try select.value(at: index + 1)) }
                set.rows[key] = values
            } else {
                set.missing.insert(key)
            }
            select.reset()
        }

        // Live queries over changed tables: from the changed rows alone where they can be,
        // else by running their query again.
        let (queries, sizes) = state.withLock { ($0.queries, $0.resultSizes) }
        if !queries.isEmpty, !set.entries.isEmpty || set.resync {
            let changedTables = Set(set.entries.map(\.table))
            let insertedOrDeleted = Set(set.entries.lazy.filter { $0.kind != .update }.map(\.table))
            for (id, spec) in queries where set.resync
                || !spec.tables.isDisjoint(with: spec.insertsAndDeletesOnly ? insertedOrDeleted : changedTables) {
                do {
                    if let aggregate = spec.aggregate {
                        let value = try aggregate.follow(
                            entries: set.entries, changedTables: changedTables, tables: spec.tables, resync: set.resync, connection)
                        set.queryResults[id] = .success(.value(value))
                    } else if !set.resync, let incremental = spec.incremental,
                       let changed = incremental.changedRows(
                           in: set.entries, changedTables: changedTables, tables: spec.tables, resultSize: sizes[id] ?? 0) {
                        let arrivals = try incremental.arrivals(among: changed, connection)
                        set.queryResults[id] = .success(.rows(changed: changed, arrivals: arrivals))
                    } else {
                        let ids = try Self.ids(spec, connection)
                        state.withLock { state in
                            if state.queries[id] != nil { state.resultSizes[id] = ids.count }
                        }
                        set.queryResults[id] = .success(.ids(ids))
                    }
                } catch {
                    set.queryResults[id] = .failure(error)
                }
            }
        }

        set.through = state.withLock { state in
            state.cursor = resetCursor ? newCursor : max(state.cursor, newCursor)
            if resetCursor { state.applied = Swift.min(state.applied, newCursor) }
            return state.cursor
        }
        return set
    }
}
