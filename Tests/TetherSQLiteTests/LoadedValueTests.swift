import Foundation
import Testing
import TetherSQLite   // the public API only

/// A stored property of every type the store reads straight from a result column.
@Model
final class EveryLoadable {
    var int = 0
    var optionalInt: Int? = nil
    var int64: Int64 = 0
    var optionalInt64: Int64? = nil
    var double = 0.0
    var optionalDouble: Double? = nil
    var bool = false
    var optionalBool: Bool? = nil
    var string = ""
    var optionalString: String? = nil
}
extension EveryLoadable: PersistentModel {}

/// Loading a row as a model reads each column as `Statement.column(_:as:)` does: the same
/// value, or the same mismatch naming the table and the column, whatever another program
/// stored there.
@Suite("Loading a row gives what the column holds, or a mismatch")
struct LoadedValueTests {
    /// What another program might store, as SQL: every storage class, values at the edges of
    /// a conversion (2 as a `Bool`, 2^53 + 1 as a `Double`, a whole REAL as an `Int`), text
    /// that is not valid UTF-8, and text with a NUL inside.
    static let stored = [
        "0", "1", "2", "-7", "9223372036854775807", "9007199254740993", "1.5", "3.0", "1e300",
        "'abc'", "'12'", "''", "'a' || char(0) || 'b'", "CAST(x'C328' AS TEXT)", "x'00ff'", "NULL",
    ]

    @Test(arguments: ["int", "optionalInt", "int64", "optionalInt64", "double", "optionalDouble",
                      "bool", "optionalBool", "string", "optionalString"])
    func aLoadedColumnMatchesTheStatementsReading(column: String) throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let path = try directory.file(rows: 1)
        let other = try Connection(path: path)
        var compared = 0
        for sql in Self.stored {
            // A NOT NULL column refuses NULL: nothing to load.
            if sql == "NULL", !column.hasPrefix("optional") { continue }
            try other.execute("UPDATE EveryLoadable SET \(column) = \(sql)")
            compared += 1
            let expected = try reading(column, other)
            let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
            let loaded: Result<String, SQLiteError>
            do throws(StoreError) {
                let models = try store.fetch(EveryLoadable.self)
                #expect(models.count == 1)
                loaded = .success(models.first.map { value(of: column, $0) } ?? "no model")
            } catch {
                loaded = .failure(try #require(error.sqliteError, "\(column) = \(sql): \(error)"))
            }
            switch (expected, loaded) {
            case (.success(let expected), .success(let loaded)):
                #expect(loaded == expected, "\(column) = \(sql)")
            case (.failure(let expected), .failure(let loaded)):
                #expect(loaded.isMismatch, "\(column) = \(sql)")
                #expect(loaded.mismatch == expected.mismatch, "\(column) = \(sql)")
                #expect(loaded.mismatch?.table == "EveryLoadable" && loaded.mismatch?.column == column, "\(column) = \(sql)")
            default:
                Issue.record("\(column) = \(sql): the statement read \(expected), the store loaded \(loaded)")
            }
        }
        #expect(compared >= Self.stored.count - 1)
    }

    /// Text with a NUL inside loads whole, and text that is not valid UTF-8 after such a NUL
    /// is a mismatch (SQLite's text is read up to its first NUL, then again whole).
    @Test func textWithANulInsideLoadsWhole() throws {
        let directory = try TemporaryDirectory()
        defer { withExtendedLifetime(directory) {} }
        let path = try directory.file(rows: 2)
        let other = try Connection(path: path)
        try other.execute("UPDATE EveryLoadable SET string = 'a' || char(0) || 'b', optionalString = char(0) WHERE id = 1")
        try other.execute("UPDATE EveryLoadable SET string = CAST(x'6100C328' AS TEXT) WHERE id = 2")
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let first = try #require(try store.load(EveryLoadable.self, id: 1))
        #expect(first.string == "a\u{0}b")
        #expect(first.optionalString == "\u{0}")
        let error = #expect(throws: StoreError.self) { try store.load(EveryLoadable.self, id: 2) }
        #expect(error?.sqliteError?.mismatch?.column == "string")
        #expect(error?.sqliteError?.mismatch?.found == "TEXT with invalid UTF-8 (4 bytes)")
    }

    /// The column as `Statement.column(_:as:)` reads it, described.
    private func reading(_ column: String, _ connection: Connection) throws -> Result<String, SQLiteError> {
        let statement = try connection.prepare("SELECT \(column) FROM EveryLoadable")
        #expect(try statement.step())
        func read<T: SQLiteConvertible>(_: T.Type) -> Result<String, SQLiteError> {
            do throws(SQLiteError) { return .success(String(describing: try statement.column(0, as: T.self))) }
            catch { return .failure(error) }
        }
        switch column {
        case "int": return read(Int.self)
        case "optionalInt": return read(Int?.self)
        case "int64": return read(Int64.self)
        case "optionalInt64": return read(Int64?.self)
        case "double": return read(Double.self)
        case "optionalDouble": return read(Double?.self)
        case "bool": return read(Bool.self)
        case "optionalBool": return read(Bool?.self)
        case "string": return read(String.self)
        default: return read(String?.self)
        }
    }

    private func value(of column: String, _ model: EveryLoadable) -> String {
        switch column {
        case "int": String(describing: model.int)
        case "optionalInt": String(describing: model.optionalInt)
        case "int64": String(describing: model.int64)
        case "optionalInt64": String(describing: model.optionalInt64)
        case "double": String(describing: model.double)
        case "optionalDouble": String(describing: model.optionalDouble)
        case "bool": String(describing: model.bool)
        case "optionalBool": String(describing: model.optionalBool)
        case "string": String(describing: model.string)
        default: String(describing: model.optionalString)
        }
    }
}

/// A directory of its own, removed when the test lets go of it (at the end of its scope, which
/// `withExtendedLifetime` marks).
private final class TemporaryDirectory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tether-loaded-\(UUID().uuidString)").path

    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A store's file in it with `rows` rows of default values (ids 1, 2, ...), closed again.
    func file(rows: Int) throws -> String {
        let file = path + "/store.sqlite"
        let store = try Store(path: file, scheduler: TestScheduler(), watchesExternalChanges: false)
        for _ in 0..<rows { try store.insert(EveryLoadable()) }
        return file
    }
}
