import Foundation

/// A value as SQLite stores it: one of its five storage classes.
///
/// ```swift
/// let row: [SQLiteValue] = [1, 2.5, "Ada", nil, .blob([0xCA, 0xFE])]
/// try connection.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", row)
/// ```
public enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob([UInt8])

    /// The storage class's name: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var storageClass: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// Whether this is NULL.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// The value as an SQL literal (`NULL`, `42`, `2.5`, `'it''s'`, `X'CAFE'`), as used in a
    /// `DEFAULT` clause. An integral double is written without a fraction (`0`, not `0.0`),
    /// which a REAL column stores as the same double; infinities are written `9e999`/`-9e999`.
    /// NaN has no literal (SQLite stores NaN as NULL) and is written `NULL`.
    ///
    /// ```swift
    /// SQLiteValue.text("it's").sqlLiteral   // 'it''s'
    /// ```
    public var sqlLiteral: String {
        switch self {
        case .null:
            return "NULL"
        case .integer(let value):
            return String(value)
        case .real(let value):
            if value.isNaN { return "NULL" }
            if value.isInfinite { return value < 0 ? "-9e999" : "9e999" }
            if value == value.rounded(), abs(value) < 9_007_199_254_740_992 {
                return String(Int64(value))
            }
            return "\(value)"
        case .text(let value):
            return "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let bytes):
            let hex = "0123456789ABCDEF".utf8.map { $0 }
            var text = "X'"
            text.reserveCapacity(bytes.count * 2 + 3)
            for byte in bytes {
                text.unicodeScalars.append(UnicodeScalar(hex[Int(byte >> 4)]))
                text.unicodeScalars.append(UnicodeScalar(hex[Int(byte & 0xF)]))
            }
            return text + "'"
        }
    }

    /// A short description for error messages: `TEXT 'abc'`, `INTEGER 1000`, `NULL`
    /// (long text and blobs are abbreviated).
    public var summary: String {
        switch self {
        case .null: return "NULL"
        case .integer(let value): return "INTEGER \(value)"
        case .real(let value): return "REAL \(value)"
        case .text(let value):
            let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
            return "TEXT " + SQLiteValue.text(shown).sqlLiteral
        case .blob(let bytes):
            let shown = SQLiteValue.blob(Array(bytes.prefix(16))).sqlLiteral
            return "BLOB " + (bytes.count > 16 ? "\(shown)… (\(bytes.count) bytes)" : shown)
        }
    }
}

extension SQLiteValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// An integer literal is `.integer`.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// A float literal is `.real`.
    public init(floatLiteral value: Double) { self = .real(value) }
    /// A string literal is `.text`.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `true` and `false` are the integers 1 and 0, as SQLite stores booleans.
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }
}

/// The declared type of a column, as written in `CREATE TABLE`: it gives the column its
/// affinity (see https://www.sqlite.org/datatype3.html).
///
/// ```swift
/// Int.sqliteColumnType.rawValue   // "INTEGER"
/// ```
public enum SQLiteColumnType: String, Sendable, Hashable, CaseIterable {
    /// `INTEGER`: integers, booleans.
    case integer = "INTEGER"
    /// `REAL`: doubles, floats, dates (seconds since 1970).
    case real = "REAL"
    /// `TEXT`: strings, UUIDs, JSON.
    case text = "TEXT"
    /// `BLOB`: bytes.
    case blob = "BLOB"

    /// The affinity SQLite gives a column declared with `declaredType`, by the rules of
    /// https://www.sqlite.org/datatype3.html#determination_of_column_affinity: `INTEGER`,
    /// `TEXT`, `BLOB`, `REAL` or `NUMERIC`.
    ///
    /// ```swift
    /// SQLiteColumnType.affinity(ofDeclaredType: "VARCHAR(20)")   // "TEXT"
    /// ```
    public static func affinity(ofDeclaredType declaredType: String) -> String {
        let type = declaredType.uppercased()
        if type.contains("INT") { return "INTEGER" }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return "TEXT" }
        if type.contains("BLOB") || type.isEmpty { return "BLOB" }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return "REAL" }
        return "NUMERIC"
    }

    /// The value that the default of a new NOT NULL column of this type falls back to when no
    /// better default is known: `0`, `0`, `''` or `X''`.
    var zeroValue: SQLiteValue {
        switch self {
        case .integer: .integer(0)
        case .real: .real(0)
        case .text: .text("")
        case .blob: .blob([])
        }
    }
}

/// A Swift type that can be stored in an SQLite column and read back.
///
/// A conformance says which declared column type holds the value (``sqliteColumnType``),
/// whether NULL is one of its values (``sqliteIsNullable``, true only for optionals), and how
/// to convert to and from ``SQLiteValue``. Conversions are strict: reading a value of the wrong
/// storage class, out of range, or NULL into a non-optional throws an ``SQLiteError`` with the
/// code `SQLITE_MISMATCH`, never a silent coercion or a crash.
///
/// Conforming types:
/// - `Int`, `Int8`...`Int64`, `Int128`, `UInt`, `UInt8`...`UInt64`, `UInt128`: INTEGER
///   (range-checked both ways: a `UInt64` above `Int64.max` cannot be written).
/// - `Double`, `Float`: REAL (NaN cannot be written: SQLite would store it as NULL).
/// - `Bool`: INTEGER 0 or 1 (any other integer is a mismatch).
/// - `String`: TEXT (must be valid UTF-8). `Data`: BLOB.
/// - `UUID`: TEXT, its `uuidString` (upper case; any case is read).
/// - `Date`: REAL seconds since 1970-01-01 UTC (`timeIntervalSince1970`); see `Date`'s
///   conformance for why.
/// - `Optional` of any of these: the same column, nullable.
/// - A `RawRepresentable` type whose raw value conforms, by an empty extension:
///   `extension Status: SQLiteConvertible {}`.
/// - A `Codable` type stored as JSON text, by an empty extension:
///   `extension Address: SQLiteJSONCodable {}`.
///
/// ```swift
/// enum Status: String { case draft, sent }
/// extension Status: SQLiteConvertible {}
///
/// try statement.bind(Status.sent, at: 1)
/// let status = try statement.column(0, as: Status.self)
/// ```
public protocol SQLiteConvertible {
    /// The declared type of a column holding this type's values.
    static var sqliteColumnType: SQLiteColumnType { get }
    /// Whether NULL is a value of this type (true for optionals), making its column nullable.
    static var sqliteIsNullable: Bool { get }
    /// Converts a stored value, or throws `SQLiteError.mismatch(expected:found:)`.
    init(sqliteValue: SQLiteValue) throws(SQLiteError)
    /// The value to store, or a mismatch error when SQLite cannot store it faithfully.
    func sqliteValue() throws(SQLiteError) -> SQLiteValue
}

extension SQLiteConvertible {
    /// Non-optional types are not nullable.
    public static var sqliteIsNullable: Bool { false }
}

extension SQLiteError {
    /// The mismatch thrown when `value` cannot become a `type`.
    static func mismatch<T>(_ type: T.Type, found value: SQLiteValue, _ reason: String? = nil) -> SQLiteError {
        var found = value.summary
        if let reason { found += " (\(reason))" }
        return .mismatch(expected: "\(T.self)", found: found)
    }
}
