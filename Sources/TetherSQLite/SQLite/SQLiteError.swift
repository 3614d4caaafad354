import CSQLite

/// An SQLite result code, usually an extended one (`SQLITE_CONSTRAINT_UNIQUE` rather than
/// `SQLITE_CONSTRAINT`).
///
/// Connections are opened with extended result codes on, so errors carry the most precise code
/// SQLite has. Compare the primary code to ask broad questions:
///
/// ```swift
/// error.code == .constraintUnique          // exactly a UNIQUE violation
/// error.code.primary == .constraint        // any constraint violation
/// print(error.code)                        // SQLITE_CONSTRAINT_UNIQUE (2067)
/// ```
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric code as SQLite returns it.
    public let rawValue: Int32

    /// Wraps a numeric result code.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low byte of an extended code (`SQLITE_CONSTRAINT` for
    /// `SQLITE_CONSTRAINT_UNIQUE`).
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// The C name of the code, for example `SQLITE_BUSY_TIMEOUT`; for a code this table does
    /// not know, the name of its primary code followed by the number.
    public var name: String {
        if let name = Self.names[rawValue] { return name }
        if let name = Self.names[rawValue & 0xFF] { return "\(name)+\(rawValue >> 8)" }
        return "SQLITE_UNKNOWN"
    }

    /// SQLite's English explanation of the code (`sqlite3_errstr`), for example
    /// "database is locked".
    public var explanation: String { String(cString: sqlite3_errstr(rawValue)) }

    /// `SQLITE_CONSTRAINT_UNIQUE (2067)`.
    public var description: String { "\(name) (\(rawValue))" }

    /// `SQLITE_ERROR`: a generic error (often an SQL syntax error or a missing table).
    public static let error = SQLiteResultCode(rawValue: SQLITE_ERROR)
    /// `SQLITE_ABORT`: an operation was aborted (for example a read cut off by a rollback).
    public static let abort = SQLiteResultCode(rawValue: SQLITE_ABORT)
    /// `SQLITE_BUSY`: another connection holds a lock; the busy timeout ran out.
    public static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    /// `SQLITE_LOCKED`: a conflict inside this connection (or a shared cache).
    public static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    /// `SQLITE_NOMEM`: SQLite could not allocate memory.
    public static let noMemory = SQLiteResultCode(rawValue: SQLITE_NOMEM)
    /// `SQLITE_READONLY`: a write on a read-only connection or file.
    public static let readOnly = SQLiteResultCode(rawValue: SQLITE_READONLY)
    /// `SQLITE_IOERR`: the operating system reported an I/O error.
    public static let ioError = SQLiteResultCode(rawValue: SQLITE_IOERR)
    /// `SQLITE_CORRUPT`: the database file is malformed.
    public static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    /// `SQLITE_FULL`: the disk is full, or the database reached `PRAGMA max_page_count`.
    public static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    /// `SQLITE_CANTOPEN`: the file could not be opened (missing directory, permissions...).
    public static let cantOpen = SQLiteResultCode(rawValue: SQLITE_CANTOPEN)
    /// `SQLITE_TOOBIG`: a string or blob exceeds SQLite's size limit.
    public static let tooBig = SQLiteResultCode(rawValue: SQLITE_TOOBIG)
    /// `SQLITE_CONSTRAINT`: a constraint was violated (see the extended codes below).
    public static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    /// `SQLITE_MISMATCH`: a value has the wrong type. Tether also uses this code when a
    /// column's value cannot become the Swift type asked for (see `SQLiteError/mismatch`).
    public static let mismatch = SQLiteResultCode(rawValue: SQLITE_MISMATCH)
    /// `SQLITE_MISUSE`: the library was used incorrectly.
    public static let misuse = SQLiteResultCode(rawValue: SQLITE_MISUSE)
    /// `SQLITE_RANGE`: a parameter index (or argument count) is out of range.
    public static let range = SQLiteResultCode(rawValue: SQLITE_RANGE)
    /// `SQLITE_NOTADB`: the file is not an SQLite database.
    public static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)
    /// `SQLITE_BUSY_TIMEOUT`: a lock could not be obtained within the busy timeout.
    public static let busyTimeout = SQLiteResultCode(rawValue: 773)
    /// `SQLITE_BUSY_SNAPSHOT`: a read transaction could not be upgraded to a write transaction.
    public static let busySnapshot = SQLiteResultCode(rawValue: 517)
    /// `SQLITE_CONSTRAINT_CHECK`: a CHECK constraint failed.
    public static let constraintCheck = SQLiteResultCode(rawValue: 275)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`: a foreign key constraint failed.
    public static let constraintForeignKey = SQLiteResultCode(rawValue: 787)
    /// `SQLITE_CONSTRAINT_NOTNULL`: NULL was written to a NOT NULL column.
    public static let constraintNotNull = SQLiteResultCode(rawValue: 1299)
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`: a primary key is not unique.
    public static let constraintPrimaryKey = SQLiteResultCode(rawValue: 1555)
    /// `SQLITE_CONSTRAINT_UNIQUE`: a UNIQUE constraint failed.
    public static let constraintUnique = SQLiteResultCode(rawValue: 2067)

    private static let names: [Int32: String] = [
        0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
        5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
        9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
        13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
        17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
        21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
        25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
        100: "SQLITE_ROW", 101: "SQLITE_DONE",
        257: "SQLITE_ERROR_MISSING_COLLSEQ", 513: "SQLITE_ERROR_RETRY", 769: "SQLITE_ERROR_SNAPSHOT",
        266: "SQLITE_IOERR_READ", 522: "SQLITE_IOERR_SHORT_READ", 778: "SQLITE_IOERR_WRITE",
        1034: "SQLITE_IOERR_FSYNC", 1290: "SQLITE_IOERR_DIR_FSYNC", 1546: "SQLITE_IOERR_TRUNCATE",
        1802: "SQLITE_IOERR_FSTAT", 2058: "SQLITE_IOERR_UNLOCK", 2314: "SQLITE_IOERR_RDLOCK",
        2570: "SQLITE_IOERR_DELETE", 2826: "SQLITE_IOERR_BLOCKED", 3082: "SQLITE_IOERR_NOMEM",
        3338: "SQLITE_IOERR_ACCESS", 3594: "SQLITE_IOERR_CHECKRESERVEDLOCK", 3850: "SQLITE_IOERR_LOCK",
        4106: "SQLITE_IOERR_CLOSE", 4362: "SQLITE_IOERR_DIR_CLOSE", 4618: "SQLITE_IOERR_SHMOPEN",
        4874: "SQLITE_IOERR_SHMSIZE", 5130: "SQLITE_IOERR_SHMLOCK", 5386: "SQLITE_IOERR_SHMMAP",
        5642: "SQLITE_IOERR_SEEK", 5898: "SQLITE_IOERR_DELETE_NOENT", 6154: "SQLITE_IOERR_MMAP",
        6410: "SQLITE_IOERR_GETTEMPPATH", 6666: "SQLITE_IOERR_CONVPATH", 6922: "SQLITE_IOERR_VNODE",
        7178: "SQLITE_IOERR_AUTH", 7434: "SQLITE_IOERR_BEGIN_ATOMIC", 7690: "SQLITE_IOERR_COMMIT_ATOMIC",
        7946: "SQLITE_IOERR_ROLLBACK_ATOMIC", 8202: "SQLITE_IOERR_DATA", 8458: "SQLITE_IOERR_CORRUPTFS",
        262: "SQLITE_LOCKED_SHAREDCACHE", 518: "SQLITE_LOCKED_VTAB",
        261: "SQLITE_BUSY_RECOVERY", 517: "SQLITE_BUSY_SNAPSHOT", 773: "SQLITE_BUSY_TIMEOUT",
        270: "SQLITE_CANTOPEN_NOTEMPDIR", 526: "SQLITE_CANTOPEN_ISDIR", 782: "SQLITE_CANTOPEN_FULLPATH",
        1038: "SQLITE_CANTOPEN_CONVPATH", 1294: "SQLITE_CANTOPEN_DIRTYWAL", 1550: "SQLITE_CANTOPEN_SYMLINK",
        267: "SQLITE_CORRUPT_VTAB", 523: "SQLITE_CORRUPT_SEQUENCE", 779: "SQLITE_CORRUPT_INDEX",
        264: "SQLITE_READONLY_RECOVERY", 520: "SQLITE_READONLY_CANTLOCK", 776: "SQLITE_READONLY_ROLLBACK",
        1032: "SQLITE_READONLY_DBMOVED", 1288: "SQLITE_READONLY_CANTINIT", 1544: "SQLITE_READONLY_DIRECTORY",
        516: "SQLITE_ABORT_ROLLBACK",
        275: "SQLITE_CONSTRAINT_CHECK", 531: "SQLITE_CONSTRAINT_COMMITHOOK", 787: "SQLITE_CONSTRAINT_FOREIGNKEY",
        1043: "SQLITE_CONSTRAINT_FUNCTION", 1299: "SQLITE_CONSTRAINT_NOTNULL", 1555: "SQLITE_CONSTRAINT_PRIMARYKEY",
        1811: "SQLITE_CONSTRAINT_TRIGGER", 2067: "SQLITE_CONSTRAINT_UNIQUE", 2323: "SQLITE_CONSTRAINT_VTAB",
        2579: "SQLITE_CONSTRAINT_ROWID", 2835: "SQLITE_CONSTRAINT_PINNED", 3091: "SQLITE_CONSTRAINT_DATATYPE",
        283: "SQLITE_NOTICE_RECOVER_WAL", 539: "SQLITE_NOTICE_RECOVER_ROLLBACK", 284: "SQLITE_WARNING_AUTOINDEX",
        279: "SQLITE_AUTH_USER", 256: "SQLITE_OK_LOAD_PERMANENTLY", 512: "SQLITE_OK_SYMLINK",
    ]
}

