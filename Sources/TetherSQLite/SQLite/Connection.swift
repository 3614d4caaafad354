import CSQLite

/// A connection to an SQLite database: owns its `sqlite3` handle and closes it in `deinit`
/// (`sqlite3_close_v2`), or earlier when its ``DatabaseQueue`` is closed; a closed connection
/// fails every call with `SQLITE_MISUSE` and never touches the freed handle.
///
/// Opening a connection sets it up the way Tether uses SQLite: write-ahead logging
/// (`journal_mode=WAL`), a busy timeout (5 s by default), `foreign_keys=ON`,
/// `synchronous=NORMAL` and extended result codes.
///
/// ```swift
/// let connection = try Connection(path: "invoices.sqlite")
/// try connection.execute("CREATE TABLE IF NOT EXISTS Invoice (id INTEGER PRIMARY KEY, customer TEXT NOT NULL)")
/// try connection.inTransaction {
///     try connection.execute("INSERT INTO Invoice (customer) VALUES (?)", ["Ada"])
///     try connection.execute("INSERT INTO Invoice (customer) VALUES (?)", ["Grace"])
/// }
/// let count = try connection.scalar("SELECT count(*) FROM Invoice", as: Int.self)   // 2
/// ```
///
/// ## Threading: one connection, one serial context
///
/// A `Connection` is not `Sendable`. Each connection is opened in SQLite's *multi-thread* mode
/// (`SQLITE_OPEN_NOMUTEX`), of which https://www.sqlite.org/threadsafe.html says: "SQLite can
/// be safely used by multiple threads provided that no single database connection nor any
/// object derived from database connection, such as a prepared statement, is used in two or
/// more threads at the same time." Swift 6's strict concurrency checking enforces exactly that
/// at compile time: a connection and its statements live in one isolation region, so they can
/// be used by one task or thread at a time, and can be handed over to another context (with
/// `sending`) only by giving them up. Because the compiler already proves it, there is no
/// runtime thread check (which would also forbid a legitimate hand-over, such as opening a
/// connection on one thread and moving it onto a queue).
///
/// To use a database from several threads, give the connection to a ``DatabaseQueue``: a
/// `Sendable` owner that runs your closures on its own serial dispatch queue.
///
/// ## Durability
///
/// With WAL and `synchronous=NORMAL`, a committed transaction survives the application crashing
/// or being killed; it can be lost (rolled back, never corrupted) if the operating system
/// crashes or the power fails before the next checkpoint. Pass `synchronous: .full` for
/// durability against power loss too, at the cost of an fsync per commit.
public final class Connection {
    /// How to open a connection.
    ///
    /// ```swift
    /// var options = Connection.Options()
    /// options.busyTimeout = .milliseconds(50)
    /// let connection = try Connection(path: path, options: options)
    /// ```
    public struct Options: Sendable {
        /// Open the database read-only (`SQLITE_OPEN_READONLY`): every write fails with
        /// `SQLITE_READONLY`. The journal mode is then left as the file has it.
        public var readOnly: Bool
        /// Create the file if it does not exist (ignored when `readOnly`).
        public var create: Bool
        /// How long a statement waits for another connection's lock before failing with
        /// `SQLITE_BUSY` (`sqlite3_busy_timeout`). 5 seconds by default.
        public var busyTimeout: Duration
        /// The journal mode to set; `.wal` by default, nil to leave the file's mode alone.
        public var journalMode: JournalMode?
        /// `PRAGMA synchronous`; `.normal` by default (see "Durability" in ``Connection``).
        public var synchronous: Synchronous
        /// `PRAGMA foreign_keys`; on by default.
        public var foreignKeys: Bool

        /// Options with Tether's defaults: read-write, create, 5 s busy timeout, WAL,
        /// `synchronous=NORMAL`, foreign keys on.
        public init(
            readOnly: Bool = false,
            create: Bool = true,
            busyTimeout: Duration = .seconds(5),
            journalMode: JournalMode? = .wal,
            synchronous: Synchronous = .normal,
            foreignKeys: Bool = true
        ) {
            self.readOnly = readOnly
            self.create = create
            self.busyTimeout = busyTimeout
            self.journalMode = journalMode
            self.synchronous = synchronous
            self.foreignKeys = foreignKeys
        }
    }

