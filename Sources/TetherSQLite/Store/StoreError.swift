/// What went wrong in a `Store`: each case carries the underlying error, which names the SQL,
/// the table and column, or the model and property.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite refused an operation (constraint, busy, read-only, full, not a database...).
    case sqlite(SQLiteError)
    /// A model type cannot be mapped to its table (or its table cannot be updated).
    case mapping(SchemaMappingError)
    /// A migration in `schema/` was refused or failed.
    case migration(MigrationError)
    /// The model is not stored in this store (insert it first).
    case notStored(model: String)
    /// The model's row was deleted; the change was not written.
    case deleted(model: String, id: Int64)
    /// The store was closed (`Store.close()`): it reads and writes nothing more, and a change to
    /// one of its models is not written.
    case closed(path: String)
    /// The database file was deleted, or another file was put in its place, while the store had
    /// it open: the store writes nothing more (not into the deleted file, nor into the one now at
    /// `path`), and the changes stay pending, in memory.
    case fileLost(path: String)
    /// The store was opened with `readOnly: true`: a change to one of its models is not written,
    /// and `insert`, `delete` and `update` are refused.
    case readOnly(path: String)
    /// A change breaks a rule (the model's own, see `Validating`, or a constraint of the
    /// database): it was not written; it stays pending, and the model keeps it.
    case invalid(ValidationError)
    /// The delete was refused by a relationship whose delete rule is `.deny`: the model (row `id`
    /// of `model`'s table) still has related models, the rows `blocking` of table `related`
    /// (through its relationship `relationship`). Nothing was deleted.
    case deleteDenied(model: String, id: Int64, relationship: String, related: String, blocking: [Int64])

    /// The SQLite error, if this is one.
    public var sqliteError: SQLiteError? {
        if case .sqlite(let error) = self { return error }
        return nil
    }

    public var description: String {
        switch self {
        case .sqlite(let error): return error.description
        case .mapping(let error): return error.description
        case .migration(let error): return error.description
        case .notStored(let model): return "this \(model) is not stored in this store: insert it first"
        case .deleted(let model, let id): return "\(model) \(id) was deleted; the change was not written"
        case .closed(let path): return "the store of \(path) is closed"
        case .fileLost(let path):
            return "the database file \(path) was deleted or replaced while open; changes are kept in memory and not written"
        case .readOnly(let path): return "the store of \(path) was opened read-only; the change was not written"
        case .invalid(let error): return "not written, invalid: \(error)"
        case .deleteDenied(let model, let id, let relationship, let related, let blocking):
            let rows = blocking.count == 1 ? "\(related) \(blocking[0])" : "\(related) rows \(blocking.map { "\($0)" }.joined(separator: ", "))"
            return "\(model) \(id) was not deleted: its \(relationship) still hold \(rows) (the delete rule of \(model).\(relationship) is deny)"
        }
    }

    static func wrap(_ error: any Error) -> StoreError {
        switch error {
        case let error as StoreError: return error
        case let error as SQLiteError: return .sqlite(error)
        case let error as SchemaMappingError: return .mapping(error)
        case let error as MigrationError: return .migration(error)
        default: return .sqlite(SQLiteError(code: SQLiteResultCode(rawValue: 1), message: "\(error)"))
        }
    }
}
