import Foundation
import Testing
@testable import TetherSQLite

/// Runs `store-child` with `arguments` to its end; returns its status, standard output and
/// standard error (standard error through a file, so that neither pipe can fill up).
func runChild(_ arguments: [String], in directory: String) throws -> (status: Int32, output: String, errors: String) {
    let errorPath = directory + "/child-stderr.txt"
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: errorPath) }
    let child = try Child(arguments, errors: FileHandle(forWritingAtPath: errorPath))
    let lines = child.readLines { _ in false }
    child.process.waitUntilExit()
    let errors = String(decoding: FileManager.default.contents(atPath: errorPath) ?? Data(), as: UTF8.self)
    return (child.process.terminationStatus, lines.joined(separator: "\n"), errors)
}

/// A line from swift-log's default handler, split into its timestamp and the rest.
func splitTimestamp(_ text: String) -> (timestamp: Substring, rest: Substring) {
    guard let space = text.firstIndex(of: " ") else { return ("", text[...]) }
    return (text[..<space], text[text.index(after: space)...])
}

@Suite("Store: the database file deleted or replaced while open")
struct FileLostTests {
    @Test func deletingTheFileKeepsTheChangesPendingAndSaysSoOnce() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (errors, _) = record(store.errors)
        let ticket = try store.insert(Ticket())
        try store.flush()
        for suffix in ["", "-wal", "-shm"] { #expect(unlink(fixture.path + suffix) == 0) }

        ticket.title = "kept"
        fixture.scheduler.advance()                        // the end-of-turn commit...
        store.writer.sync { _ in }                         // ...on the writer queue
        fixture.scheduler.advance()                        // its outcome
        let lost = StoreError.fileLost(path: fixture.path)
        #expect(errors.values == [lost])
        #expect(lost.description == "the database file \(fixture.path) was deleted or replaced while open; changes are kept in memory and not written")
        #expect(store.pendingRowCount == 1, "the change is kept")
        #expect(ticket.title == "kept")
        #expect(throws: lost) { try store.flush() }
        #expect(store.pendingRowCount == 1)

        // Retries find the file still gone: no new error each time, nothing written anywhere.
        for _ in 0..<8 {
            fixture.scheduler.advance(by: .seconds(5))
            store.writer.sync { _ in }
        }
        fixture.scheduler.advance()
        #expect(errors.values == [lost], "told once")
        #expect(store.pendingRowCount == 1)

        // Other writes refuse too.
        #expect(throws: lost) { try store.insert(Ticket()) }
        #expect(throws: lost) { try store.delete(ticket) }
        #expect(throws: lost) { try store.update(ticket) { $0.points = 3 } }
        #expect(ticket.persistentID != nil, "not deleted")
        #expect(files(in: fixture.directory) == [], "no file was made again")

        fixture.close()                                    // reports on stderr; writes nothing
        #expect(files(in: fixture.directory) == [])
    }

    @Test func everyWriteRefusesOnceTheFileIsGoneAndReadsStillWork() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        for suffix in ["", "-wal", "-shm"] { #expect(unlink(fixture.path + suffix) == 0) }
        let lost = StoreError.fileLost(path: fixture.path)
        #expect(throws: lost) { try store.update(ticket) { $0.points = 3 } }   // nothing pending: refused under the lock
        #expect(ticket.points == 1)
        #expect(throws: lost) { try store.fetch(Order.self) }                 // a new table is a write
        #expect(throws: lost) { try store.insert(Ticket()) }
        #expect(throws: lost) { try store.delete(ticket) }
        #expect(try store.fetch(Ticket.self).map(\.persistentID) == [ticket.persistentID], "reads still work")
        #expect(store.pendingRowCount == 0)
        #expect(files(in: fixture.directory) == [])
    }