    /// `PRAGMA journal_mode` values.
    public enum JournalMode: String, Sendable {
        /// Write-ahead log: readers do not block the writer nor the writer readers.
        case wal = "WAL"
        /// The rollback journal, deleted after each transaction.
        case delete = "DELETE"
        /// The rollback journal, truncated after each transaction.
        case truncate = "TRUNCATE"
    }

    /// `PRAGMA synchronous` values.
    public enum Synchronous: String, Sendable {
        /// No fsync: fast, unsafe on a crash of the operating system.
        case off = "OFF"
        /// In WAL mode: durable across application crashes, not power loss.
        case normal = "NORMAL"
        /// An fsync per commit: durable across power loss.
        case full = "FULL"
    }

    /// The kind of transaction ``inTransaction(_:_:)`` begins.
    public enum TransactionKind: String, Sendable {
        /// `BEGIN DEFERRED`: takes locks on first read or write. A deferred transaction that
        /// reads and then writes may fail with `SQLITE_BUSY` without waiting, because it
        /// cannot be upgraded while another connection writes.
        case deferred = "DEFERRED"
        /// `BEGIN IMMEDIATE`: takes the write lock at once, waiting up to the busy timeout.
        /// The default: sqlite.org recommends it for transactions that will write
        /// (https://www.sqlite.org/lang_transaction.html).
        case immediate = "IMMEDIATE"
        /// `BEGIN EXCLUSIVE`: like immediate (in WAL mode).
        case exclusive = "EXCLUSIVE"
    }

    /// The `sqlite3` handle; nil once the connection is closed (`close()`): every use goes
    /// through `liveHandle(_:)` (which throws `SQLITE_MISUSE` then) or checks for nil.
    private var handle: OpaquePointer?
    /// The path the connection was opened with.
    public let path: String
    /// The options it was opened with (`reopen()` uses them again).
    let options: Options
    private var statementCache: [String: Statement] = [:]
    private var tracer: Tracer?
    private var savepointDepth = 0

    /// Opens (and by default creates) the database at `path` (`":memory:"` for a private
    /// in-memory database) and sets it up as described in ``Options``.
    ///
    /// A file that is not a database fails here with `SQLITE_NOTADB` (the set-up statements
    /// read its header).
    ///
    /// ```swift
    /// let connection = try Connection(path: "/tmp/app.sqlite", options: .init(busyTimeout: .seconds(1)))
    /// ```
    public init(path: String, options: Options = Options()) throws(SQLiteError) {
        self.path = path
        self.options = options
        try openHandle(create: options.create)
    }

    deinit {
        close()
    }

    /// Opens the handle and sets the connection up.
    private func openHandle(create: Bool) throws(SQLiteError) {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        if options.readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        var opened: OpaquePointer?
        let code = sqlite3_open_v2(path, &opened, flags, nil)
        guard code == SQLITE_OK, let opened else {
            let error = SQLiteError(resultCode: code, db: opened, sql: nil)
            sqlite3_close_v2(opened)
            throw SQLiteError(code: error.code, message: "cannot open \(path): \(error.message)")
        }
        handle = opened
        sqlite3_extended_result_codes(opened, 1)
        let (seconds, attoseconds) = options.busyTimeout.components
        let milliseconds = max(0, min(Int64(Int32.max), seconds * 1000 + attoseconds / 1_000_000_000_000_000))
        sqlite3_busy_timeout(opened, Int32(milliseconds))
        // `tether_lower(text)`: text lowered as Swift lowers it (typed conditions that ignore case).
        sqlite3_create_function_v2(
            opened, "tether_lower", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nil, tetherLower, nil, nil, nil)
        do {
            // The first statement reads the file's header: a file that is not a database fails here.
            if let journalMode = options.journalMode, !options.readOnly, !isReadOnly {
                _ = try prepare("PRAGMA journal_mode = \(journalMode.rawValue)").rows()
            } else {
                _ = try prepare("PRAGMA schema_version").rows()
            }
            try execute("PRAGMA synchronous = \(options.synchronous.rawValue)")
            try execute("PRAGMA foreign_keys = \(options.foreignKeys ? "ON" : "OFF")")
        } catch {
            close()
            throw error
        }
    }

