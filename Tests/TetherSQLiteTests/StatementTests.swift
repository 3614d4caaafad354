import Foundation
import Testing
import TetherSQLite

@Suite("Statement")
struct StatementTests {
    @Test func bindsByIndexAndByName() throws {
        let db = try TestDatabase()
        let statement = try db.connection.prepare("SELECT ?, :name, @other, $last")
        #expect(statement.parameterCount == 4)
        #expect(statement.parameterIndex(":name") == 2)
        #expect(statement.parameterIndex(":missing") == nil)
        try statement.bind(1, at: 1)
        try statement.bind("two", named: ":name")
        try statement.bind(.real(3.5), named: "@other")
        try statement.bind(["$last": .blob([4])])
        #expect(try statement.rows().map(\.values) == [[1, "two", 3.5, .blob([4])]])
    }

    @Test func bindingOutOfRangeOrWithTheWrongCountIsARangeError() throws {
        let db = try TestDatabase()
        let statement = try db.connection.prepare("SELECT ?, ?")
        let index = #expect(throws: SQLiteError.self) { try statement.bind(.integer(1), at: 3) }
        #expect(index?.code == .range)
        #expect(index?.message == "no parameter 3: the statement has 2 (parameters are numbered from 1)")
        #expect(index?.sql == "SELECT ?, ?")
        let zero = #expect(throws: SQLiteError.self) { try statement.bind(.integer(1), at: 0) }
        #expect(zero?.code == .range)
        let count = #expect(throws: SQLiteError.self) { try statement.bind([1]) }
        #expect(count?.message == "the statement has 2 parameter(s) but 1 argument(s) were given")
        let name = #expect(throws: SQLiteError.self) { try statement.bind(.null, named: ":x") }
        #expect(name?.message == "no parameter named :x")
    }

    @Test func emptyTextAndEmptyBlobAreNotNull() throws {
        let db = try TestDatabase()
        let statement = try db.connection.prepare("SELECT ?, typeof(?), ?, typeof(?)")
        try statement.bind(["", "", .blob([]), .blob([])])
        #expect(try statement.rows().map(\.values) == [["", "text", .blob([]), "blob"]])
    }

    @Test func textWithUnicodeAndNULRoundTrips() throws {
        let db = try TestDatabase()
        let text = "naïve – 日本語 – \u{0}after NUL – 👩‍💻"
        let statement = try db.connection.prepare("SELECT ?, length(CAST(? AS BLOB))")
        try statement.bind([.text(text), .text(text)])
        #expect(try statement.step())
        #expect(try statement.column(0, as: String.self) == text)
        #expect(try statement.column(1, as: Int.self) == text.utf8.count)
    }

    @Test func stepsThroughRowsAndResets() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
        let statement = try db.connection.prepare("SELECT x FROM t WHERE x >= ? ORDER BY x")
        try statement.bind(2, at: 1)
        var seen: [Int] = []
        while try statement.step() { seen.append(try statement.column(0)) }
        #expect(seen == [2, 3])
        statement.reset()
        #expect(try statement.step(), "bindings survive reset")
        #expect(try statement.column(0, as: Int.self) == 2)
        statement.reset()
        statement.clearBindings()
        #expect(try statement.rows().isEmpty, "x >= NULL matches nothing")
        #expect(statement.columnCount == 1)
        #expect(statement.columnName(0) == "x")
    }

    @Test func invalidUTF8TextIsAMismatchNotARepair() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (name TEXT); INSERT INTO t VALUES (CAST(X'61FF62' AS TEXT));")
        let statement = try db.connection.prepare("SELECT name FROM t")
        #expect(try statement.step())
        let error = #expect(throws: SQLiteError.self) { try statement.column(0, as: String.self) }
        #expect(error?.code == .mismatch)
        #expect(error?.mismatch == .init(table: "t", column: "name", expected: "valid UTF-8 text", found: "TEXT with invalid UTF-8 (3 bytes)"))
    }

    @Test func bindingAValueSQLiteCannotStoreThrows() throws {
        let db = try TestDatabase()
        let statement = try db.connection.prepare("SELECT ?")
        let error = #expect(throws: SQLiteError.self) { try statement.bind(UInt64.max, at: 1) }
        #expect(error?.code == .mismatch)
        #expect(error?.mismatch?.column == "parameter 1")
        #expect(error?.sql == "SELECT ?")
        #expect(throws: SQLiteError.self) { try statement.bind(Double.nan, at: 1) }
    }
}
