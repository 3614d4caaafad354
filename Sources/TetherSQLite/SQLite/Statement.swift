import CSQLite

/// A prepared SQL statement: owns its `sqlite3_stmt` and finalizes it in `deinit`.
///
/// Get one from ``Connection/prepare(_:)`` (yours alone) or ``Connection/cachedStatement(_:)``
/// (shared through the connection's cache). Parameters are numbered from 1, as in SQLite;
/// result columns from 0.
///
/// ```swift
/// let statement = try connection.prepare("SELECT customer, quantity FROM Invoice WHERE quantity > ?")
/// try statement.bind([2])
/// while try statement.step() {
///     let customer = try statement.column(0, as: String.self)
///     let quantity = try statement.column(1, as: Int.self)
///     print(customer, quantity)
/// }
/// ```
///
/// A statement belongs to its connection's context: it is not `Sendable` and must only be used
/// where its connection is (see ``Connection``). It may outlive its connection: SQLite keeps a
/// closed connection's handle alive until its last statement is finalized (`sqlite3_close_v2`).
public final class Statement {
    /// The `sqlite3_stmt` handle.
    let handle: OpaquePointer
    /// The connection's `sqlite3` handle, for error messages.
    let db: OpaquePointer
    /// The statement's SQL, as prepared.
    public let sql: String

    init(db: OpaquePointer, sql: String, persistent: Bool) throws(SQLiteError) {
        var handle: OpaquePointer?
        var tailIsEmpty = true
        let flags: UInt32 = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sql.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(db, start, -1, flags, &handle, &tail)
            if code == SQLITE_OK, let tail { tailIsEmpty = Connection.isBlankSQL(tail) }
            return code
        }
        guard code == SQLITE_OK else {
            sqlite3_finalize(handle)
            throw SQLiteError(resultCode: code, db: db, sql: sql)
        }
        guard let handle else {
            throw SQLiteError(code: .misuse, message: "no SQL statement to prepare (only whitespace or comments)", sql: sql)
        }
        guard tailIsEmpty else {
            sqlite3_finalize(handle)
            throw SQLiteError(
                code: .misuse,
                message: "prepare takes one statement; run scripts of several statements with execute(_:)",
                sql: sql)
        }
        self.handle = handle
        self.db = db
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    /// The number of parameters (`?`, `?NNN`, `:name`, `@name`, `$name`) in the statement.
    public var parameterCount: Int { Int(sqlite3_bind_parameter_count(handle)) }

    /// The 1-based index of the parameter named `name` (including its prefix: `":id"`), or nil.
    public func parameterIndex(_ name: String) -> Int? {
        let index = sqlite3_bind_parameter_index(handle, name)
        return index == 0 ? nil : Int(index)
    }

