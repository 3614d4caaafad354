import Foundation
import Testing
@testable import TetherSQLite

/// The names of the files in `directory`, sorted.
func files(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// A new temporary directory (removed by the caller).
func temporaryDirectory(_ prefix: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    return directory
}

/// Copies the database file alone (not its -wal or -shm) into a new directory and opens the
/// copy: what someone who copies "the database" gets.
final class CopiedDatabase {
    let directory: String
    let connection: Connection

    init(of path: String) throws {
        directory = try temporaryDirectory("tether-copy")
        let copy = directory + "/copy.sqlite"
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        connection = try Connection(path: copy, options: .init(readOnly: true))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }
}

@Suite("Store: closing leaves one self-contained file")
struct CloseTests {
    @Test func aChildThatExitsNormallyLeavesOnlyTheDatabaseFileHoldingEveryChange() throws {
        let directory = try temporaryDirectory("tether-close-exit")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/exit.sqlite"

        let child = try Child(["exit", path])
        _ = child.readLines { _ in false }
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)
        #expect(files(in: directory) == ["exit.sqlite"], "no -wal or -shm left behind")
        let copy = try CopiedDatabase(of: path)
        #expect(try copy.connection.rows("SELECT count(*), min(points), max(points) FROM Ticket").first?.values == [50, 777, 777])
        #expect(try copy.connection.scalar("PRAGMA integrity_check", as: String.self) == "ok")
    }

    @Test func freeingTheStoreClosesIt() throws {
        let fixture = try StoreFixture()
        do {
            let tickets = [Ticket(), Ticket()]
            try fixture.store.insert(contentsOf: tickets)
            tickets[0].title = "one"
            tickets[1].points = 2
        }
        fixture.close()                                   // deinit: flush, then close
        #expect(files(in: fixture.directory) == ["store.sqlite"])
        let copy = try CopiedDatabase(of: fixture.path)
        #expect(try copy.connection.rows("SELECT title, points FROM Ticket ORDER BY id").map(\.values) == [["one", 1], ["", 2]])
    }

    @Test func closeWritesEverythingRemovesTheWALAndEndsTheStore() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let (errors, _) = record(store.errors)
        let (results, _) = record(store.observe(Ticket.self))
        let (changes, _) = record(store.committedChanges)
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        ticket.title = "closed"                           // pending: close writes it
        let database = store.database

        try store.close()

        #expect(files(in: fixture.directory) == ["store.sqlite"])
        let copy = try CopiedDatabase(of: fixture.path)
        #expect(try copy.connection.rows("SELECT title FROM Ticket WHERE id = ?", [.integer(id)]).first?[0] == .text("closed"))
        #expect(results.isCompleted, "live queries complete")
        #expect(changes.isCompleted)
        #expect(store.isClosed)
        #expect(store.pendingRowCount == 0)

        // Every call fails with a clear error.
        let closed = StoreError.closed(path: fixture.path)
        #expect(closed.description == "the store of \(fixture.path) is closed")
        #expect(throws: closed) { try store.fetch(Ticket.self) }
        #expect(throws: closed) { try store.load(Ticket.self, id: id) }
        #expect(throws: closed) { try store.insert(Ticket()) }
        #expect(throws: closed) { try store.delete(ticket) }
        #expect(throws: closed) { try store.update(ticket) { $0.points = 2 } }
        #expect(throws: closed) { try store.flush() }
        #expect(throws: closed) { try store.refresh() }
        let (late, _) = record(store.observe(Ticket.self))
        #expect(late.events.count == 1)
        if case .error(let error)? = late.events.first { #expect(error == closed) } else { Issue.record("\(late.events)") }

        // A change to a model is reported, not dropped silently.
        ticket.points = 9
        fixture.scheduler.advance()
        #expect(errors.values == [closed])
        #expect(store.pendingRowCount == 0)

        // The connection is closed: using it fails with SQLITE_MISUSE, never touching a freed handle.
        let misuse = #expect(throws: SQLiteError.self) { try database.sync { try $0.rows("SELECT 1") } }
        #expect(misuse?.code == .misuse)
        #expect(misuse?.message == "the connection to \(fixture.path) is closed")

        try store.close()                                 // closing again does nothing
        #expect(errors.values == [closed])
    }

    @Test func closeWhoseFlushFailsThrowsAndLeavesTheStoreOpenAndUsable() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(50))
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        var other: Connection? = try fixture.another()
        try other?.execute("BEGIN IMMEDIATE")              // another program holds the write lock
        ticket.points = 5

        let error = #expect(throws: StoreError.self) { try store.close() }
        #expect(error?.sqliteError?.isBusy == true)
        #expect(!store.isClosed)
        #expect(store.pendingRowCount == 1, "the change is kept")
        #expect(try store.fetch(Ticket.self).first === ticket, "still usable")

        try other?.execute("COMMIT")
        other = nil
        try store.close()
        #expect(files(in: fixture.directory) == ["store.sqlite"])
        let copy = try CopiedDatabase(of: fixture.path)
        #expect(try copy.connection.scalar("SELECT points FROM Ticket", as: Int.self) == 5)
    }

    @Test func aStoreFreedWhileItsFlushFailsIsClosedAllTheSame() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(20))
        let ticket = try fixture.store.insert(Ticket())
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        ticket.points = 5
        let database = fixture.store.database
        fixture.close()                                   // the flush fails (reported on stderr)
        let misuse = #expect(throws: SQLiteError.self) { try database.sync { try $0.rows("SELECT 1") } }
        #expect(misuse?.code == .misuse, "the connection was closed")
        try other.execute("ROLLBACK")
    }
}