    /// Closes the connection now: finalizes the cached statements, rolls back an unfinished
    /// transaction and closes the handle (`sqlite3_close_v2`). When it is the database's last
    /// connection, SQLite then checkpoints the write-ahead log into the database file and
    /// deletes the `-wal` and `-shm` files. From then on every call fails with `SQLITE_MISUSE`
    /// ("the connection to PATH is closed"); the properties that cannot throw say the
    /// connection is read-only, outside a transaction, with no changes. Closing again does
    /// nothing.
    ///
    /// A statement from ``prepare(_:)`` still held elsewhere keeps SQLite's side of the handle
    /// alive until it is freed (that is what `sqlite3_close_v2` does), so the files are only
    /// cleaned up then.
    func close() {
        guard let open = handle else { return }
        if tracer != nil { sqlite3_trace_v2(open, 0, nil, nil) }
        tracer = nil
        statementCache.removeAll()
        // Roll back now so that an unfinished transaction's locks are released even if a
        // statement keeps SQLite's side of the handle alive.
        if sqlite3_get_autocommit(open) == 0 { sqlite3_exec(open, "ROLLBACK", nil, nil, nil) }
        handle = nil
        savepointDepth = 0
        sqlite3_close_v2(open)
    }

    /// Closes the connection (if open) and opens it again on the same path with the same
    /// options, except that the file is never created: a connection that SQLite opened
    /// read-only because the file could not be written (`isReadOnly`) can write once the file
    /// is writable again. The statement cache is emptied and a `trace(_:)` handler removed. If
    /// opening fails, the error is thrown and the connection stays closed (a later `reopen()`
    /// may open it).
    ///
    /// The old handle is closed first, not after: SQLite shares one `-shm` mapping between the
    /// connections of a process, so a read-only mapping would outlive the reopening otherwise.
    func reopen() throws(SQLiteError) {
        close()
        try openHandle(create: false)
    }

    /// Whether the connection was closed (`close()`).
    var isClosed: Bool { handle == nil }

    /// The open handle, or `SQLITE_MISUSE` naming the statement once the connection is closed.
    private func liveHandle(_ sql: String? = nil) throws(SQLiteError) -> OpaquePointer {
        guard let handle else { throw SQLiteError(code: .misuse, message: "the connection to \(path) is closed", sql: sql) }
        return handle
    }

    // MARK: Running SQL

