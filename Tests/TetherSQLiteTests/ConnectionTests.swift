import CSQLite
import Foundation
import Testing
import TetherSQLite

@Suite("Connection")
struct ConnectionTests {
    @Test func opensWithWALBusyTimeoutForeignKeysAndSynchronousNormal() throws {
        let db = try TestDatabase()
        let connection = db.connection!
        #expect(try connection.journalMode() == "wal")
        #expect(try connection.scalar("PRAGMA foreign_keys", as: Int.self) == 1)
        #expect(try connection.scalar("PRAGMA synchronous", as: Int.self) == 1, "1 is NORMAL")
        #expect(try connection.scalar("PRAGMA busy_timeout", as: Int.self) == 5000)
        #expect(!connection.isReadOnly)
    }

    @Test func optionsAreApplied() throws {
        let db = try TestDatabase(
            options: .init(busyTimeout: .milliseconds(50), journalMode: .delete, synchronous: .full, foreignKeys: false))
        #expect(try db.connection.journalMode() == "delete")
        #expect(try db.connection.scalar("PRAGMA foreign_keys", as: Int.self) == 0)
        #expect(try db.connection.scalar("PRAGMA synchronous", as: Int.self) == 2, "2 is FULL")
        #expect(try db.connection.scalar("PRAGMA busy_timeout", as: Int.self) == 50)
    }

