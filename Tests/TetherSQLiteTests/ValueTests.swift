import Foundation
import Testing
import TetherSQLite

/// Stores `value` through a statement and reads it back as `T`.
private func roundTrip<T: SQLiteConvertible>(_ value: T, in connection: Connection) throws -> T {
    let statement = try connection.prepare("SELECT ?")
    try statement.bind(value, at: 1)
    #expect(try statement.step())
    return try statement.column(0, as: T.self)
}

/// Reads `sql`'s single value as `T`.
private func read<T: SQLiteConvertible>(_ sql: String, as type: T.Type, in connection: Connection) throws -> T {
    let statement = try connection.prepare(sql)
    #expect(try statement.step())
    return try statement.column(0, as: T.self)
}

enum Weekday: String, SQLiteConvertible, CaseIterable {
    case monday, tuesday
}

enum Level: Int8, SQLiteConvertible {
    case low = 1, high = 2
}

struct Settings: Equatable, SQLiteJSONCodable {
    var theme: String
    var fontSize: Int
    var tags: [String]
}

@Suite("Values")
struct ValueTests {
    @Test func integersRoundTripAtTheirLimits() throws {
        let db = try TestDatabase()
        let c = db.connection!
        #expect(try roundTrip(Int.min, in: c) == .min)
        #expect(try roundTrip(Int.max, in: c) == .max)
        #expect(try roundTrip(Int8.min, in: c) == .min)
        #expect(try roundTrip(Int16.max, in: c) == .max)
        #expect(try roundTrip(Int32.min, in: c) == .min)
        #expect(try roundTrip(Int64.max, in: c) == .max)
        #expect(try roundTrip(UInt8.max, in: c) == .max)
        #expect(try roundTrip(UInt16.max, in: c) == .max)
        #expect(try roundTrip(UInt32.max, in: c) == .max)
        #expect(try roundTrip(UInt64(Int64.max), in: c) == UInt64(Int64.max))
        #expect(try roundTrip(UInt(42), in: c) == 42)
        #expect(try roundTrip(Int128(-5), in: c) == -5)
        #expect(try roundTrip(UInt128(5), in: c) == 5)
        #expect(Int.sqliteColumnType == .integer)
        #expect(!Int.sqliteIsNullable)
    }

    @Test func integersOutOfRangeAreMismatches() throws {
        let db = try TestDatabase()
        let tooBig = #expect(throws: SQLiteError.self) { try read("SELECT 1000 AS n", as: Int8.self, in: db.connection) }
        #expect(tooBig?.mismatch == .init(table: nil, column: "n", expected: "Int8", found: "INTEGER 1000 (out of range -128...127)"))
        let negative = #expect(throws: SQLiteError.self) { try read("SELECT -1", as: UInt.self, in: db.connection) }
        #expect(negative?.code == .mismatch)
        #expect(throws: SQLiteError.self) { try UInt64.max.sqliteValue() }
        #expect(throws: SQLiteError.self) { try Int128.max.sqliteValue() }
    }

    @Test func integersDoNotAcceptOtherStorageClasses() throws {
        let db = try TestDatabase()
        for sql in ["SELECT 'abc'", "SELECT '12'", "SELECT 1.5", "SELECT 2.0", "SELECT X'01'", "SELECT NULL"] {
            let error = #expect(throws: SQLiteError.self, "\(sql)") { try read(sql, as: Int.self, in: db.connection) }
            #expect(error?.isMismatch == true)
        }
        #expect(try read("SELECT NULL", as: Int?.self, in: db.connection) == nil)
    }