    @Test func aFileMovedAwayAndBackGetsThePendingChangesAtTheNextRetry() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (errors, _) = record(store.errors)
        let ticket = try store.insert(Ticket())
        let away = fixture.directory + "/away.sqlite"
        #expect(rename(fixture.path, away) == 0)
        ticket.points = 8
        fixture.scheduler.advance()
        store.writer.sync { _ in }
        fixture.scheduler.advance()
        let lost = StoreError.fileLost(path: fixture.path)
        #expect(errors.values == [lost])
        #expect(store.pendingRowCount == 1)

        #expect(rename(away, fixture.path) == 0)           // the same file, back under its name
        fixture.scheduler.advance(by: .milliseconds(50))   // the retry
        store.writer.sync { _ in }
        fixture.scheduler.advance()
        #expect(store.pendingRowCount == 0)
        #expect(try fixture.another().scalar("SELECT points FROM Ticket", as: Int.self) == 8)

        // Lost again after a successful write: told again.
        #expect(rename(fixture.path, away) == 0)
        ticket.points = 9
        #expect(throws: lost) { try store.flush() }
        #expect(errors.values == [lost, lost])
        #expect(rename(away, fixture.path) == 0)
        try store.flush()
        #expect(try fixture.another().scalar("SELECT points FROM Ticket", as: Int.self) == 9)
    }

    @Test func theWatcherTellsAnIdleStore() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let (errors, _) = record(store.errors)
        try store.insert(Ticket())
        #expect(rename(fixture.path, fixture.directory + "/moved.sqlite") == 0)   // moved away
        let told = pump(fixture.scheduler, timeout: .seconds(5)) { !errors.values.isEmpty }
        #expect(told)
        #expect(errors.values == [.fileLost(path: fixture.path)])
    }

    @Test func anotherDatabaseRenamedOverTheFileIsNeitherWrittenNorHarmed() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (errors, _) = record(store.errors)
        let ticket = try store.insert(Ticket())
        try store.flush()

        // Another program's database, open, with a commit still in its -wal, is renamed over ours
        // (with its -wal and -shm).
        let other = fixture.directory + "/other.sqlite"
        let owner = try Connection(path: other)
        try owner.execute("CREATE TABLE Other (x INTEGER); INSERT INTO Other VALUES (42);")
        for suffix in ["", "-wal", "-shm"] { #expect(rename(other + suffix, fixture.path + suffix) == 0) }

        ticket.title = "not there"
        let lost = StoreError.fileLost(path: fixture.path)
        #expect(throws: lost) { try store.flush() }
        #expect(errors.values == [lost])
        #expect(store.pendingRowCount == 1)

        fixture.close()                                    // must not delete the other's -wal or -shm
        #expect(files(in: fixture.directory) == ["store.sqlite", "store.sqlite-shm", "store.sqlite-wal"])
        let reader = try Connection(path: fixture.path, options: .init(readOnly: true))
        #expect(try reader.scalar("SELECT x FROM Other", as: Int.self) == 42, "the other's commit is still there")
        #expect(try !reader.tableExists("Ticket"), "nothing of ours was written into it")
        #expect(try reader.scalar("PRAGMA integrity_check", as: String.self) == "ok")
        withExtendedLifetime(owner) {}
    }

    @Test func aChildThatExitsAfterItsFileWasDeletedNamesTheUnwrittenRows() throws {
        let directory = try temporaryDirectory("tether-lost")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lost.sqlite"
        let (status, output, errors) = try runChild(["lost", path], in: directory)
        #expect(status == 0)
        #expect(output == "changed")
        // The child never bootstraps swift-log: its default handler writes the error to standard
        // error, after a timestamp.
        let (timestamp, line) = splitTimestamp(errors)
        #expect(!timestamp.isEmpty, "\(errors)")
        #expect(line == "error tether.store: [TetherSQLite] at exit, 2 changed rows (Ticket 1: title, points; Ticket 2: title, points) could not be written to \(path): the database file \(path) was deleted or replaced while open; changes are kept in memory and not written\n")
        #expect(files(in: directory) == [], "nothing was made again")
    }
}