    @Test func openingAMissingFileWithoutCreateFails() throws {
        let db = try TestDatabase()
        #expect {
            try Connection(path: db.directory + "/missing.sqlite", options: .init(create: false))
        } throws: { error in
            let error = try #require(error as? SQLiteError)
            return error.isCantOpen && error.message.contains("missing.sqlite")
        }
    }

    @Test func executeRunsAScriptAndNamesTheFailingStatement() throws {
        let db = try TestDatabase()
        try db.connection.execute("""
            -- a comment
            CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO a (name) VALUES ('x');   INSERT INTO a (name) VALUES ('y');
            /* trailing comment */
            """)
        #expect(try db.connection.scalar("SELECT count(*) FROM a", as: Int.self) == 2)

        let error = #expect(throws: SQLiteError.self) {
            try db.connection.execute("INSERT INTO a (name) VALUES ('z'); INSERT INTO nowhere VALUES (1); INSERT INTO a (name) VALUES ('w');")
        }
        #expect(error?.code == .error)
        #expect(error?.message == "no such table: nowhere")
        #expect(error?.sql?.hasPrefix("INSERT INTO nowhere VALUES (1);") == true)
        #expect(try db.connection.scalar("SELECT count(*) FROM a", as: Int.self) == 3, "statements before the failing one ran")
    }

    @Test func prepareRefusesSeveralStatementsAndEmptySQL() throws {
        let db = try TestDatabase()
        let several = #expect(throws: SQLiteError.self) { try db.connection.prepare("SELECT 1; SELECT 2") }
        #expect(several?.code == .misuse)
        #expect(several?.message.contains("execute(_:)") == true)
        let empty = #expect(throws: SQLiteError.self) { try db.connection.prepare("  -- nothing\n") }
        #expect(empty?.code == .misuse)
        #expect(try db.connection.prepare("SELECT 1; -- fine\n").sql == "SELECT 1; -- fine\n")
    }

    @Test func syntaxErrorCarriesMessageAndSQL() throws {
        let db = try TestDatabase()
        let error = #expect(throws: SQLiteError.self) { try db.connection.prepare("SELEKT 1") }
        #expect(error?.code == .error)
        #expect(error?.message == #"near "SELEKT": syntax error"#)
        #expect(error?.sql == "SELEKT 1")
        #expect(error?.description == #"SQLITE_ERROR (1): near "SELEKT": syntax error — SQL: SELEKT 1"#)
    }

    @Test func statementCacheReturnsTheSameResetStatement() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER)")
        let first = try db.connection.cachedStatement("SELECT ?")
        try first.bind(7, at: 1)
        #expect(try first.step())
        let second = try db.connection.cachedStatement("SELECT ?")
        #expect(first === second)
        #expect(try second.step())
        #expect(second.isNull(at: 0), "bindings were cleared and the statement reset")
        #expect(db.connection.cachedStatementCount == 1)
        let other = try db.connection.prepare("SELECT ?")
        #expect(other !== first, "prepare does not use the cache")
        db.connection.clearStatementCache()
        #expect(db.connection.cachedStatementCount == 0)
    }

    @Test func executeWithArgumentsAndRows() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL)")
        try db.connection.execute("INSERT INTO t (name, score) VALUES (?, ?)", ["Ada", 1.5])
        #expect(db.connection.lastInsertRowID == 1)
        #expect(db.connection.changes == 1)
        try db.connection.execute("INSERT INTO t (name, score) VALUES (?, ?)", ["Grace", nil])
        #expect(db.connection.lastInsertRowID == 2)
        try db.connection.execute("UPDATE t SET score = 0", [])
        #expect(db.connection.changes == 2)
        #expect(db.connection.totalChanges == 4)
        let rows = try db.connection.rows("SELECT id, name AS who, score FROM t ORDER BY id")
        #expect(rows == [
            SQLiteRow(columnNames: ["id", "who", "score"], values: [1, "Ada", 0.0]),
            SQLiteRow(columnNames: ["id", "who", "score"], values: [2, "Grace", 0.0]),
        ])
        #expect(rows[1]["WHO"] == "Grace")
        #expect(rows[1]["nothing"] == nil)
        #expect(try db.connection.scalar("SELECT name FROM t WHERE id = ?", [3], as: String.self) == nil)
    }

    @Test func transactionCommitsOnReturnAndRollsBackOnThrow() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER)")
        db.clearLog()
        let result = try db.connection.inTransaction {
            try db.connection.execute("INSERT INTO t VALUES (?)", [1])
            try db.connection.execute("INSERT INTO t VALUES (?)", [2])
            return "done"
        }
        #expect(result == "done")
        #expect(db.statements == ["BEGIN IMMEDIATE TRANSACTION", "INSERT INTO t VALUES (?)", "INSERT INTO t VALUES (?)", "COMMIT TRANSACTION"])

        struct Boom: Error {}
        #expect(throws: Boom.self) {
            try db.connection.inTransaction {
                try db.connection.execute("INSERT INTO t VALUES (?)", [3])
                throw Boom()
            }
        }
        #expect(!db.connection.isInTransaction)
        #expect(db.transactionCount == 2)
        #expect(db.statements.last == "ROLLBACK TRANSACTION")
        #expect(try db.connection.rows("SELECT x FROM t").map(\.values) == [[1], [2]])
    }

    @Test func nestedTransactionsUseSavepoints() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER)")
        struct Boom: Error {}
        try db.connection.inTransaction(.deferred) {
            try db.connection.execute("INSERT INTO t VALUES (?)", [1])
            try? db.connection.inTransaction {
                try db.connection.execute("INSERT INTO t VALUES (?)", [2])
                throw Boom()
            }
            try db.connection.inTransaction {
                try db.connection.execute("INSERT INTO t VALUES (?)", [3])
            }
        }
        #expect(try db.connection.rows("SELECT x FROM t").map(\.values) == [[1], [3]])
        #expect(db.transactionCount == 1)
        #expect(db.statements.contains("BEGIN DEFERRED TRANSACTION"))
        #expect(db.statements.contains("ROLLBACK TRANSACTION TO SAVEPOINT tether_savepoint_1"))
        #expect(db.statements.contains("RELEASE SAVEPOINT tether_savepoint_1"))
    }

    @Test func dataVersionChangesWhenAnotherConnectionCommits() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER)")
        let before = try db.connection.dataVersion()
        try db.connection.execute("INSERT INTO t VALUES (1)")
        #expect(try db.connection.dataVersion() == before, "own commits do not change it")
        let other = try db.openAnother()
        try other.execute("INSERT INTO t VALUES (2)")
        #expect(try db.connection.dataVersion() != before)
    }

    @Test func userVersionRoundTrips() throws {
        let db = try TestDatabase()
        #expect(try db.connection.userVersion() == 0)
        try db.connection.setUserVersion(42)
        #expect(try db.connection.userVersion() == 42)
    }

    @Test func traceRecordsEveryStatementUntilRemoved() throws {
        let db = try TestDatabase()
        db.clearLog()
        try db.connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        _ = try db.connection.rows("SELECT x FROM t WHERE x = ?", [1])
        #expect(db.statements == ["CREATE TABLE t (x INTEGER);", "INSERT INTO t VALUES (1);", "SELECT x FROM t WHERE x = ?"])
        db.connection.trace(nil)
        try db.connection.execute("DELETE FROM t")
        #expect(db.statements.count == 3)
    }

    @Test func tableIntrospection() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT 'x', n)")
        #expect(try db.connection.tableExists("t"))
        #expect(try db.connection.tableExists("T"))
        #expect(try !db.connection.tableExists("u"))
        #expect(try db.connection.columns(in: "t") == [
            TableColumnInfo(position: 0, name: "id", declaredType: "INTEGER", isNotNull: false, defaultSQL: nil, primaryKeyPosition: 1),
            TableColumnInfo(position: 1, name: "name", declaredType: "TEXT", isNotNull: true, defaultSQL: "'x'", primaryKeyPosition: 0),
            TableColumnInfo(position: 2, name: "n", declaredType: "", isNotNull: false, defaultSQL: nil, primaryKeyPosition: 0),
        ])
        #expect(try db.connection.columns(in: "u") == [])
    }

    @Test func deinitClosesTheConnectionAndReleasesItsLocks() throws {
        let db = try TestDatabase(options: .init(busyTimeout: .milliseconds(10)))
        try db.connection.execute("CREATE TABLE t (x INTEGER)")
        weak var weakHolder: Connection?
        var statement: Statement?
        do {
            let holder = try db.openAnother()
            weakHolder = holder
            try holder.execute("BEGIN IMMEDIATE")
            try holder.execute("INSERT INTO t VALUES (1)")
            statement = try holder.prepare("SELECT count(*) FROM t")   // outlives the connection
            #expect(throws: SQLiteError.self) { try db.connection.execute("INSERT INTO t VALUES (2)") }
        }
        #expect(weakHolder == nil)
        // The closed connection's transaction was rolled back and its lock released.
        try db.connection.execute("INSERT INTO t VALUES (2)")
        #expect(try db.connection.rows("SELECT x FROM t").map(\.values) == [[2]])
        statement = nil   // finalizing the last statement frees the closed connection
        #expect(statement == nil)
    }

    @Test func readOnlyStatementFlag() throws {
        let db = try TestDatabase()
        #expect(try db.connection.prepare("SELECT 1").isReadOnly)
        #expect(try !db.connection.prepare("CREATE TABLE t (x)").isReadOnly)
    }

    @Test func libraryVersionIsRecentEnough() {
        #expect(sqlite3_libversion_number() >= 3_037_000, "SQLITE_OPEN_EXRESCODE needs 3.37")
    }

    @Test func tablesReadFindsEveryTableAQueryReadsWithoutRunningIt() throws {
        let db = try TestDatabase()
        try db.connection.execute("""
            CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER);
            CREATE TABLE c (id INTEGER PRIMARY KEY);
            CREATE VIEW v AS SELECT id FROM c;
            """)
        db.clearLog()
        #expect(try db.connection.tablesRead(by: "SELECT id FROM a") == ["a"])
        let joined = try db.connection.tablesRead(by: "SELECT a.id FROM a JOIN b ON b.a_id = a.id WHERE a.id IN (SELECT id FROM v)")
        #expect(joined == ["a", "b", "c", "v"], "the view, and the table under it")
        #expect(db.statements.isEmpty, "prepared, never run")
        #expect(throws: SQLiteError.self) { try db.connection.tablesRead(by: "SELECT * FROM missing") }
        // The authorizer is removed afterwards: later statements run normally.
        try db.connection.execute("INSERT INTO c DEFAULT VALUES")
        #expect(try db.connection.scalar("SELECT count(*) FROM v", as: Int.self) == 1)
    }
}
