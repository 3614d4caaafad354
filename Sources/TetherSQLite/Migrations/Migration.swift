import Foundation

/// One numbered SQL file of a schema: `002_invoice.sql` and its contents.
///
/// The name starts with its number (digits), an underscore and a description, and ends in
/// `.sql`. Migrations run in number order; numbers run 1, 2, 3... without gaps or duplicates.
///
/// ```swift
/// let migration = try Migration(name: "003_invoice_due_date.sql",
///                               sql: "ALTER TABLE Invoice ADD COLUMN dueDate REAL;")
/// migration.number     // 3
/// migration.checksum   // the SHA-256 of the SQL's UTF-8 bytes, in hex
/// ```
public struct Migration: Sendable, Hashable {
    /// The file name, for example `003_invoice.sql`.
    public let name: String
    /// The number the name starts with.
    public let number: Int
    /// The SQL, run as one script inside a transaction.
    public let sql: String

    /// Creates a migration; a name that is not `<digits>_<description>.sql` is refused.
    public init(name: String, sql: String) throws(MigrationError) {
        guard let number = Self.number(inName: name) else { throw .invalidName(name) }
        self.name = name
        self.number = number
        self.sql = sql
    }

    /// The SHA-256 of the SQL's UTF-8 bytes as 64 hex digits: what `sha256sum` prints for the
    /// file. Recorded when the migration is applied; compared on every later run.
    public var checksum: String { SHA256.hexDigest(of: Array(sql.utf8)) }

    /// The number in a name like `003_invoice.sql`, or nil if the name has another shape.
    static func number(inName name: String) -> Int? {
        guard name.hasSuffix(".sql"), !name.contains("/") else { return nil }
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        let rest = name.dropFirst(digits.count)
        guard !digits.isEmpty, rest.hasPrefix("_"), rest.count > "_.sql".count else { return nil }
        return Int(digits)
    }
}

/// A migration that was applied to a database, as recorded in `tether_migrations`.
public struct AppliedMigration: Sendable, Hashable {
    /// The file name.
    public let name: String
    /// The checksum of the SQL that was applied.
    public let checksum: String
    /// When it was applied.
    public let appliedAt: Date

    /// Creates a record.
    public init(name: String, checksum: String, appliedAt: Date) {
        self.name = name
        self.checksum = checksum
        self.appliedAt = appliedAt
    }
}

/// Why migrations were refused or failed. Each case's description says what happened and what
/// to do.
///
/// ```swift
/// do { try Migrator.builtIn().migrate(connection) }
/// catch { print(error) }
/// // migration 002_invoice.sql was edited after it was applied (checksum recorded 5f1c…,
/// // file now 9a0e…); never edit applied migrations — add a new numbered file instead
/// ```
public enum MigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file name that is not `<digits>_<description>.sql`.
    case invalidName(String)
    /// Two or more files with the same number.
    case duplicateNumber(Int, names: [String])
    /// A missing number: numbers must run 1, 2, 3... `next` is the first file after the gap.
    case gap(missing: Int, next: String)
    /// An applied migration whose SQL changed since.
    case editedAfterApplied(name: String, recordedChecksum: String, currentChecksum: String, appliedAt: Date)
    /// The database records a migration this list does not have (a newer program applied it,
    /// or a file was deleted or renamed).
    case unknownApplied(name: String)
    /// A new migration numbered below one that is already applied: it would never run in order.
    case addedBeforeApplied(name: String, latestApplied: String)
    /// The first migration ran but did not create the bookkeeping table.
    case missingBookkeepingTable(after: String)
    /// SQLite failed, while running `migration` (rolled back) or while reading the records.
    case sqlite(SQLiteError, migration: String?)
    /// A schema directory or file could not be read.
    case unreadable(path: String, reason: String)

    /// A sentence saying what happened and what to do.
    public var description: String {
        switch self {
        case .invalidName(let name):
            return "migration file name \(name) must be <number>_<description>.sql, for example 003_add_due_date.sql"
        case .duplicateNumber(let number, let names):
            return "migrations \(names.joined(separator: " and ")) share the number \(number); give each file its own number"
        case .gap(let missing, let next):
            return "no migration numbered \(missing) before \(next); numbers must run 1, 2, 3... without gaps"
        case .editedAfterApplied(let name, let recorded, let current, let appliedAt):
            return "migration \(name) was edited after it was applied on \(appliedAt) (checksum recorded \(recorded), file now \(current)); never edit applied migrations — restore the file and add a new numbered file instead"
        case .unknownApplied(let name):
            return "the database has migration \(name) applied, but this program does not know it: the database was migrated by a newer version, or the file was renamed or deleted (restore it)"
        case .addedBeforeApplied(let name, let latest):
            return "migration \(name) is numbered below \(latest), which is already applied, so it cannot run in order; renumber it after the last applied migration"
        case .missingBookkeepingTable(let name):
            return "migration \(name) ran but did not create the table \(Migrator.tableName); the first migration must create it (see schema/001_tether_metadata.sql)"
        case .sqlite(let error, let migration?):
            return "migration \(migration) failed and was rolled back: \(error)"
        case .sqlite(let error, nil):
            return "cannot read the applied migrations: \(error)"
        case .unreadable(let path, let reason):
            return "cannot read migrations from \(path): \(reason)"
        }
    }
}
