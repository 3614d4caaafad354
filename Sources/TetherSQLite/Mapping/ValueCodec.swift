import Foundation

/// How the values of one Swift type, seen as `Any`, become SQLite values and back: the mapping
/// layer's view of a property type that is only known at run time (`ModelProperty.valueType`).
///
/// Found by ``ValueCodec/for(_:)`` in this order:
/// 0. `Optional<M>` of a persistent model type: a to-one relationship, stored as the related
///    row's id (an INTEGER column that references `M`'s table);
/// 1. the type conforms to ``SQLiteConvertible`` (this includes optionals of conforming types);
/// 2. `Optional<Wrapped>`: the codec of `Wrapped`, made nullable;
/// 3. `RawRepresentable` with a raw value that has a codec (enums): stored as the raw value;
/// 4. `Codable`: stored as JSON text with sorted keys;
/// otherwise there is no codec and the type cannot be stored.
struct ValueCodec: Sendable {
    /// The declared column type.
    let columnType: SQLiteColumnType
    /// Whether NULL is a value (the type is optional).
    let isNullable: Bool
    /// How the value is stored, for messages: `SQLiteConvertible`, `raw value`, `JSON`.
    var storage: String { coder.storage }
    /// For a to-one relationship: the related model type, whose row id the column holds.
    let relationTarget: (any PersistentModel.Type)?
    /// For a to-one relationship: the property's nil (an `Optional<M>.none` as `Any`).
    var none: Any? { noneBox?.value }
    private let noneBox: _NoneValue?
    private let coder: any _ValueCoder

    private init(
        _ coder: some _ValueCoder, columnType: SQLiteColumnType, isNullable: Bool,
        relationTarget: (any PersistentModel.Type)? = nil, none: Any? = nil
    ) {
        self.coder = coder
        self.columnType = columnType
        self.isNullable = isNullable
        self.relationTarget = relationTarget
        self.noneBox = none.map(_NoneValue.init)
    }

    /// Converts a value of the type (as `Any`) to an SQLite value.
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue { try coder.encode(value) }
    /// Converts an SQLite value to a value of the type (as `Any`).
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any { try coder.decode(value) }

    /// The codec for `type`, or nil if values of `type` cannot be stored.
    static func `for`(_ type: Any.Type) -> ValueCodec? {
        if let optional = type as? any _OptionalMarker.Type, let target = optional._wrappedType as? any PersistentModel.Type {
            return ValueCodec(_RelationCoder(target: target), columnType: .integer, isNullable: true,
                              relationTarget: target, none: optional._none)
        }
        if let convertible = type as? any SQLiteConvertible.Type { return convertibleCodec(convertible) }
        if let optional = type as? any _OptionalMarker.Type { return optionalCodec(optional) }
        if let raw = type as? any RawRepresentable.Type, let codec = rawCodec(raw) { return codec }
        if let codable = type as? any Codable.Type { return jsonCodec(codable) }
        return nil
    }

    private static func convertibleCodec<T: SQLiteConvertible>(_ type: T.Type) -> ValueCodec {
        ValueCodec(_ConvertibleCoder<T>(), columnType: T.sqliteColumnType, isNullable: T.sqliteIsNullable)
    }

    private static func optionalCodec<T: _OptionalMarker>(_ type: T.Type) -> ValueCodec? {
        guard let wrapped = ValueCodec.for(T._wrappedType), !wrapped.isNullable else { return nil }
        return ValueCodec(_OptionalCoder<T>(wrapped: wrapped), columnType: wrapped.columnType, isNullable: true)
    }

    private static func rawCodec<T: RawRepresentable>(_ type: T.Type) -> ValueCodec? {
        guard let raw = ValueCodec.for(T.RawValue.self), !raw.isNullable else { return nil }
        return ValueCodec(_RawCoder<T>(raw: raw), columnType: raw.columnType, isNullable: false)
    }

    private static func jsonCodec<T: Codable>(_ type: T.Type) -> ValueCodec {
        ValueCodec(_JSONCoder<T>(), columnType: .text, isNullable: false)
    }
}