@Suite("Connection: closing")
struct ConnectionCloseTests {
    @Test func aClosedConnectionFailsWithMisuseAndReportsNothingOpen() throws {
        let db = try TestDatabase()
        try db.connection.execute("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);")
        let queue = try DatabaseQueue(path: db.path)
        #expect(try queue.sync { try $0.scalar("SELECT x FROM t", as: Int.self) } == 1)
        queue.close()
        queue.close()                                     // twice: nothing more
        let message = "the connection to \(db.path) is closed"
        let attempts: [(String, @Sendable (Connection) throws -> Void)] = [
            ("execute script", { try $0.execute("SELECT 1") }),
            ("execute", { try $0.execute("INSERT INTO t VALUES (?)", [2]) }),
            ("rows", { _ = try $0.rows("SELECT x FROM t") }),
            ("scalar", { _ = try $0.scalar("SELECT x FROM t", as: Int.self) }),
            ("prepare", { _ = try $0.prepare("SELECT x FROM t") }),
            ("cachedStatement", { _ = try $0.cachedStatement("SELECT x FROM t") }),
            ("inTransaction", { try $0.inTransaction { } }),
            ("tablesRead", { _ = try $0.tablesRead(by: "SELECT x FROM t") }),
            ("withTriggersDisabled", { try $0.withTriggersDisabled { } }),
        ]
        for (name, attempt) in attempts {
            let error = #expect(throws: SQLiteError.self, "\(name)") { try queue.sync(attempt) }
            #expect(error?.code == .misuse, "\(name)")
            #expect(error?.message == message, "\(name)")
        }
        let state = queue.sync { ($0.isClosed, $0.isInTransaction, $0.isReadOnly, $0.lastInsertRowID, $0.changes, $0.totalChanges, $0.cachedStatementCount) }
        #expect(state.0 && !state.1 && state.2 && state.3 == 0 && state.4 == 0 && state.5 == 0 && state.6 == 0)
        queue.sync { $0.trace { _ in } }                  // ignored
        #expect(try db.connection.scalar("SELECT count(*) FROM t", as: Int.self) == 1, "the file is fine")
    }
}