    @Test func doublesAndFloats() throws {
        let db = try TestDatabase()
        let c = db.connection!
        for value in [0.0, -0.0, 1.5, .pi, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .infinity, -.infinity] {
            #expect(try roundTrip(value, in: c).bitPattern == value.bitPattern)
        }
        #expect(try roundTrip(Float(0.1), in: c) == Float(0.1))
        #expect(try read("SELECT 3", as: Double.self, in: c) == 3, "an exact integer is a double")
        #expect(throws: SQLiteError.self) { try read("SELECT 9007199254740993", as: Double.self, in: c) }
        #expect(try read("SELECT 0.1", as: Float.self, in: c) == Float(0.1), "doubles round to floats")
        let overflow = #expect(throws: SQLiteError.self) { try read("SELECT 1e300", as: Float.self, in: c) }
        #expect(overflow?.mismatch?.found == "REAL 1e+300 (out of Float's range)")
        #expect(throws: SQLiteError.self) { try read("SELECT 'x'", as: Double.self, in: c) }
        let nan = #expect(throws: SQLiteError.self) { try Double.nan.sqliteValue() }
        #expect(nan?.message.contains("NaN") == true)
        #expect(throws: SQLiteError.self) { try Float.nan.sqliteValue() }
    }

    @Test func boolsAreZeroOrOne() throws {
        let db = try TestDatabase()
        #expect(try roundTrip(true, in: db.connection))
        #expect(try !roundTrip(false, in: db.connection))
        #expect(try true.sqliteValue() == 1)
        let two = #expect(throws: SQLiteError.self) { try read("SELECT 2 AS flag", as: Bool.self, in: db.connection) }
        #expect(two?.mismatch?.found == "INTEGER 2 (only 0 and 1 are booleans)")
        #expect(throws: SQLiteError.self) { try read("SELECT 'true'", as: Bool.self, in: db.connection) }
    }

    @Test func stringsAndData() throws {
        let db = try TestDatabase()
        #expect(try roundTrip("", in: db.connection) == "")
        #expect(try roundTrip("it's 👍", in: db.connection) == "it's 👍")
        #expect(try roundTrip(Data(), in: db.connection) == Data())
        #expect(try roundTrip(Data([0, 1, 255]), in: db.connection) == Data([0, 1, 255]))
        #expect(throws: SQLiteError.self) { try read("SELECT 12", as: String.self, in: db.connection) }
        #expect(throws: SQLiteError.self) { try read("SELECT X'00'", as: String.self, in: db.connection) }
        #expect(throws: SQLiteError.self) { try read("SELECT 'text'", as: Data.self, in: db.connection) }
        #expect(String.sqliteColumnType == .text)
        #expect(Data.sqliteColumnType == .blob)
    }

    @Test func uuidsAreUpperCaseTextAndAnyCaseIsRead() throws {
        let db = try TestDatabase()
        let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
        #expect(try uuid.sqliteValue() == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(try roundTrip(uuid, in: db.connection) == uuid)
        #expect(try read("SELECT 'e621e1f8-c36c-495a-93fc-0c247a3e6e5f'", as: UUID.self, in: db.connection) == uuid)
        let bad = #expect(throws: SQLiteError.self) { try read("SELECT 'not-a-uuid' AS id", as: UUID.self, in: db.connection) }
        #expect(bad?.mismatch == .init(column: "id", expected: "UUID", found: "TEXT 'not-a-uuid'"))
        #expect(UUID.sqliteColumnType == .text)
    }

    @Test func datesAreRealSecondsSince1970() throws {
        let db = try TestDatabase()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
        #expect(try date.sqliteValue() == .real(1_700_000_000.123456))
        #expect(try roundTrip(date, in: db.connection) == date)
        #expect(Date.sqliteColumnType == .real)
        // Other programs can read it with SQLite's date functions.
        #expect(try db.connection.scalar("SELECT datetime(?, 'unixepoch')", [.real(86_400)], as: String.self) == "1970-01-02 00:00:00")
        #expect(try read("SELECT 86400", as: Date.self, in: db.connection) == Date(timeIntervalSince1970: 86_400))
        #expect(throws: SQLiteError.self) { try read("SELECT '2024-01-01T00:00:00Z'", as: Date.self, in: db.connection) }
        // A date read from the database and written back is stored unchanged.
        for seconds in [0.0, 1.5, 1_700_000_000.123456, 4_102_444_800.000_001, -86_400.25] {
            let loaded = try Date(sqliteValue: .real(seconds))
            #expect(try loaded.sqliteValue() == .real(seconds))
        }
    }