private protocol _ValueCoder: Sendable {
    var storage: String { get }
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any
}

private func wrongValue<T>(_ value: Any, expected: T.Type) -> SQLiteError {
    .mismatch(expected: "\(T.self)", found: "a value of type \(type(of: value))")
}

private struct _ConvertibleCoder<T: SQLiteConvertible>: _ValueCoder {
    var storage: String { "SQLiteConvertible" }
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue {
        guard let value = value as? T else { throw wrongValue(value, expected: T.self) }
        return try value.sqliteValue()
    }
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any { try T(sqliteValue: value) }
}

private struct _OptionalCoder<T: _OptionalMarker>: _ValueCoder {
    let wrapped: ValueCodec
    var storage: String { wrapped.storage }
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue {
        guard let optional = value as? T else { throw wrongValue(value, expected: T.self) }
        guard let some = optional._wrappedValue else { return .null }
        return try wrapped.encode(some)
    }
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any {
        if case .null = value { return T._none }
        return try T._some(wrapped.decode(value))
    }
}

/// An `Optional<M>.none`, as `Any`. Why `@unchecked Sendable` is safe: `.none` holds nothing,
/// no reference and no state; it is only ever copied out.
private struct _NoneValue: @unchecked Sendable {
    let value: Any
}

/// A to-one relationship: the related model's row id. Decoding needs the store (the id becomes
/// the live model of that row), which does it; this coder only reads the id.
private struct _RelationCoder: _ValueCoder {
    let target: any PersistentModel.Type
    var storage: String { "row id of \(target)" }
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue {
        guard let model = value as? any PersistentModel else { return .null }
        guard let id = model.persistentID else {
            throw .mismatch(expected: "a stored \(target)", found: "a \(target) that is not stored (insert it first)")
        }
        return .integer(id)
    }
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any {
        switch value {
        case .null: return Int64?.none as Any
        case .integer(let id): return Int64?.some(id) as Any
        default: throw .mismatch(expected: "the row id of a \(target)", found: value.summary)
        }
    }
}

private struct _RawCoder<T: RawRepresentable>: _ValueCoder {
    let raw: ValueCodec
    var storage: String { "raw value" }
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue {
        guard let value = value as? T else { throw wrongValue(value, expected: T.self) }
        return try raw.encode(value.rawValue)
    }
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any {
        let decoded: Any
        do { decoded = try raw.decode(value) } catch { throw .mismatch(T.self, found: value) }
        guard let rawValue = decoded as? T.RawValue, let converted = T(rawValue: rawValue) else {
            throw .mismatch(T.self, found: value, "no case has this raw value")
        }
        return converted
    }
}

private struct _JSONCoder<T: Codable>: _ValueCoder {
    var storage: String { "JSON" }
    func encode(_ value: Any) throws(SQLiteError) -> SQLiteValue {
        guard let value = value as? T else { throw wrongValue(value, expected: T.self) }
        return try SQLiteJSON.encode(value)
    }
    func decode(_ value: SQLiteValue) throws(SQLiteError) -> Any { try SQLiteJSON.decode(T.self, from: value) }
}

/// Lets the mapping layer see through `Optional` of a type that is not `SQLiteConvertible`.
protocol _OptionalMarker {
    static var _wrappedType: Any.Type { get }
    static var _none: Any { get }
    static func _some(_ wrapped: Any) throws(SQLiteError) -> Any
    var _wrappedValue: Any? { get }
}

extension Optional: _OptionalMarker {
    static var _wrappedType: Any.Type { Wrapped.self }
    static var _none: Any { Wrapped?.none as Any }
    static func _some(_ wrapped: Any) throws(SQLiteError) -> Any {
        guard let wrapped = wrapped as? Wrapped else {
            throw .mismatch(expected: "\(Wrapped.self)", found: "a value of type \(type(of: wrapped))")
        }
        return Wrapped?.some(wrapped) as Any
    }
    var _wrappedValue: Any? { self.map { $0 as Any } }
}
