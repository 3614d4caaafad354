import Foundation

/// Applies numbered SQL migrations in order, once each, and refuses a migration that was
/// edited after it was applied.
///
/// Tether's own schema is in the folder `schema/` at the root of the package, the files named
/// `*_tether_*` (`001_tether_metadata.sql`, `002_tether_changes.sql`...); ``builtIn()`` returns a
/// migrator for them. They are compiled into the module (`EmbeddedSchema.swift`, generated from
/// `schema/`; a test fails if the two differ and says how to regenerate), so a program finds
/// them wherever it is installed, without resource bundles. The folder's other files are the
/// invoice sample's tables, compiled into the sample (`Samples/InvoiceKit/InvoiceSchema.swift`).
///
/// ```swift
/// let connection = try Connection(path: "invoices.sqlite")
/// let applied = try Migrator.builtIn().migrate(connection)
/// applied.map(\.name)   // ["001_tether_metadata.sql", ..., "004_tether_change_ranges.sql"] the first time, [] after
/// ```
///
/// How it works:
/// - Each migration runs as a script inside its own `BEGIN IMMEDIATE` transaction, and is
///   recorded in the same transaction in the table `tether_migrations` (name, SHA-256 checksum
///   of its SQL, time applied). A migration that fails is rolled back entirely and nothing
///   after it runs. Its SQL must not contain BEGIN/COMMIT, nor statements that cannot run
///   inside a transaction (VACUUM; `PRAGMA foreign_keys` is ignored there).
/// - The first migration (`001_tether_metadata.sql`) creates `tether_migrations`: the
///   bookkeeping table is part of the schema, not hidden in code. Until it exists, no
///   migration counts as applied.
/// - Before running anything, the records are checked against the list: an applied migration
///   whose checksum changed, an applied migration the list lacks (`builtIn()`, Tether's own,
///   which a default `Store` applies, leaves an app's applied migrations to the app: it opens a
///   file an app migrated), or a new migration numbered
///   below an applied one is refused with a ``MigrationError`` that says what to do. (Tether's
///   own migrations, named `*_tether_*`, and the app's are ordered separately: a file a
///   default `Store` migrated can later take the app's migrations numbered between Tether's.)
/// - Two processes may migrate the same file at once: each migration's transaction re-reads
///   the records after taking the write lock and skips what the other process applied.
public struct Migrator: Sendable {
    /// The table recording applied migrations.
    public static let tableName = "tether_migrations"

    /// The migrations, sorted by number.
    public let migrations: [Migration]
    /// Whether the app's applied migrations are not this list's to check (`builtIn()`).
    private var leavesTheAppsAlone = false

    /// A migrator for `migrations`, which must be numbered 1, 2, 3... without gaps or
    /// duplicates (in any order).
    ///
    /// ```swift
    /// let migrator = try Migrator([
    ///     Migration(name: "001_tether_metadata.sql", sql: metadataSQL),
    ///     Migration(name: "002_notes.sql", sql: "CREATE TABLE Note (id INTEGER PRIMARY KEY, text TEXT NOT NULL);"),
    /// ])
    /// ```
    public init(_ migrations: [Migration]) throws(MigrationError) {
        let sorted = migrations.sorted { ($0.number, $0.name) < ($1.number, $1.name) }
        var expected = 1
        var index = 0
        while index < sorted.count {
            let number = sorted[index].number
            let sameNumber = sorted[index...].prefix { $0.number == number }
            if sameNumber.count > 1 { throw .duplicateNumber(number, names: sameNumber.map(\.name)) }
            if number != expected { throw .gap(missing: expected, next: sorted[index].name) }
            expected += 1
            index += 1
        }
        self.migrations = sorted
    }

