import Foundation

// MARK: Integers

extension SQLiteConvertible where Self: FixedWidthInteger {
    /// Integers are stored in INTEGER columns.
    public static var sqliteColumnType: SQLiteColumnType { .integer }

    /// Reads an INTEGER that fits this type; anything else is a mismatch.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        guard case .integer(let integer) = value else { throw .mismatch(Self.self, found: value) }
        guard let exact = Self(exactly: integer) else {
            throw .mismatch(Self.self, found: value, "out of range \(Self.min)...\(Self.max)")
        }
        self = exact
    }

    /// The value as a 64-bit integer; a value outside `Int64`'s range cannot be stored.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        guard let integer = Int64(exactly: self) else {
            throw .mismatch(
                expected: "an integer in SQLite's range \(Int64.min)...\(Int64.max)",
                found: "\(Self.self) \(self)")
        }
        return .integer(integer)
    }
}

extension Int: SQLiteConvertible {}
extension Int8: SQLiteConvertible {}
extension Int16: SQLiteConvertible {}
extension Int32: SQLiteConvertible {}
extension Int64: SQLiteConvertible {}
extension UInt: SQLiteConvertible {}
extension UInt8: SQLiteConvertible {}
extension UInt16: SQLiteConvertible {}
extension UInt32: SQLiteConvertible {}
extension UInt64: SQLiteConvertible {}
@available(macOS 15.0, *)
extension Int128: SQLiteConvertible {}
@available(macOS 15.0, *)
extension UInt128: SQLiteConvertible {}

// MARK: Floating point

extension Double: SQLiteConvertible {
    /// Doubles are stored in REAL columns.
    public static var sqliteColumnType: SQLiteColumnType { .real }

    /// Reads a REAL, or an INTEGER that a double represents exactly (SQLite returns whole
    /// numbers computed by SQL, such as `SELECT 1`, as integers).
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        switch value {
        case .real(let real):
            self = real
        case .integer(let integer):
            guard let exact = Double(exactly: integer) else {
                throw .mismatch(Double.self, found: value, "not exactly representable")
            }
            self = exact
        default:
            throw .mismatch(Double.self, found: value)
        }
    }

    /// The value as REAL. NaN cannot be stored: SQLite turns it into NULL.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        guard !isNaN else { throw .mismatch(expected: "a number (SQLite stores NaN as NULL)", found: "Double nan") }
        return .real(self)
    }
}

extension Float: SQLiteConvertible {
    /// Floats are stored in REAL columns (as doubles, exactly).
    public static var sqliteColumnType: SQLiteColumnType { .real }

    /// Reads a REAL (or exact INTEGER) rounded to the nearest `Float`; a finite value too large
    /// for a `Float` is a mismatch rather than infinity.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        let double: Double
        do { double = try Double(sqliteValue: value) } catch { throw .mismatch(Float.self, found: value) }
        let float = Float(double)
        guard float.isFinite || !double.isFinite else {
            throw .mismatch(Float.self, found: value, "out of Float's range")
        }
        self = float
    }

    /// The value as REAL. NaN cannot be stored: SQLite turns it into NULL.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        guard !isNaN else { throw .mismatch(expected: "a number (SQLite stores NaN as NULL)", found: "Float nan") }
        return .real(Double(self))
    }
}

// MARK: Bool, String, Data

extension Bool: SQLiteConvertible {
    /// Booleans are stored as the integers 0 and 1.
    public static var sqliteColumnType: SQLiteColumnType { .integer }

    /// Reads INTEGER 0 (false) or 1 (true); any other value is a mismatch.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        switch value {
        case .integer(0): self = false
        case .integer(1): self = true
        case .integer: throw .mismatch(Bool.self, found: value, "only 0 and 1 are booleans")
        default: throw .mismatch(Bool.self, found: value)
        }
    }

    /// 1 or 0.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue { .integer(self ? 1 : 0) }
}

extension String: SQLiteConvertible {
    /// Strings are stored in TEXT columns.
    public static var sqliteColumnType: SQLiteColumnType { .text }

    /// Reads TEXT; numbers and blobs are mismatches.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        guard case .text(let text) = value else { throw .mismatch(String.self, found: value) }
        self = text
    }

    /// The string as TEXT.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue { .text(self) }
}

extension Data: SQLiteConvertible {
    /// Data is stored in BLOB columns.
    public static var sqliteColumnType: SQLiteColumnType { .blob }

    /// Reads a BLOB; text is a mismatch.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        guard case .blob(let bytes) = value else { throw .mismatch(Data.self, found: value) }
        self = Data(bytes)
    }

    /// The bytes as a BLOB.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue { .blob([UInt8](self)) }
}

// MARK: UUID, Date