    /// Runs a script: one or more statements separated by semicolons, without arguments.
    /// An error names the statement that failed; the statements before it have run.
    ///
    /// ```swift
    /// try connection.execute("""
    ///     CREATE TABLE a (id INTEGER PRIMARY KEY);
    ///     CREATE TABLE b (id INTEGER PRIMARY KEY, a INTEGER REFERENCES a(id));
    ///     """)
    /// ```
    public func execute(_ sql: String) throws(SQLiteError) {
        let handle = try liveHandle(Self.trimmed(sql))
        let failure: SQLiteError? = sql.withCString { start in
            var cursor = Self.skippingWhitespace(start)
            while cursor.pointee != 0 {
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let code = sqlite3_prepare_v2(handle, cursor, -1, &statement, &tail)
                guard code == SQLITE_OK else {
                    sqlite3_finalize(statement)
                    return SQLiteError(resultCode: code, db: handle, sql: Self.trimmed(String(cString: cursor)))
                }
                defer { sqlite3_finalize(statement) }
                if let statement {
                    var step = sqlite3_step(statement)
                    while step == SQLITE_ROW { step = sqlite3_step(statement) }
                    guard step == SQLITE_DONE else {
                        let text = sqlite3_sql(statement).map { String(cString: $0) }
                        return SQLiteError(resultCode: step, db: handle, sql: text)
                    }
                }
                guard let tail, tail != cursor else { break }
                cursor = Self.skippingWhitespace(tail)
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Runs one statement with arguments (through the statement cache), ignoring any rows.
    ///
    /// ```swift
    /// try connection.execute("UPDATE Invoice SET quantity = ? WHERE id = ?", [3, 1])
    /// ```
    public func execute(_ sql: String, _ arguments: [SQLiteValue]) throws(SQLiteError) {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        try statement.run()
    }

    /// Runs one statement with arguments (through the statement cache) and returns its rows.
    ///
    /// ```swift
    /// let rows = try connection.rows("SELECT id, customer FROM Invoice WHERE quantity > ?", [2])
    /// ```
    public func rows(_ sql: String, _ arguments: [SQLiteValue] = []) throws(SQLiteError) -> [SQLiteRow] {
        let statement = try cachedStatement(sql)
        try statement.bind(arguments)
        return try statement.rows()
    }

    /// The first column of the first row as a `Value`, or nil when there is no row.
    ///
    /// ```swift
    /// let total = try connection.scalar("SELECT sum(quantity) FROM Invoice", as: Int?.self)
    /// ```
    public func scalar<Value: SQLiteConvertible>(
        _ sql: String, _ arguments: [SQLiteValue] = [], as type: Value.Type = Value.self
    ) throws(SQLiteError) -> Value? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(arguments)
        guard try statement.step() else { return nil }
        return try statement.column(0, as: Value.self)
    }

    /// Prepares one statement, for you alone (not cached).
    ///
    /// ```swift
    /// let insert = try connection.prepare("INSERT INTO Invoice (customer) VALUES (?)")
    /// for name in ["Ada", "Grace"] {
    ///     try insert.bind([.text(name)])
    ///     try insert.run()
    /// }
    /// ```
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(db: liveHandle(sql), sql: sql, persistent: false)
    }

    /// The connection's cached statement for `sql`, prepared on first use, reset and with its
    /// bindings cleared.
    ///
    /// The cache is keyed by the exact SQL text. Asking for the same SQL again returns the same
    /// statement, reset: finish reading one use before starting another.
    ///
    /// ```swift
    /// let load = try connection.cachedStatement("SELECT customer FROM Invoice WHERE id = ?")
    /// try load.bind(id, at: 1)
    /// ```
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        let handle = try liveHandle(sql)
        if let statement = statementCache[sql] {
            statement.reset()
            statement.clearBindings()
            return statement
        }
        let statement = try Statement(db: handle, sql: sql, persistent: true)
        statementCache[sql] = statement
        return statement
    }

    /// Finalizes the cached statements (for example before closing, or after a schema change
    /// you want to recompile for).
    public func clearStatementCache() {
        statementCache.removeAll()
    }

    /// The number of statements in the cache.
    public var cachedStatementCount: Int { statementCache.count }

    // MARK: Transactions

    /// Runs `body` in a transaction: commits if it returns, rolls back if it throws (and
    /// rethrows its error). Inside another transaction, it uses a savepoint instead, so
    /// transactions nest.
    ///
    /// ```swift
    /// try connection.inTransaction {
    ///     try connection.execute("UPDATE Account SET balance = balance - 10 WHERE id = 1", [])
    ///     try connection.execute("UPDATE Account SET balance = balance + 10 WHERE id = 2", [])
    /// }
    /// ```
    ///
    /// If the commit itself fails (`SQLITE_BUSY`, `SQLITE_FULL`...), the transaction is rolled
    /// back and the commit's error is thrown.
    @discardableResult
    public func inTransaction<Result>(_ kind: TransactionKind = .immediate, _ body: () throws -> Result) throws -> Result {
        if isInTransaction { return try inSavepoint(body) }
        try execute("BEGIN \(kind.rawValue) TRANSACTION", [])
        let result: Result
        do {
            result = try body()
            try execute("COMMIT TRANSACTION", [])
        } catch {
            rollbackIfNeeded()
            throw error
        }
        return result
    }