    /// A migrator for the `.sql` files in `directory` (other files are ignored). The files must
    /// be UTF-8; their bytes are the migrations' SQL exactly.
    ///
    /// ```swift
    /// let migrator = try Migrator(directory: "/path/to/schema")
    /// ```
    public init(directory: String) throws(MigrationError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw .unreadable(path: directory, reason: "\(error.localizedDescription)")
        }
        var migrations: [Migration] = []
        for name in names.sorted() where name.hasSuffix(".sql") {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .unreadable(path: path, reason: "the file cannot be read")
            }
            guard let sql = String(validating: data, as: UTF8.self) else {
                throw .unreadable(path: path, reason: "the file is not UTF-8")
            }
            migrations.append(try Migration(name: name, sql: sql))
        }
        try self.init(migrations)
    }

    /// The migrator for Tether's own migrations (the migrations record and the change log),
    /// compiled into the module: what a `Store` applies by default. Their numbers leave room for
    /// an app's (the invoice sample's are 003, 005 and 006), so this migrator allows gaps; an app
    /// adds its own with `Migrator(builtIn().migrations + mine)`.
    ///
    /// ```swift
    /// try Migrator.builtIn().migrations.map(\.name)
    /// // ["001_tether_metadata.sql", "002_tether_changes.sql", "004_tether_change_ranges.sql"]
    /// ```
    public static func builtIn() throws(MigrationError) -> Migrator {
        var migrations: [Migration] = []
        for file in embeddedSchema { migrations.append(try Migration(name: file.name, sql: file.sql)) }
        var migrator = Migrator(allowingGaps: migrations)
        migrator.leavesTheAppsAlone = true
        return migrator
    }

    /// A migrator for `migrations` as they are (numbers may have gaps; the built-in list has no
    /// duplicates).
    private init(allowingGaps migrations: [Migration]) {
        self.migrations = migrations.sorted { ($0.number, $0.name) < ($1.number, $1.name) }
    }

    /// The migrations recorded as applied in `connection`'s database, in number order (empty
    /// when the bookkeeping table does not exist yet).
    public func appliedMigrations(in connection: Connection) throws(MigrationError) -> [AppliedMigration] {
        do {
            guard try connection.tableExists(Self.tableName) else { return [] }
            let statement = try connection.prepare("SELECT name, checksum, applied_at FROM \(Self.tableName)")
            var applied: [AppliedMigration] = []
            while try statement.step() {
                applied.append(
                    AppliedMigration(
                        name: try statement.column(0, as: String.self),
                        checksum: try statement.column(1, as: String.self),
                        appliedAt: try statement.column(2, as: Date.self)))
            }
            return applied.sorted { (Migration.number(inName: $0.name) ?? 0, $0.name) < (Migration.number(inName: $1.name) ?? 0, $1.name) }
        } catch {
            throw .sqlite(error, migration: nil)
        }
    }

    /// The migrations not yet applied to `connection`'s database, after checking the applied
    /// ones (see ``migrate(_:)``).
    public func pendingMigrations(in connection: Connection) throws(MigrationError) -> [Migration] {
        let applied = try appliedMigrations(in: connection)
        try check(applied)
        let names = Set(applied.map(\.name))
        return migrations.filter { !names.contains($0.name) }
    }

    /// Applies the pending migrations in order, each in its own transaction, and returns them.
    ///
    /// ```swift
    /// let applied = try migrator.migrate(connection)
    /// ```
    ///
    /// Throws a ``MigrationError`` (and applies nothing) if an applied migration was edited,
    /// is unknown, or if a new one is numbered below an applied one. If a migration's SQL
    /// fails, that migration is rolled back, the ones before it stay applied, and the error
    /// names it.
    @discardableResult
    public func migrate(_ connection: Connection) throws(MigrationError) -> [Migration] {
        var applied: [Migration] = []
        for migration in try pendingMigrations(in: connection) {
            if try apply(migration, to: connection) { applied.append(migration) }
        }
        return applied
    }

    /// Applies one migration in a transaction, unless another connection applied it first.
    private func apply(_ migration: Migration, to connection: Connection) throws(MigrationError) -> Bool {
        do {
            return try connection.inTransaction(.immediate) {
                // Under the write lock: another process may have migrated meanwhile.
                let applied = try appliedMigrations(in: connection)
                if applied.contains(where: { $0.name == migration.name }) {
                    try check(applied)
                    return false
                }
                try connection.execute(migration.sql)
                guard try connection.tableExists(Self.tableName) else {
                    throw MigrationError.missingBookkeepingTable(after: migration.name)
                }
                try connection.execute(
                    "INSERT INTO \(Self.tableName) (name, checksum, applied_at) VALUES (?, ?, ?)",
                    [.text(migration.name), .text(migration.checksum), .real(Date().timeIntervalSince1970)])
                return true
            }
        } catch let error as MigrationError {
            throw error
        } catch let error as SQLiteError {
            throw .sqlite(error, migration: migration.name)
        } catch {
            throw .sqlite(SQLiteError(code: .error, message: "\(error)"), migration: migration.name)
        }
    }

    /// Checks the recorded migrations against this list.
    private func check(_ applied: [AppliedMigration]) throws(MigrationError) {
        let byName = Dictionary(migrations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var latest: [Bool: Migration] = [:]
        for record in applied {
            guard let migration = byName[record.name] else {
                // `builtIn()` (a default `Store`'s) has no say over an app's migrations.
                if leavesTheAppsAlone, !record.name.contains("_tether_") { continue }
                throw .unknownApplied(name: record.name)
            }
            let checksum = migration.checksum
            guard checksum == record.checksum else {
                throw .editedAfterApplied(
                    name: record.name, recordedChecksum: record.checksum, currentChecksum: checksum,
                    appliedAt: record.appliedAt)
            }
            let group = Self.isTetherOwn(migration)
            if latest[group].map({ migration.number > $0.number }) ?? true { latest[group] = migration }
        }
        let names = Set(applied.map(\.name))
        for (group, latest) in latest {
            if let skipped = migrations.first(where: {
                Self.isTetherOwn($0) == group && $0.number < latest.number && !names.contains($0.name)
            }) {
                throw .addedBeforeApplied(name: skipped.name, latestApplied: latest.name)
            }
        }
    }

    /// Whether `migration` is one of Tether's own (its name contains `_tether_`). Tether's own
    /// migrations and the app's are two sequences sharing one numbering: a new migration is
    /// refused only when it is numbered below an applied one of its own sequence, so that a
    /// file a default `Store` migrated (Tether's own only) can later take the app's.
    static func isTetherOwn(_ migration: Migration) -> Bool {
        migration.name.contains("_tether_")
    }
}