    @Test func optionalsAreNullable() throws {
        let db = try TestDatabase()
        #expect(try roundTrip(Int?.none, in: db.connection) == nil)
        #expect(try roundTrip(Int?.some(3), in: db.connection) == 3)
        #expect(try roundTrip(String?.some(""), in: db.connection) == "")
        #expect(Optional<Int>.sqliteIsNullable)
        #expect(Optional<Int>.sqliteColumnType == .integer)
        #expect(try Int?.none.sqliteValue() == .null)
        #expect(throws: SQLiteError.self) { try read("SELECT 'x'", as: Int?.self, in: db.connection) }
    }

    @Test func nullIntoANonOptionalIsAMismatch() throws {
        let db = try TestDatabase()
        let error = #expect(throws: SQLiteError.self) { try read("SELECT NULL AS note", as: String.self, in: db.connection) }
        #expect(error?.mismatch == .init(column: "note", expected: "String", found: "NULL"))
    }

    @Test func rawRepresentableByEmptyExtension() throws {
        let db = try TestDatabase()
        #expect(try roundTrip(Weekday.tuesday, in: db.connection) == .tuesday)
        #expect(try Weekday.monday.sqliteValue() == "monday")
        #expect(Weekday.sqliteColumnType == .text)
        #expect(try roundTrip(Level.high, in: db.connection) == .high)
        #expect(Level.sqliteColumnType == .integer)
        let unknown = #expect(throws: SQLiteError.self) { try read("SELECT 'caturday' AS day", as: Weekday.self, in: db.connection) }
        #expect(unknown?.mismatch == .init(column: "day", expected: "Weekday", found: "TEXT 'caturday' (no case has this raw value)"))
        let outOfRange = #expect(throws: SQLiteError.self) { try read("SELECT 300", as: Level.self, in: db.connection) }
        #expect(outOfRange?.mismatch?.expected == "Level")
    }

    @Test func codableAsJSONWithSortedKeys() throws {
        let db = try TestDatabase()
        let settings = Settings(theme: "dark", fontSize: 12, tags: ["a/b"])
        #expect(try settings.sqliteValue() == #"{"fontSize":12,"tags":["a/b"],"theme":"dark"}"#)
        #expect(try roundTrip(settings, in: db.connection) == settings)
        #expect(Settings.sqliteColumnType == .text)
        let invalid = #expect(throws: SQLiteError.self) { try read(#"SELECT '{"theme":"dark"}' AS settings"#, as: Settings.self, in: db.connection) }
        #expect(invalid?.mismatch?.found.contains("invalid JSON for Settings") == true)
        #expect(invalid?.mismatch?.found.contains("fontSize") == true)
        #expect(throws: SQLiteError.self) { try read("SELECT 42", as: Settings.self, in: db.connection) }
    }

    @Test func literalsAndSummaries() {
        let values: [SQLiteValue] = [nil, 42, -1.5, "it's", .blob([0xCA, 0xFE]), true, .real(0), .real(.infinity), .real(1e300)]
        #expect(values.map(\.sqlLiteral) == ["NULL", "42", "-1.5", "'it''s'", "X'CAFE'", "1", "0", "9e999", "1e+300"])
        #expect(values.map(\.storageClass) == ["NULL", "INTEGER", "REAL", "TEXT", "BLOB", "INTEGER", "REAL", "REAL", "REAL"])
        #expect(SQLiteValue.text(String(repeating: "x", count: 50)).summary == "TEXT '" + String(repeating: "x", count: 40) + "…'")
        #expect(SQLiteValue.blob(Array(repeating: 1, count: 20)).summary == "BLOB X'01010101010101010101010101010101'… (20 bytes)")
    }

    @Test func affinityRules() {
        #expect(SQLiteColumnType.affinity(ofDeclaredType: "INTEGER") == "INTEGER")
        #expect(SQLiteColumnType.affinity(ofDeclaredType: "BIGINT") == "INTEGER")
        #expect(SQLiteColumnType.affinity(ofDeclaredType: "VARCHAR(20)") == "TEXT")
        #expect(SQLiteColumnType.affinity(ofDeclaredType: "") == "BLOB")
        #expect(SQLiteColumnType.affinity(ofDeclaredType: "double precision") == "REAL")
        #expect(SQLiteColumnType.affinity(ofDeclaredType: "DECIMAL(10,2)") == "NUMERIC")
    }
}