    private func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        savepointDepth += 1
        defer { savepointDepth -= 1 }
        let name = "tether_savepoint_\(savepointDepth)"
        try execute("SAVEPOINT \(name)", [])
        let result: Result
        do {
            result = try body()
            try execute("RELEASE SAVEPOINT \(name)", [])
        } catch {
            if isInTransaction {
                try? execute("ROLLBACK TRANSACTION TO SAVEPOINT \(name)", [])
                try? execute("RELEASE SAVEPOINT \(name)", [])
            }
            throw error
        }
        return result
    }

    /// Rolls back the current transaction, if SQLite has not already done so (some errors,
    /// such as `SQLITE_FULL`, roll back on their own).
    private func rollbackIfNeeded() {
        guard isInTransaction else { return }
        try? execute("ROLLBACK TRANSACTION", [])
    }

    /// Whether a transaction is open (`sqlite3_get_autocommit` is off).
    public var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    // MARK: State

    /// The rowid of the most recent successful INSERT (`sqlite3_last_insert_rowid`).
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// The number of rows changed by the most recent INSERT, UPDATE or DELETE
    /// (`sqlite3_changes64`).
    public var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// The number of rows changed since the connection opened (`sqlite3_total_changes64`).
    public var totalChanges: Int { handle.map { Int(sqlite3_total_changes64($0)) } ?? 0 }

    /// Whether the main database is read-only for this connection (opened read-only, or a file
    /// the process cannot write; true once the connection is closed).
    public var isReadOnly: Bool { handle.map { sqlite3_db_readonly($0, "main") == 1 } ?? true }

    /// `PRAGMA data_version`: changes whenever another connection commits a change to the
    /// database (never for this connection's own commits). Compare two readings to learn
    /// whether to reload.
    ///
    /// ```swift
    /// let before = try connection.dataVersion()
    /// // ... another connection commits ...
    /// try connection.dataVersion() != before   // true
    /// ```
    public func dataVersion() throws(SQLiteError) -> Int64 {
        try scalar("PRAGMA data_version", as: Int64.self) ?? 0
    }

    /// `PRAGMA user_version`: an integer the application may use freely (Tether's migrator
    /// does not use it).
    public func userVersion() throws(SQLiteError) -> Int {
        try scalar("PRAGMA user_version", as: Int.self) ?? 0
    }

    /// Sets `PRAGMA user_version`.
    ///
    /// ```swift
    /// try connection.setUserVersion(3)
    /// ```
    public func setUserVersion(_ version: Int32) throws(SQLiteError) {
        try execute("PRAGMA user_version = \(version)")
    }

    /// The journal mode in effect (`wal`, `delete`, `memory`...).
    public func journalMode() throws(SQLiteError) -> String {
        try scalar("PRAGMA journal_mode", as: String.self) ?? ""
    }

    /// Whether a table (or view) named `name` exists in the main database.
    public func tableExists(_ name: String) throws(SQLiteError) -> Bool {
        try scalar(
            "SELECT 1 FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
            [.text(name)], as: Int.self) != nil
    }

    /// The columns of table `name` (`PRAGMA table_info`), in order; empty when there is no
    /// such table.
    ///
    /// ```swift
    /// try connection.columns(in: "Invoice").map(\.name)   // ["id", "customer", ...]
    /// ```
    public func columns(in table: String) throws(SQLiteError) -> [TableColumnInfo] {
        let statement = try prepare("SELECT cid, name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)")
        try statement.bind(.text(table), at: 1)
        var columns: [TableColumnInfo] = []
        while try statement.step() {
            columns.append(
                TableColumnInfo(
                    position: try statement.column(0, as: Int.self),
                    name: try statement.column(1, as: String.self),
                    declaredType: try statement.column(2, as: String.self),
                    isNotNull: try statement.column(3, as: Bool.self),
                    defaultSQL: try statement.column(4, as: String?.self),
                    primaryKeyPosition: try statement.column(5, as: Int.self)))
        }
        return columns
    }

    // MARK: Triggers

    /// Whether the connection runs triggers (`SQLITE_DBCONFIG_ENABLE_TRIGGER`; on unless
    /// `withTriggersDisabled` is running).
    var triggersEnabled: Bool {
        guard let handle else { return false }
        var enabled: Int32 = 0
        _ = tether_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, -1, &enabled)
        return enabled != 0
    }

    /// Runs `body` with the connection's triggers off (`SQLITE_DBCONFIG_ENABLE_TRIGGER`), and
    /// turns them back on after it, whether it returns or throws.
    ///
    /// SQLite decides whether a statement runs triggers when it prepares it, so each change of
    /// the setting expires every prepared statement of the connection, the cached ones included:
    /// each is prepared again, by SQLite, on its next step. Worth it only for big batches.
    func withTriggersDisabled<Result>(_ body: () throws -> Result) throws -> Result {
        let handle = try liveHandle()
        var enabled: Int32 = 1
        let code = tether_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &enabled)
        guard code == SQLITE_OK, enabled == 0 else {
            throw SQLiteError(resultCode: code == SQLITE_OK ? SQLITE_ERROR : code, db: handle, sql: nil)
        }
        defer {
            // Cannot fail for a valid handle: this option only sets a flag. (Read again: the
            // handle is gone if `body` closed the connection.)
            if let handle = self.handle { _ = tether_sqlite3_db_config_int(handle, SQLITE_DBCONFIG_ENABLE_TRIGGER, 1, &enabled) }
        }
        return try body()
    }

    // MARK: Tracing

    /// Calls `handler` with the SQL of every statement as it starts running
    /// (`sqlite3_trace_v2` with `SQLITE_TRACE_STMT`: the text as prepared, parameters
    /// unexpanded; statements run by triggers appear as `-- TRIGGER name`). Pass nil to stop.
    ///
    /// The handler runs synchronously, inside the SQLite call, in the connection's context.
    ///
    /// ```swift
    /// var statements: [String] = []
    /// connection.trace { statements.append($0) }
    /// try connection.inTransaction { try connection.execute("DELETE FROM Invoice", []) }
    /// statements   // ["BEGIN IMMEDIATE TRANSACTION", "DELETE FROM Invoice", "COMMIT TRANSACTION"]
    /// ```
    ///
    /// On a closed connection it does nothing.
    public func trace(_ handler: ((String) -> Void)?) {
        guard let handle else { return }
        guard let handler else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            tracer = nil
            return
        }
        let tracer = Tracer(handler)
        self.tracer = tracer
        // The context pointer is unretained: `self.tracer` keeps the tracer alive, and the
        // callback is removed (above, or in deinit) before the tracer is released.
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, _, text in
            guard let context, let text else { return 0 }
            let sql = String(cString: text.assumingMemoryBound(to: CChar.self))
            Unmanaged<Tracer>.fromOpaque(context).takeUnretainedValue().handler(sql)
            return 0
        }, Unmanaged.passUnretained(tracer).toOpaque())
    }

    /// The tables a statement reads: those of its `FROM` clauses, joins and subqueries, and
    /// the views it reads with the tables under them. Found by preparing it (not running it) with an
    /// authorizer (`sqlite3_set_authorizer`, `SQLITE_READ`); SQLite's own tables are left out.
    ///
    /// ```swift
    /// try connection.tablesRead(by: "SELECT id FROM Invoice WHERE customer IN (SELECT name FROM Customer)")
    /// // ["Invoice", "Customer"]
    /// ```
    public func tablesRead(by sql: String) throws(SQLiteError) -> Set<String> {
        let handle = try liveHandle(sql)
        let collector = TableCollector()
        // The context pointer is unretained: `collector` lives until the authorizer is removed.
        sqlite3_set_authorizer(handle, { context, action, table, _, _, _ in
            if action == SQLITE_READ, let context, let table {
                let name = String(cString: table)
                if !name.hasPrefix("sqlite_") {
                    Unmanaged<TableCollector>.fromOpaque(context).takeUnretainedValue().tables.insert(name)
                }
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(collector).toOpaque())
        defer {
            sqlite3_set_authorizer(handle, nil, nil)
            withExtendedLifetime(collector) {}
        }
        _ = try prepare(sql)
        return collector.tables
    }

    private final class TableCollector {
        var tables: Set<String> = []
    }

    private final class Tracer {
        let handler: (String) -> Void
        init(_ handler: @escaping (String) -> Void) { self.handler = handler }
    }

    // MARK: Helpers

    /// Whether `text` holds only whitespace and SQL comments.
    static func isBlankSQL(_ text: UnsafePointer<CChar>) -> Bool {
        var cursor = text
        while true {
            switch UInt8(bitPattern: cursor.pointee) {
            case 0:
                return true
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
                cursor += 1
            case UInt8(ascii: "-") where UInt8(bitPattern: cursor[1]) == UInt8(ascii: "-"):
                while cursor.pointee != 0 && cursor.pointee != 0x0A { cursor += 1 }
            case UInt8(ascii: "/") where UInt8(bitPattern: cursor[1]) == UInt8(ascii: "*"):
                cursor += 2
                while cursor.pointee != 0 && !(cursor.pointee == 0x2A && cursor[1] == 0x2F) { cursor += 1 }
                if cursor.pointee != 0 { cursor += 2 }
            case UInt8(ascii: ";"):
                cursor += 1
            default:
                return false
            }
        }
    }

    /// The first character of `text` that is not whitespace.
    static func skippingWhitespace(_ text: UnsafePointer<CChar>) -> UnsafePointer<CChar> {
        var cursor = text
        while [0x20, 0x09, 0x0A, 0x0D, 0x0C].contains(cursor.pointee) { cursor += 1 }
        return cursor
    }

    /// `sql` without surrounding whitespace.
    static func trimmed(_ sql: String) -> String {
        var text = Substring(sql)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}

/// One column of a table, as `PRAGMA table_info` describes it.
public struct TableColumnInfo: Sendable, Hashable {
    /// The column's position (0-based).
    public var position: Int
    /// The column's name.
    public var name: String
    /// The declared type as written in `CREATE TABLE` (may be empty).
    public var declaredType: String
    /// Whether the column is NOT NULL.
    public var isNotNull: Bool
    /// The DEFAULT expression as written, or nil.
    public var defaultSQL: String?
    /// The column's position in the primary key (1-based), or 0 if it is not part of it.
    public var primaryKeyPosition: Int

    /// Creates a column description.
    public init(position: Int, name: String, declaredType: String, isNotNull: Bool, defaultSQL: String?, primaryKeyPosition: Int) {
        self.position = position
        self.name = name
        self.declaredType = declaredType
        self.isNotNull = isNotNull
        self.defaultSQL = defaultSQL
        self.primaryKeyPosition = primaryKeyPosition
    }
}

/// `tether_lower(x)`: the text of `x` lowered as Swift's `lowercased()` lowers it (every
/// script's letters; SQLite's `lower` folds ASCII letters only); NULL for NULL, numbers as text.
private func tetherLower(_ context: OpaquePointer?, _ count: Int32, _ values: UnsafeMutablePointer<OpaquePointer?>?) {
    guard let value = values?[0], sqlite3_value_type(value) != SQLITE_NULL, let text = sqlite3_value_text(value) else {
        sqlite3_result_null(context)
        return
    }
    let bytes = Int(sqlite3_value_bytes(value))
    let lowered = String(decoding: UnsafeBufferPointer(start: text, count: bytes), as: UTF8.self).lowercased()
    var utf8 = Array(lowered.utf8)
    if utf8.isEmpty { utf8.append(0) }   // a valid pointer for the empty text
    utf8.withUnsafeBufferPointer { buffer in
        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { pointer in
            sqlite3_result_text64(context, pointer, sqlite3_uint64(lowered.utf8.count), tether_sqlite3_transient(), UInt8(SQLITE_UTF8))
        }
    }
}
