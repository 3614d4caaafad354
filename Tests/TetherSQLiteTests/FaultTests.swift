import Foundation
import Testing
import TetherSQLite

/// The faults of issue 4, each becoming a typed `SQLiteError` whose description carries the
/// SQL and SQLite's message, with the connection still usable afterwards.
@Suite("Faults")
struct FaultTests {
    /// Asserts the description has the code, the message and the SQL.
    private func expectDescribed(_ error: SQLiteError?, sql: String, message: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let error else { Issue.record("no error", sourceLocation: sourceLocation); return }
        #expect(error.sql == sql, sourceLocation: sourceLocation)
        #expect(error.message == message, sourceLocation: sourceLocation)
        #expect(error.description == "\(error.code): \(message) — SQL: \(sql)", sourceLocation: sourceLocation)
    }

    // MARK: Constraints

    @Test func uniqueViolation() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE person (id INTEGER PRIMARY KEY, email TEXT UNIQUE)")
        let insert = "INSERT INTO person (email) VALUES (?)"
        try db.connection.execute(insert, ["ada@example.com"])
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute(insert, ["ada@example.com"]) }
        #expect(error?.code == .constraintUnique)
        #expect(error?.code.primary == .constraint)
        #expect(error?.isConstraint == true)
        expectDescribed(error, sql: insert, message: "UNIQUE constraint failed: person.email")
        #expect(error?.description.hasPrefix("SQLITE_CONSTRAINT_UNIQUE (2067): ") == true)
        // Still usable.
        try db.connection.execute(insert, ["grace@example.com"])
        #expect(try db.connection.scalar("SELECT count(*) FROM person", as: Int.self) == 2)
    }

    @Test func primaryKeyViolation() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);")
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute("INSERT INTO t VALUES (?)", [1]) }
        #expect(error?.code == .constraintPrimaryKey)
        expectDescribed(error, sql: "INSERT INTO t VALUES (?)", message: "UNIQUE constraint failed: t.id")
    }

    @Test func notNullViolation() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        let insert = "INSERT INTO Invoice (customer) VALUES (?)"
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute(insert, [nil]) }
        #expect(error?.code == .constraintNotNull)
        expectDescribed(error, sql: insert, message: "NOT NULL constraint failed: Invoice.customer")
    }

    @Test func foreignKeyViolation() throws {
        let db = try TestDatabase()
        try db.connection.execute("""
            CREATE TABLE customer (id INTEGER PRIMARY KEY);
            CREATE TABLE invoice (id INTEGER PRIMARY KEY, customerID INTEGER NOT NULL REFERENCES customer(id));
            """)
        let insert = "INSERT INTO invoice (customerID) VALUES (?)"
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute(insert, [99]) }
        #expect(error?.code == .constraintForeignKey)
        expectDescribed(error, sql: insert, message: "FOREIGN KEY constraint failed")
    }

    @Test func constraintViolationInATransactionRollsBackTheWholeTransaction() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER UNIQUE)")
        #expect(throws: SQLiteError.self) {
            try db.connection.inTransaction {
                try db.connection.execute("INSERT INTO t VALUES (?)", [1])
                try db.connection.execute("INSERT INTO t VALUES (?)", [1])
            }
        }
        #expect(!db.connection.isInTransaction)
        #expect(try db.connection.scalar("SELECT count(*) FROM t", as: Int.self) == 0)
    }

    // MARK: Read-only

    @Test func writeThroughAReadOnlyConnection() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        let reader = try db.openAnother(options: .init(readOnly: true))
        #expect(reader.isReadOnly)
        #expect(try reader.scalar("SELECT x FROM t", as: Int.self) == 1, "reads work")
        let insert = "INSERT INTO t VALUES (?)"
        let error = #expect(throws: SQLiteError.self) { try reader.execute(insert, [2]) }
        #expect(error?.code == .readOnly)
        #expect(error?.isReadOnly == true)
        expectDescribed(error, sql: insert, message: "attempt to write a readonly database")
        let transaction = #expect(throws: SQLiteError.self) {
            try reader.inTransaction { try reader.execute(insert, [2]) }
        }
        #expect(transaction?.isReadOnly == true)
        #expect(!reader.isInTransaction)
    }

    @Test func writeUnderQueryOnly() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER); PRAGMA query_only = ON;")
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute("DELETE FROM t", []) }
        #expect(error?.code == .readOnly)
        expectDescribed(error, sql: "DELETE FROM t", message: "attempt to write a readonly database")
        try db.connection.execute("PRAGMA query_only = OFF")
        try db.connection.execute("DELETE FROM t", [])
    }

    /// Root ignores file permissions (the tests here run as root), so this runs only for other
    /// users; `writeThroughAReadOnlyConnection` covers the read-only connection path for everyone.
    @Test(.enabled(if: geteuid() != 0, "root can write a 0444 file; run as another user to exercise this"))
    func writeToAFileWithoutWritePermission() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        db.close()
        #expect(chmod(db.path, 0o444) == 0)
        defer { chmod(db.path, 0o644) }
        try db.reopen()
        #expect(db.connection.isReadOnly)
        #expect(try db.connection.scalar("SELECT x FROM t", as: Int.self) == 1)
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute("INSERT INTO t VALUES (?)", [2]) }
        #expect(error?.isReadOnly == true)
        #expect(error?.sql == "INSERT INTO t VALUES (?)")
        #expect(error?.message.contains("readonly") == true)
    }

    // MARK: Busy

    @Test func lockedPastTheBusyTimeout() throws {
        let db = try TestDatabase(options: .init(busyTimeout: .milliseconds(50)))
        try db.connection.execute("CREATE TABLE t (x INTEGER)")
        let other = try db.openAnother()
        try other.execute("BEGIN IMMEDIATE")
        try other.execute("INSERT INTO t VALUES (1)")

        let insert = "INSERT INTO t VALUES (?)"
        let clock = ContinuousClock()
        let start = clock.now
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute(insert, [2]) }
        let waited = clock.now - start
        #expect(error?.isBusy == true)
        #expect(error?.code.primary == .busy)
        expectDescribed(error, sql: insert, message: "database is locked")
        #expect(waited >= .milliseconds(40), "it waited for the busy timeout (\(waited))")

        let begin = #expect(throws: SQLiteError.self) {
            try db.connection.inTransaction { try db.connection.execute(insert, [2]) }
        }
        #expect(begin?.isBusy == true)
        #expect(begin?.sql == "BEGIN IMMEDIATE TRANSACTION")
        #expect(!db.connection.isInTransaction)

        // Once the other connection commits, the same connection writes again.
        try other.execute("COMMIT")
        try db.connection.execute(insert, [2])
        #expect(try db.connection.rows("SELECT x FROM t ORDER BY x").map(\.values) == [[1], [2]])
    }

    // MARK: Full disk

    @Test func fullDiskThroughMaxPageCountThenUsableAgain() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, payload BLOB)")
        try db.connection.execute("INSERT INTO t (payload) VALUES (?)", [.blob(Array(repeating: 1, count: 100))])
        let pages = try #require(try db.connection.scalar("PRAGMA page_count", as: Int.self))
        try db.connection.execute("PRAGMA max_page_count = \(pages)")

        let insert = "INSERT INTO t (payload) VALUES (randomblob(?))"
        let error = #expect(throws: SQLiteError.self) { try db.connection.execute(insert, [100_000]) }
        #expect(error?.code == .full)
        #expect(error?.isFull == true)
        expectDescribed(error, sql: insert, message: "database or disk is full")

        // In a transaction: rolled back, nothing half-written.
        let inTransaction = #expect(throws: SQLiteError.self) {
            try db.connection.inTransaction {
                try db.connection.execute("INSERT INTO t (payload) VALUES (?)", [.blob([2])])
                try db.connection.execute(insert, [100_000])
            }
        }
        #expect(inTransaction?.isFull == true)
        #expect(!db.connection.isInTransaction)
        #expect(try db.connection.scalar("SELECT count(*) FROM t", as: Int.self) == 1)

        // Make room: the same connection works again.
        try db.connection.execute("PRAGMA max_page_count = 1000000")
        try db.connection.execute(insert, [100_000])
        #expect(try db.connection.scalar("SELECT count(*) FROM t", as: Int.self) == 2)
        #expect(try db.connection.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    // MARK: Not a database

    @Test func fileThatIsNotADatabase() throws {
        let db = try TestDatabase()
        let garbage = db.directory + "/garbage.sqlite"
        let bytes = Data(String(repeating: "this is not a database, just text. ", count: 200).utf8)
        #expect(FileManager.default.createFile(atPath: garbage, contents: bytes))

        let error = #expect(throws: SQLiteError.self) { try Connection(path: garbage) }
        #expect(error?.code == .notADatabase)
        #expect(error?.isNotADatabase == true)
        expectDescribed(error, sql: "PRAGMA journal_mode = WAL", message: "file is not a database")

        let readOnly = #expect(throws: SQLiteError.self) { try Connection(path: garbage, options: .init(readOnly: true)) }
        #expect(readOnly?.isNotADatabase == true)
        expectDescribed(readOnly, sql: "PRAGMA schema_version", message: "file is not a database")
        #expect(FileManager.default.contents(atPath: garbage) == bytes, "the file is left untouched")
    }

    // MARK: Wrong type written by another program

    @Test func columnHoldingAValueOfTheWrongType() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        let other = try db.openAnother()
        try other.execute("INSERT INTO Invoice (id, customer, quantity) VALUES (1, 'Ada', 'abc')")
        try other.execute("INSERT INTO Invoice (id, customer, quantity) VALUES (2, 'Grace', 1000)")

        let select = "SELECT customer, quantity FROM Invoice WHERE id = ?"
        let statement = try db.connection.prepare(select)
        try statement.bind(1, at: 1)
        #expect(try statement.step())
        #expect(try statement.column(0, as: String.self) == "Ada")
        let error = #expect(throws: SQLiteError.self) { try statement.column(1, as: Int.self) }
        #expect(error?.code == .mismatch)
        #expect(error?.isMismatch == true)
        #expect(error?.mismatch == .init(table: "Invoice", column: "quantity", expected: "Int", found: "TEXT 'abc'"))
        expectDescribed(error, sql: select, message: "Invoice.quantity holds TEXT 'abc', expected Int")

        statement.reset()
        try statement.bind(2, at: 1)
        #expect(try statement.step())
        #expect(try statement.column(1, as: Int.self) == 1000)
        let small = #expect(throws: SQLiteError.self) { try statement.column(1, as: Int8.self) }
        #expect(small?.message == "Invoice.quantity holds INTEGER 1000 (out of range -128...127), expected Int8")

        // NULL where the model expects a value (a nullable column read as a non-optional).
        let discount = #expect(throws: SQLiteError.self) {
            try db.connection.scalar("SELECT discount AS d FROM Invoice WHERE id = 1", as: Double.self)
        }
        #expect(discount?.message == "Invoice.discount holds NULL, expected Double")
        #expect(discount?.sql == "SELECT discount AS d FROM Invoice WHERE id = 1")

        // Through the model's table mapping.
        let table = try TableDefinition(for: Invoice.self)
        let quantity = try #require(table.columns.first { $0.name == "quantity" })
        let mapped = #expect(throws: SQLiteError.self) { try quantity.decode(.text("abc"), table: "Invoice") }
        #expect(mapped?.mismatch == .init(table: "Invoice", column: "quantity", expected: "Int", found: "TEXT 'abc'"))
    }
}