/// The one error type of Tether's SQLite layer: what SQLite said, and about which SQL.
///
/// Every failing SQLite call becomes an `SQLiteError` carrying the extended result code
/// (`sqlite3_extended_errcode`), SQLite's message (`sqlite3_errmsg`) and the SQL being run.
/// A value read from a column that cannot become the Swift type asked for (TEXT `'abc'` read as
/// an `Int`, NULL read as a non-optional, 1000 read as an `Int8`) is an `SQLiteError` too, with
/// the code `SQLITE_MISMATCH` and a ``Mismatch`` naming the table, column, expected type and the
/// value found.
///
/// ```swift
/// do {
///     try connection.execute("INSERT INTO Invoice (id) VALUES (?)", [1])
/// } catch let error as SQLiteError where error.isConstraint {
///     print(error.code)        // SQLITE_CONSTRAINT_PRIMARYKEY (1555)
///     print(error)             // SQLITE_CONSTRAINT_PRIMARYKEY (1555): UNIQUE constraint failed:
///                              //   Invoice.id — SQL: INSERT INTO Invoice (id) VALUES (?)
/// }
/// ```
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The extended result code (for example `SQLITE_CONSTRAINT_UNIQUE`).
    public let code: SQLiteResultCode
    /// SQLite's message (`sqlite3_errmsg`), or Tether's for a ``Mismatch``.
    public let message: String
    /// The SQL being prepared or run, when there was one.
    public let sql: String?
    /// For `SQLITE_MISMATCH` errors raised while converting a value: what was expected and
    /// what was found.
    public let mismatch: Mismatch?

    /// A value that cannot be converted to the Swift type asked for (or, when writing, a Swift
    /// value that SQLite cannot store faithfully).
    public struct Mismatch: Sendable, Equatable, CustomStringConvertible {
        /// The table the column belongs to, when SQLite knows it (a direct column reference).
        public var table: String?
        /// The column's name (its origin name when SQLite knows it, else its result name).
        public var column: String?
        /// The Swift type (or storage) that was expected, for example `Int8`.
        public var expected: String
        /// What was found, for example `TEXT 'abc'` or `INTEGER 1000 (out of range)`.
        public var found: String

        /// Creates a mismatch description.
        public init(table: String? = nil, column: String? = nil, expected: String, found: String) {
            self.table = table
            self.column = column
            self.expected = expected
            self.found = found
        }

        /// `Invoice.quantity holds TEXT 'abc', expected Int`.
        public var description: String {
            let place: String
            switch (table, column) {
            case let (table?, column?): place = "\(table).\(column) holds "
            case let (nil, column?): place = "column \(column) holds "
            default: place = "value "
            }
            return "\(place)\(found), expected \(expected)"
        }
    }

    /// Creates an error. Prefer the connection's and statement's methods, which create errors
    /// from SQLite's state.
    public init(code: SQLiteResultCode, message: String, sql: String? = nil, mismatch: Mismatch? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.mismatch = mismatch
    }

    /// A conversion error (`SQLITE_MISMATCH`). Conformances of ``SQLiteConvertible`` throw it;
    /// ``Statement/column(_:as:)`` adds the table, column and SQL.
    ///
    /// ```swift
    /// throw SQLiteError.mismatch(expected: "Weekday", found: "TEXT 'Caturday' (no such case)")
    /// ```
    public static func mismatch(expected: String, found: String) -> SQLiteError {
        let mismatch = Mismatch(expected: expected, found: found)
        return SQLiteError(code: .mismatch, message: mismatch.description, mismatch: mismatch)
    }

    /// A copy with the place of a mismatch filled in (table, column, SQL).
    func locating(table: String?, column: String?, sql: String?) -> SQLiteError {
        guard var mismatch else {
            return SQLiteError(code: code, message: message, sql: self.sql ?? sql, mismatch: nil)
        }
        if mismatch.table == nil { mismatch.table = table }
        if mismatch.column == nil { mismatch.column = column }
        return SQLiteError(code: code, message: mismatch.description, sql: self.sql ?? sql, mismatch: mismatch)
    }

    /// `SQLITE_BUSY` (any extended form): another connection held a lock past the busy timeout.
    public var isBusy: Bool { code.primary == .busy }
    /// `SQLITE_LOCKED`: a conflict within this connection or its shared cache.
    public var isLocked: Bool { code.primary == .locked }
    /// `SQLITE_READONLY`: a write on a read-only connection, file or `PRAGMA query_only`.
    public var isReadOnly: Bool { code.primary == .readOnly }
    /// `SQLITE_FULL`: the disk (or `PRAGMA max_page_count`) is full.
    public var isFull: Bool { code.primary == .full }
    /// `SQLITE_CONSTRAINT`: UNIQUE, NOT NULL, FOREIGN KEY, CHECK, PRIMARY KEY...
    public var isConstraint: Bool { code.primary == .constraint }
    /// `SQLITE_NOTADB`: the file is not an SQLite database.
    public var isNotADatabase: Bool { code.primary == .notADatabase }
    /// `SQLITE_CORRUPT`: the database file is malformed.
    public var isCorrupt: Bool { code.primary == .corrupt }
    /// `SQLITE_CANTOPEN`: the file could not be opened.
    public var isCantOpen: Bool { code.primary == .cantOpen }
    /// `SQLITE_IOERR`: an operating-system I/O error.
    public var isIOError: Bool { code.primary == .ioError }
    /// `SQLITE_MISMATCH`: a value of the wrong type (see ``mismatch``).
    public var isMismatch: Bool { code.primary == .mismatch }

    /// `SQLITE_CONSTRAINT_UNIQUE (2067): UNIQUE constraint failed: t.a — SQL: INSERT ...`.
    public var description: String {
        var text = "\(code): \(message)"
        if let sql { text += " — SQL: \(sql)" }
        return text
    }
}

extension SQLiteError {
    /// The error SQLite reports for `db` after a call returned `resultCode`.
    ///
    /// With `SQLITE_OPEN_EXRESCODE` calls return extended codes; if a call returned only a
    /// primary code, the connection's extended code is used when it refines it.
    init(resultCode: Int32, db: OpaquePointer?, sql: String?) {
        var code = resultCode
        var message = String(cString: sqlite3_errstr(resultCode))
        if let db {
            let extended = sqlite3_extended_errcode(db)
            if code & 0xFF == code, extended & 0xFF == code { code = extended }
            if extended & 0xFF == code & 0xFF, let text = sqlite3_errmsg(db) { message = String(cString: text) }
        }
        self.init(code: SQLiteResultCode(rawValue: code), message: message, sql: sql)
    }
}