    /// Binds `value` to the parameter at `index` (1-based).
    ///
    /// ```swift
    /// try statement.bind(.text("Ada"), at: 1)
    /// ```
    public func bind(_ value: SQLiteValue, at index: Int) throws(SQLiteError) {
        let position = Int32(truncatingIfNeeded: index)
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, position)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, position, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, position, real)
        case .text(var text):
            code = text.withUTF8 { buffer in
                // An empty buffer may have no base address, which SQLite would bind as NULL.
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_text(handle, position, "", 0, tether_sqlite3_transient())
                }
                return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    sqlite3_bind_text64(handle, position, $0, sqlite3_uint64(buffer.count),
                                        tether_sqlite3_transient(), UInt8(SQLITE_UTF8))
                }
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress, buffer.count > 0 else {
                    return sqlite3_bind_zeroblob(handle, position, 0)
                }
                return sqlite3_bind_blob64(handle, position, base, sqlite3_uint64(buffer.count), tether_sqlite3_transient())
            }
        }
        guard code == SQLITE_OK else {
            if code == SQLITE_RANGE {
                throw SQLiteError(
                    code: .range,
                    message: "no parameter \(index): the statement has \(parameterCount) (parameters are numbered from 1)",
                    sql: sql)
            }
            throw SQLiteError(resultCode: code, db: db, sql: sql)
        }
    }

    /// Binds a Swift value to the parameter at `index` (1-based).
    ///
    /// ```swift
    /// try statement.bind(invoice.quantity, at: 2)
    /// ```
    public func bind<Value: SQLiteConvertible>(_ value: Value, at index: Int) throws(SQLiteError) {
        let converted: SQLiteValue
        do { converted = try value.sqliteValue() } catch { throw error.locating(table: nil, column: "parameter \(index)", sql: sql) }
        try bind(converted, at: index)
    }

    /// Binds `value` to the parameter named `name` (with its prefix, `":customer"`).
    ///
    /// ```swift
    /// try statement.bind("Ada", named: ":customer")
    /// ```
    public func bind(_ value: SQLiteValue, named name: String) throws(SQLiteError) {
        guard let index = parameterIndex(name) else {
            throw SQLiteError(code: .range, message: "no parameter named \(name)", sql: sql)
        }
        try bind(value, at: index)
    }

    /// Binds a Swift value to the parameter named `name`.
    public func bind<Value: SQLiteConvertible>(_ value: Value, named name: String) throws(SQLiteError) {
        guard let index = parameterIndex(name) else {
            throw SQLiteError(code: .range, message: "no parameter named \(name)", sql: sql)
        }
        try bind(value, at: index)
    }

    /// Binds all parameters, in order. The count must match the statement's parameters.
    ///
    /// ```swift
    /// try statement.bind(["Ada", 3])
    /// ```
    public func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        guard values.count == parameterCount else {
            throw SQLiteError(
                code: .range,
                message: "the statement has \(parameterCount) parameter(s) but \(values.count) argument(s) were given",
                sql: sql)
        }
        for (offset, value) in values.enumerated() { try bind(value, at: offset + 1) }
    }

    /// Binds named parameters (`[":customer": "Ada"]`); parameters not named keep their values.
    public func bind(_ values: [String: SQLiteValue]) throws(SQLiteError) {
        for (name, value) in values { try bind(value, named: name) }
    }

    /// Sets every parameter back to NULL.
    public func clearBindings() {
        sqlite3_clear_bindings(handle)
    }

    // MARK: Running

    /// Runs the statement to its next row: true when a row is available (read it with
    /// ``column(_:as:)``), false when the statement is done.
    ///
    /// After `false` or an error, call ``reset()`` before running the statement again
    /// (``run()`` and ``rows()`` do it for you).
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(resultCode: code, db: db, sql: sql)
        }
    }

    /// Resets the statement so it can run again (bindings are kept). The error of a failed
    /// step was already thrown by ``step()``, so `reset` does not throw.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Runs the statement to completion, ignoring rows, then resets it.
    ///
    /// ```swift
    /// try connection.prepare("DELETE FROM Invoice WHERE quantity = 0").run()
    /// ```
    public func run() throws(SQLiteError) {
        defer { reset() }
        while try step() {}
    }

    /// Runs the statement and collects every row, then resets it.
    ///
    /// ```swift
    /// let rows = try connection.prepare("SELECT id, customer FROM Invoice").rows()
    /// rows[0]["customer"]   // .text("Ada")
    /// ```
    public func rows() throws(SQLiteError) -> [SQLiteRow] {
        defer { reset() }
        let names = (0..<columnCount).map(columnName)
        var rows: [SQLiteRow] = []
        while try step() {
            var values: [SQLiteValue] = []
            values.reserveCapacity(names.count)
            for index in names.indices { values.append(try value(at: index)) }
            rows.append(SQLiteRow(columnNames: names, values: values))
        }
        return rows
    }

    /// Whether the statement writes nothing (`sqlite3_stmt_readonly`).
    public var isReadOnly: Bool { sqlite3_stmt_readonly(handle) != 0 }

    // MARK: Columns

    /// The number of columns in the result.
    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// The name of result column `index` (0-based): its alias, or its name.
    public func columnName(_ index: Int) -> String {
        sqlite3_column_name(handle, Int32(truncatingIfNeeded: index)).map { String(cString: $0) } ?? "column \(index)"
    }

    /// Whether column `index` of the current row is NULL.
    public func isNull(at index: Int) -> Bool {
        sqlite3_column_type(handle, Int32(truncatingIfNeeded: index)) == SQLITE_NULL
    }

    /// The value of column `index` (0-based) of the current row, in its storage class.
    /// Text that is not valid UTF-8 is a mismatch.
    public func value(at index: Int) throws(SQLiteError) -> SQLiteValue {
        let column = Int32(truncatingIfNeeded: index)
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            return .text(try text(at: column))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, column)
            let count = Int(sqlite3_column_bytes(handle, column))
            guard let bytes, count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default:
            return .null
        }
    }

    /// Column `column` of the current row, a TEXT value, as a string; text that is not valid
    /// UTF-8 is a mismatch naming the table and column. `value` is the column's value, if the
    /// caller has it (`sqlite3_column_value`; see `_LoadableColumn`).
    func text(at column: Int32, value: OpaquePointer? = nil) throws(SQLiteError) -> String {
        let value = value ?? sqlite3_column_value(handle, column)
        let bytes = sqlite3_value_text(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let bytes, count > 0 else { return "" }
        // SQLite ends text with a NUL, so the (non-generic, faster) C-string initializer
        // validates these bytes, up to the first NUL; if that comes before the end (a NUL
        // inside the text), the whole text is validated again.
        var validated = String(validatingCString: UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))
        if let prefix = validated, prefix.utf8.count != count {
            validated = String(validating: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
        guard let text = validated else {
            throw SQLiteError.mismatch(expected: "valid UTF-8 text", found: "TEXT with invalid UTF-8 (\(count) bytes)")
                .locating(table: tableName(column), column: originName(column), sql: sql)
        }
        return text
    }

    /// The value of column `index` (0-based) of the current row as a Swift value.
    ///
    /// A value that cannot become `Value` (TEXT `'abc'` as an `Int`, NULL as a non-optional,
    /// 1000 as an `Int8`) throws an ``SQLiteError`` with the code `SQLITE_MISMATCH` whose
    /// ``SQLiteError/mismatch`` names the table, the column, the expected type and the value.
    ///
    /// ```swift
    /// let quantity = try statement.column(1, as: Int.self)
    /// let discount = try statement.column(2, as: Double?.self)
    /// ```
    public func column<Value: SQLiteConvertible>(_ index: Int, as type: Value.Type = Value.self) throws(SQLiteError) -> Value {
        let stored = try value(at: index)
        do {
            return try Value(sqliteValue: stored)
        } catch {
            let column = Int32(truncatingIfNeeded: index)
            throw error.locating(table: tableName(column), column: originName(column), sql: sql)
        }
    }

    /// The table a result column comes from, when it is a direct column reference.
    private func tableName(_ column: Int32) -> String? {
        sqlite3_column_table_name(handle, column).map { String(cString: $0) }
    }

    /// The column's name in its table, or its result name.
    private func originName(_ column: Int32) -> String? {
        if let origin = sqlite3_column_origin_name(handle, column) { return String(cString: origin) }
        return sqlite3_column_name(handle, column).map { String(cString: $0) }
    }
}

/// One result row: column names and values, read by index or name.
///
/// ```swift
/// let row = try connection.rows("SELECT 1 AS one, 'a' AS letter")[0]
/// row["letter"]   // .text("a")
/// row[0]          // .integer(1)
/// ```
public struct SQLiteRow: Sendable, Hashable {
    /// The result column names, in order.
    public let columnNames: [String]
    /// The values, in column order.
    public let values: [SQLiteValue]

    /// Creates a row.
    public init(columnNames: [String], values: [SQLiteValue]) {
        self.columnNames = columnNames
        self.values = values
    }

    /// The value of column `index`.
    public subscript(index: Int) -> SQLiteValue { values[index] }

    /// The value of the first column named `name` (case-insensitive, as SQL names are), or nil.
    public subscript(name: String) -> SQLiteValue? {
        let wanted = name.lowercased()
        return columnNames.firstIndex { $0.lowercased() == wanted }.map { values[$0] }
    }
}
