import Foundation
import Testing
@testable import TetherSQLite

@Suite("Migrator")
struct MigratorTests {
    /// Tether's first migration, which creates the bookkeeping table.
    private var metadata: Migration { get throws { try Migrator.builtIn().migrations[0] } }

    private func migration(_ name: String, _ sql: String) throws -> Migration {
        try Migration(name: name, sql: sql)
    }

    @Test func appliesTheSchemaFolderOnceInOrderEachInItsOwnTransaction() throws {
        let db = try TestDatabase()
        db.clearLog()
        let applied = try Migrator(directory: schemaDirectory).migrate(db.connection)
        let names = ["001_tether_metadata.sql", "002_tether_changes.sql", "003_invoice.sql", "004_tether_change_ranges.sql", "005_invoice_lines.sql",
                     "006_invoice_number_index.sql"]
        #expect(applied.map(\.name) == names)
        #expect(db.transactionCount == 6)
        #expect(try db.connection.tableExists("Invoice"))
        #expect(try db.connection.columns(in: "tether_changes").map(\.name) == ["seq", "tbl", "row", "kind", "last"])

        let records = try Migrator(directory: schemaDirectory).appliedMigrations(in: db.connection)
        #expect(records.map(\.name) == names)
        #expect(records.map(\.checksum) == [
            "b294b5648e94540e90b059d633f09b5f6d6f1f50fe06f7fbba8f0fa12c4a2eea",   // sha256sum schema/001_tether_metadata.sql
            "af562df3fb8564466fbaca8ab6bed6c98ec4b827ce7001dfd37f0b489c88b6dc",   // sha256sum schema/002_tether_changes.sql
            "1fd3a016f54495133ca584940d8fea0f9c8e9aa4c69f41a6f4eac150639d339c",   // sha256sum schema/003_invoice.sql
            "5518622d85e20bdf9626de61c01c8c7dc615803863bc7fab8cd142589a9b4837",   // sha256sum schema/004_tether_change_ranges.sql
            "44e72e88000f3f7e0de83ea94e70fbbe826ef243a4b030b229d84d8f83fa125d",   // sha256sum schema/005_invoice_lines.sql
            "ec5825ed7afaba6f65290ad50224bc4bb0924ad6af14916701cccb6f2251f315",   // sha256sum schema/006_invoice_number_index.sql
        ], "applied migrations never change, so their checksums are fixed")
        #expect(records.allSatisfy { abs($0.appliedAt.timeIntervalSinceNow) < 60 })

        db.clearLog()
        #expect(try Migrator(directory: schemaDirectory).migrate(db.connection).isEmpty, "nothing left to apply")
        #expect(db.transactionCount == 0)
        #expect(try Migrator(directory: schemaDirectory).pendingMigrations(in: db.connection).isEmpty)
    }

    @Test func appliesOnlyTheNewMigrations() throws {
        let db = try TestDatabase()
        let first = try Migrator([metadata, migration("002_notes.sql", "CREATE TABLE Note (id INTEGER PRIMARY KEY);")])
        try first.migrate(db.connection)
        let second = try Migrator(first.migrations + [migration("003_note_text.sql", "ALTER TABLE Note ADD COLUMN text TEXT;")])
        #expect(try second.pendingMigrations(in: db.connection).map(\.name) == ["003_note_text.sql"])
        #expect(try second.migrate(db.connection).map(\.name) == ["003_note_text.sql"])
        #expect(try db.connection.columns(in: "Note").map(\.name) == ["id", "text"])
    }

    @Test func refusesAMigrationEditedAfterItWasApplied() throws {
        let db = try TestDatabase()
        let original = try migration("002_x.sql", "CREATE TABLE X (id INTEGER PRIMARY KEY);")
        try Migrator([metadata, original]).migrate(db.connection)
        let edited = try migration("002_x.sql", "CREATE TABLE X (id INTEGER PRIMARY KEY, name TEXT);")
        let pendingNew = try migration("003_y.sql", "CREATE TABLE Y (id INTEGER PRIMARY KEY);")
        let error = #expect(throws: MigrationError.self) {
            try Migrator([metadata, edited, pendingNew]).migrate(db.connection)
        }
        guard case .editedAfterApplied(let name, let recorded, let current, _) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(name == "002_x.sql")
        #expect(recorded == original.checksum)
        #expect(current == edited.checksum)
        let description = String(describing: error!)
        #expect(description.hasPrefix("migration 002_x.sql was edited after it was applied on "))
        #expect(description.contains("(checksum recorded \(original.checksum), file now \(edited.checksum)); never edit applied migrations — restore the file and add a new numbered file instead"))
        #expect(try !db.connection.tableExists("Y"), "nothing was applied")
    }

    @Test func refusesGapsDuplicatesAndBadNames() throws {
        let gap = #expect(throws: MigrationError.self) {
            try Migrator([metadata, migration("003_z.sql", "SELECT 1;")])
        }
        #expect(gap == .gap(missing: 2, next: "003_z.sql"))
        #expect(gap?.description == "no migration numbered 2 before 003_z.sql; numbers must run 1, 2, 3... without gaps")

        let duplicate = #expect(throws: MigrationError.self) {
            try Migrator([metadata, migration("002_a.sql", "SELECT 1;"), migration("002_b.sql", "SELECT 2;")])
        }
        #expect(duplicate == .duplicateNumber(2, names: ["002_a.sql", "002_b.sql"]))
        #expect(duplicate?.description == "migrations 002_a.sql and 002_b.sql share the number 2; give each file its own number")

        let sameNumberDifferentPadding = #expect(throws: MigrationError.self) {
            try Migrator([metadata, migration("2_a.sql", "SELECT 1;"), migration("002_b.sql", "SELECT 2;")])
        }
        #expect(sameNumberDifferentPadding == .duplicateNumber(2, names: ["002_b.sql", "2_a.sql"]))

        #expect(throws: MigrationError.gap(missing: 1, next: "002_a.sql")) { try Migrator([migration("002_a.sql", "")]) }

        for name in ["invoice.sql", "002invoice.sql", "002_.sql", "_002_a.sql", "002_a.txt", "dir/002_a.sql"] {
            #expect(throws: MigrationError.invalidName(name)) { try Migration(name: name, sql: "") }
        }
        #expect(try Migration(name: "010_add_index.sql", sql: "").number == 10)
    }

    @Test func refusesAnAppliedMigrationItDoesNotKnow() throws {
        let db = try TestDatabase()
        try Migrator([metadata, migration("002_x.sql", "CREATE TABLE X (id INTEGER PRIMARY KEY);")]).migrate(db.connection)
        let error = #expect(throws: MigrationError.self) { try Migrator([metadata]).migrate(db.connection) }
        #expect(error == .unknownApplied(name: "002_x.sql"))
        #expect(error?.description.contains("migrated by a newer version") == true)
    }

    @Test func refusesANewMigrationNumberedBelowAnAppliedOne() throws {
        let db = try TestDatabase()
        let metadata = try metadata
        // Applied: 001 and 003 (recorded by a hand-made list), then 002 appears.
        try Migrator([metadata]).migrate(db.connection)
        try db.connection.execute(
            "INSERT INTO tether_migrations VALUES (?, ?, ?)",
            ["003_c.sql", .text(try migration("003_c.sql", "SELECT 3;").checksum), 0])
        let error = #expect(throws: MigrationError.self) {
            try Migrator([metadata, migration("002_b.sql", "SELECT 2;"), migration("003_c.sql", "SELECT 3;")]).migrate(db.connection)
        }
        #expect(error == .addedBeforeApplied(name: "002_b.sql", latestApplied: "003_c.sql"))
    }

    @Test func aFileADefaultStoreMigratedTakesTheAppsMigrationsLater() throws {
        let db = try TestDatabase()
        // A default store applies Tether's own files only (001, 002, 004)...
        #expect(try Migrator.builtIn().migrate(db.connection).map(\.name)
                == ["001_tether_metadata.sql", "002_tether_changes.sql", "004_tether_change_ranges.sql"])
        // ...and the app's 003, numbered between them, is applied later rather than refused (the
        // whole folder: Tether's files and the sample's).
        #expect(try Migrator(directory: schemaDirectory).migrate(db.connection).map(\.name) == ["003_invoice.sql", "005_invoice_lines.sql", "006_invoice_number_index.sql"])
        #expect(try db.connection.tableExists("Invoice"))
        #expect(try Migrator(directory: schemaDirectory).pendingMigrations(in: db.connection).isEmpty)
    }

    /// A default store (`builtIn()`, Tether's own migrations) opens a file an app migrated: the
    /// app's records are the app's to check. A list of the app's that lacks an applied one is
    /// still refused (and so is a list of Tether's files made by hand: see above).
    @Test func tethersOwnMigrationsOpenAFileAnAppMigrated() throws {
        let db = try TestDatabase()
        try Migrator(directory: schemaDirectory).migrate(db.connection)
        #expect(try Migrator.builtIn().migrate(db.connection).isEmpty)
        _ = try Store(path: db.path)
        let partial = try Migrator(Array(Migrator(directory: schemaDirectory).migrations.prefix(3)))
        let error = #expect(throws: MigrationError.self) { try partial.migrate(db.connection) }
        #expect(error == .unknownApplied(name: "004_tether_change_ranges.sql"))
    }

    @Test func anAppMigrationBelowAnAppliedAppMigrationIsStillRefused() throws {
        let db = try TestDatabase()
        let metadata = try metadata
        let later = try migration("005_tether_later.sql", "SELECT 5;")
        try Migrator([metadata, migration("002_a.sql", "SELECT 2;"), migration("003_c.sql", "SELECT 3;"),
                      migration("004_d.sql", "SELECT 4;"), later]).migrate(db.connection)
        try db.connection.execute("DELETE FROM tether_migrations WHERE name = '002_a.sql'")
        let error = #expect(throws: MigrationError.self) {
            try Migrator([metadata, migration("002_a.sql", "SELECT 2;"), migration("003_c.sql", "SELECT 3;"),
                          migration("004_d.sql", "SELECT 4;"), later]).migrate(db.connection)
        }
        #expect(error == .addedBeforeApplied(name: "002_a.sql", latestApplied: "004_d.sql"),
                "the app's latest applied is 004 (Tether's 005 is another sequence)")
    }

    @Test func aFailingMigrationIsRolledBackAndNamed() throws {
        let db = try TestDatabase()
        let migrator = try Migrator([
            metadata,
            migration("002_ok.sql", "CREATE TABLE A (id INTEGER PRIMARY KEY);"),
            migration("003_bad.sql", "CREATE TABLE B (id INTEGER PRIMARY KEY);\nINSERT INTO Nowhere VALUES (1);"),
            migration("004_never.sql", "CREATE TABLE C (id INTEGER PRIMARY KEY);"),
        ])
        let error = #expect(throws: MigrationError.self) { try migrator.migrate(db.connection) }
        guard case .sqlite(let sqliteError, let name) = error else {
            Issue.record("unexpected \(String(describing: error))")
            return
        }
        #expect(name == "003_bad.sql")
        #expect(sqliteError.message == "no such table: Nowhere")
        #expect(sqliteError.sql == "INSERT INTO Nowhere VALUES (1);")
        #expect(String(describing: error!) == "migration 003_bad.sql failed and was rolled back: SQLITE_ERROR (1): no such table: Nowhere — SQL: INSERT INTO Nowhere VALUES (1);")
        #expect(try db.connection.tableExists("A"))
        #expect(try !db.connection.tableExists("B"), "the failing migration was rolled back")
        #expect(try !db.connection.tableExists("C"), "nothing after it ran")
        #expect(try migrator.appliedMigrations(in: db.connection).map(\.name) == ["001_tether_metadata.sql", "002_ok.sql"])
        #expect(!db.connection.isInTransaction)
    }

    @Test func theFirstMigrationMustCreateTheBookkeepingTable() throws {
        let db = try TestDatabase()
        let error = #expect(throws: MigrationError.self) {
            try Migrator([migration("001_start.sql", "CREATE TABLE A (id INTEGER PRIMARY KEY);")]).migrate(db.connection)
        }
        #expect(error == .missingBookkeepingTable(after: "001_start.sql"))
        #expect(try !db.connection.tableExists("A"))
    }

    @Test func twoConnectionsMigratingTheSameFileApplyEachMigrationOnce() throws {
        let db = try TestDatabase()
        let other = try db.openAnother()
        let migrator = try Migrator(directory: schemaDirectory)
        // The second connection computed its pending list before the first applied anything.
        let pendingForOther = try migrator.pendingMigrations(in: other)
        #expect(pendingForOther.count == 6)
        try migrator.migrate(db.connection)
        #expect(try migrator.migrate(other).isEmpty)
        #expect(try other.scalar("SELECT count(*) FROM tether_migrations", as: Int.self) == 6)
    }

    @Test func aStoresDefaultMigratorIsTethersOwnFilesWithTheirGap() throws {
        let own = try Migrator.builtIn()
        #expect(own.migrations.map(\.name) == ["001_tether_metadata.sql", "002_tether_changes.sql", "004_tether_change_ranges.sql"])
        let db = try TestDatabase()
        db.clearLog()
        #expect(try own.migrate(db.connection).map(\.name) == own.migrations.map(\.name))
        #expect(db.transactionCount == 3)
        #expect(try !db.connection.tableExists("Invoice"), "the sample's table is not Tether's own")
        #expect(try own.migrate(db.connection).isEmpty, "nothing left to apply")
        let error = #expect(throws: MigrationError.self) { try Migrator(own.migrations) }
        #expect(error == .gap(missing: 3, next: "004_tether_change_ranges.sql"), "the public initialiser still refuses gaps")
    }

    @Test func readsADirectory() throws {
        let db = try TestDatabase()
        let directory = db.directory + "/schema"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(try metadata.sql.utf8).write(to: URL(fileURLWithPath: directory + "/001_tether_metadata.sql"))
        try Data("CREATE TABLE T (id INTEGER PRIMARY KEY);\n".utf8).write(to: URL(fileURLWithPath: directory + "/002_t.sql"))
        try Data("notes".utf8).write(to: URL(fileURLWithPath: directory + "/README.md"))
        let migrator = try Migrator(directory: directory)
        #expect(migrator.migrations.map(\.name) == ["001_tether_metadata.sql", "002_t.sql"])
        try migrator.migrate(db.connection)
        #expect(try db.connection.tableExists("T"))

        try Data([0x2D, 0x2D, 0xFF]).write(to: URL(fileURLWithPath: directory + "/003_bad.sql"))
        let error = #expect(throws: MigrationError.self) { try Migrator(directory: directory) }
        #expect(error == .unreadable(path: directory + "/003_bad.sql", reason: "the file is not UTF-8"))
        #expect(throws: MigrationError.self) { try Migrator(directory: db.directory + "/missing") }
    }
}

@Suite("SHA-256")
struct SHA256Tests {
    @Test func fipsTestVectors() {
        #expect(SHA256.hexDigest(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
            == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hexDigest(of: Array(repeating: UInt8(ascii: "a"), count: 1_000_000))
            == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func paddingBoundaries() {
        // Lengths around the 55/56/64-byte padding boundaries, against known digests.
        #expect(SHA256.hexDigest(of: Array(repeating: 0x61, count: 55)) == "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318")
        #expect(SHA256.hexDigest(of: Array(repeating: 0x61, count: 56)) == "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a")
        #expect(SHA256.hexDigest(of: Array(repeating: 0x61, count: 64)) == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
    }
}
