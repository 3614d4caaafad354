import CSQLite
import Tether

/// A stored property's loader: reads column `index` of `statement`'s current row into the
/// model, with the checks and errors of the property type's `init(sqliteValue:)`. In a box,
/// which the row loop calls without retaining (`_Table.materialize`); the error is returned
/// rather than thrown, since the box is called through `_withUnsafeGuaranteedRef`, whose
/// errors are untyped.
final class _ColumnLoader {
    let load: (AnyObject, Statement, Int32) -> SQLiteError?
    init(_ load: @escaping (AnyObject, Statement, Int32) -> SQLiteError?) { self.load = load }
}

/// A type the store reads straight from a result column, without making a `SQLiteValue`
/// first: the column types it expects are read by the matching `sqlite3_value_*` call;
/// anything else goes through `init(sqliteValue:)`, so the errors are the same.
///
/// The numbers are read from the column's `sqlite3_value` (`sqlite3_column_value`): one call
/// into the statement instead of two. SQLite calls such a value "unprotected": reading it is
/// not safe against other threads using the connection, which Tether never allows (each
/// connection is used by one thread at a time, opened with `SQLITE_OPEN_NOMUTEX`).
protocol _LoadableColumn: SQLiteConvertible {
    /// The value of column `index`, whose `sqlite3_value` is `value`.
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> Self
}

extension _LoadableColumn {
    /// The general path: the column as a `SQLiteValue`, converted.
    @inline(never)
    static func _converted(_ statement: Statement, _ index: Int32) throws(SQLiteError) -> Self {
        try Self(sqliteValue: statement.value(at: Int(index)))
    }

    /// The value of column `index` of the statement's current row.
    @inline(__always)
    static func _load(_ statement: Statement, _ index: Int32) throws(SQLiteError) -> Self {
        try _load(sqlite3_column_value(statement.handle, index), statement, index)
    }
}

extension Int: _LoadableColumn {
    @inline(__always)
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> Int {
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { return try _converted(statement, index) }
        return Int(sqlite3_value_int64(value))
    }
}

extension Int64: _LoadableColumn {
    @inline(__always)
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> Int64 {
        guard sqlite3_value_type(value) == SQLITE_INTEGER else { return try _converted(statement, index) }
        return sqlite3_value_int64(value)
    }
}

extension Double: _LoadableColumn {
    @inline(__always)
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> Double {
        guard sqlite3_value_type(value) == SQLITE_FLOAT else { return try _converted(statement, index) }
        return sqlite3_value_double(value)
    }
}

extension Bool: _LoadableColumn {
    @inline(__always)
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> Bool {
        if sqlite3_value_type(value) == SQLITE_INTEGER {
            switch sqlite3_value_int64(value) {
            case 0: return false
            case 1: return true
            default: break
            }
        }
        return try _converted(statement, index)
    }
}

extension String: _LoadableColumn {
    @inline(__always)
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> String {
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return try _converted(statement, index) }
        return try statement.text(at: index, value: value)
    }
}

extension Optional: _LoadableColumn where Wrapped: _LoadableColumn {
    @inline(__always)
    static func _load(_ value: OpaquePointer?, _ statement: Statement, _ index: Int32) throws(SQLiteError) -> Wrapped? {
        sqlite3_value_type(value) == SQLITE_NULL ? nil : try Wrapped._load(value, statement, index)
    }
}

extension _ColumnIO {
    /// The loader of `property` if its type is one the store reads straight from a column
    /// (`Int`, `Int64`, `Double`, `Bool`, `String`, or an optional of one), else nil (the
    /// column is read as a `SQLiteValue` and converted).
    ///
    /// Each loader is specialized for its type: a generic one would convert through the
    /// protocol's witnesses and look up `Optional`'s metadata for every optional column of
    /// every row.
    static func loader<M: AnyObject>(_ property: ModelProperty<M>) -> _ColumnLoader? {
        switch property.valueType {
        case is Int.Type: loader(property.setterBox(as: Int.self).map(assigner))
        case is Int?.Type: loader(property.setterBox(as: Int?.self).map(assigner))
        case is Int64.Type: loader(property.setterBox(as: Int64.self).map(assigner))
        case is Int64?.Type: loader(property.setterBox(as: Int64?.self).map(assigner))
        case is Double.Type: loader(property.setterBox(as: Double.self).map(assigner))
        case is Double?.Type: loader(property.setterBox(as: Double?.self).map(assigner))
        case is Bool.Type: loader(property.setterBox(as: Bool.self).map(assigner))
        case is Bool?.Type: loader(property.setterBox(as: Bool?.self).map(assigner))
        case is String.Type: loader(property.setterBox(as: String.self).map(assigner))
        case is String?.Type: loader(property.setterBox(as: String?.self).map(assigner))
        default: nil
        }
    }

    /// The setter, as a function of any object (the model is known to be a `M`), in a box: a
    /// loader specialized for `T` calls it as the box holds it, with no conversion between
    /// the generic and the specialized calling conventions on the way (a reabstraction thunk
    /// each way, per column of every row, when the function itself is passed).
    private static func assigner<M: AnyObject, T>(_ setter: _Setter<M, T>) -> _ObjectSetter<T> {
        _ObjectSetter { object, value in setter.set(unsafeDowncast(object, to: M.self), value) }
    }

    /// Generic in the value type alone, so that each call above is specialized.
    private static func loader<T: _LoadableColumn>(_ assign: _ObjectSetter<T>?) -> _ColumnLoader? {
        guard let assign else { return nil }
        return _ColumnLoader { object, statement, index in
            do throws(SQLiteError) {
                assign.set(object, try T._load(statement, index))
                return nil
            } catch {
                return error
            }
        }
    }
}

/// A setter of a property of type `T`, taking the model as any object.
final class _ObjectSetter<T> {
    let set: (AnyObject, T) -> Void
    init(_ set: @escaping (AnyObject, T) -> Void) { self.set = set }
}