extension UUID: SQLiteConvertible {
    /// UUIDs are stored as TEXT, in `uuidString` form (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`).
    public static var sqliteColumnType: SQLiteColumnType { .text }

    /// Reads TEXT holding a UUID in any case; anything else is a mismatch.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        guard case .text(let text) = value, let uuid = UUID(uuidString: text) else {
            throw .mismatch(UUID.self, found: value)
        }
        self = uuid
    }

    /// The `uuidString` (upper case) as TEXT.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue { .text(uuidString) }
}

extension Date: SQLiteConvertible {
    /// Dates are stored as REAL seconds since 1970-01-01 00:00:00 UTC.
    ///
    /// Why REAL Unix time rather than ISO 8601 text: it is compact, compares and sorts
    /// correctly in SQL, converts without parsing, and other programs read it directly
    /// (`SELECT datetime(createdAt, 'unixepoch', 'subsec')`). A double keeps present-day dates
    /// to about 0.2 µs; a date read from the database and written back is stored unchanged.
    public static var sqliteColumnType: SQLiteColumnType { .real }

    /// Reads REAL (or INTEGER) seconds since 1970; text dates are mismatches.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        let seconds: Double
        do { seconds = try Double(sqliteValue: value) } catch { throw .mismatch(Date.self, found: value) }
        self = Date(timeIntervalSince1970: seconds)
    }

    /// `timeIntervalSince1970` as REAL.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        let seconds = timeIntervalSince1970
        guard !seconds.isNaN else { throw .mismatch(expected: "a date", found: "Date with NaN seconds") }
        return .real(seconds)
    }
}

// MARK: Optional

extension Optional: SQLiteConvertible where Wrapped: SQLiteConvertible {
    /// The wrapped type's column type.
    public static var sqliteColumnType: SQLiteColumnType { Wrapped.sqliteColumnType }
    /// Optionals are nullable.
    public static var sqliteIsNullable: Bool { true }

    /// NULL is `nil`; anything else is read as the wrapped type.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        if case .null = value { self = nil } else { self = try Wrapped(sqliteValue: value) }
    }

    /// `nil` is NULL.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.sqliteValue()
        }
    }
}

// MARK: RawRepresentable

extension SQLiteConvertible where Self: RawRepresentable, RawValue: SQLiteConvertible {
    /// The raw value's column type.
    public static var sqliteColumnType: SQLiteColumnType { RawValue.sqliteColumnType }

    /// Reads the raw value; a raw value with no matching case is a mismatch.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        let raw: RawValue
        do { raw = try RawValue(sqliteValue: value) } catch { throw .mismatch(Self.self, found: value) }
        guard let converted = Self(rawValue: raw) else {
            throw .mismatch(Self.self, found: value, "no case has this raw value")
        }
        self = converted
    }

    /// The raw value.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue { try rawValue.sqliteValue() }
}

// MARK: JSON

/// A `Codable` type stored as JSON text. Conform with an empty extension:
///
/// ```swift
/// struct Address: Codable { var street: String; var city: String }
/// extension Address: SQLiteJSONCodable {}
///
/// try statement.bind(Address(street: "1 Main St", city: "Springfield"), at: 1)
/// // stored as TEXT {"city":"Springfield","street":"1 Main St"}
/// ```
///
/// Keys are sorted, so equal values always produce the same text. Reading text that is not
/// valid JSON for the type is a mismatch whose message includes the decoding error. (Models
/// need no conformance: the table mapping stores any `Codable` property as JSON.)
public protocol SQLiteJSONCodable: SQLiteConvertible, Codable {}

extension SQLiteJSONCodable {
    /// JSON is stored in TEXT columns.
    public static var sqliteColumnType: SQLiteColumnType { .text }

    /// Decodes JSON text.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        self = try SQLiteJSON.decode(Self.self, from: value)
    }

    /// Encodes the value as JSON text with sorted keys.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        try SQLiteJSON.encode(self)
    }
}

/// The JSON coding used for `Codable` values stored as text.
enum SQLiteJSON {
    static func encode<T: Encodable>(_ value: T) throws(SQLiteError) -> SQLiteValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(value)
            return .text(String(decoding: data, as: UTF8.self))
        } catch {
            throw .mismatch(expected: "a value JSON can encode", found: "\(T.self): \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from value: SQLiteValue) throws(SQLiteError) -> T {
        guard case .text(let text) = value else { throw .mismatch(T.self, found: value, "expected JSON text") }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw .mismatch(T.self, found: value, "invalid JSON for \(T.self): \(Self.reason(error))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context),
            DecodingError.keyNotFound(_, let context),
            DecodingError.typeMismatch(_, let context),
            DecodingError.valueNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
