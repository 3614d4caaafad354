import Foundation
import Testing
@testable import TetherSQLite

/// A database with one ticket (title "original"), in a directory anyone may write, owned by the
/// user `store-child` becomes (nobody, uid 65534, when the tests run as root: root may write
/// any file, so file permissions are tested in a child that drops its privileges), and made
/// read-only (0444).
final class ReadOnlyFixture {
    let directory: String
    let path: String

    init() throws {
        directory = try temporaryDirectory("tether-readonly")
        path = directory + "/store.sqlite"
        #expect(chmod(directory, 0o777) == 0)
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        try store.insert(Ticket()).title = "original"
        try store.close()
        if geteuid() == 0 { #expect(chown(path, 65534, 65534) == 0) }
        #expect(chmod(path, 0o444) == 0)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The permission bits of the database file, or of its `-wal` or `-shm` (`suffix`).
    func mode(_ suffix: String = "") -> mode_t? {
        var status = stat()
        guard stat(path + suffix, &status) == 0 else { return nil }
        return status.st_mode & 0o777
    }
}

/// Sets (or clears) the immutable attribute of `path` with chattr(1): even root may not open an
/// immutable file for writing. False where that is not possible (not root, a file system
/// without the attribute, no chattr).
func setImmutable(_ path: String, _ immutable: Bool) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
    process.arguments = [immutable ? "+i" : "-i", path]
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

/// Whether files in the temporary directory can be made immutable here.
func immutableFilesWork() -> Bool {
    guard let directory = try? temporaryDirectory("tether-chattr") else { return false }
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let probe = directory + "/probe"
    guard FileManager.default.createFile(atPath: probe, contents: Data()), setImmutable(probe, true) else { return false }
    return setImmutable(probe, false)
}

@Suite("Store: read-only files", .serialized)
struct ReadOnlyTests {
    @Test(arguments: ["retry", "flush"])
    func aFileWithoutWritePermissionIsReportedAndWrittenOnceWritable(_ how: String) throws {
        let fixture = try ReadOnlyFixture()
        let child = try Child(["readonly", fixture.path, how])
        let first = child.readLines { $0.last?.hasPrefix("pending") == true }
        #expect(first.first == "readonly true", "SQLite opened the 0444 file read-only: \(first)")
        #expect(first.contains { $0.hasPrefix("error SQLITE_READONLY") }, "the write was reported: \(first)")
        #expect(first.last == "pending 1", "and the change kept")
        #expect(fixture.mode("-shm") == 0o444, "SQLite made -shm with the database file's mode")

        #expect(chmod(fixture.path, 0o644) == 0)           // the user fixes the permissions
        child.send("go")
        let rest = child.readLines { $0.last == "closed" }
        child.process.waitUntilExit()
        #expect(rest == ["pending 0", "readonly false", "closed"])
        #expect(child.process.terminationStatus == 0)
        #expect(files(in: fixture.directory) == ["store.sqlite"])
        let copy = try CopiedDatabase(of: fixture.path)
        #expect(try copy.connection.scalar("SELECT title FROM Ticket WHERE id = 1", as: String.self) == "written")
    }

    @Test func aNewStoreOpensOverTheReadOnlyWALFilesAReaderLeftBehind() throws {
        let fixture = try ReadOnlyFixture()
        let reader = try Child(["readonly-exit", fixture.path])
        let read = reader.readLines { _ in false }
        reader.process.waitUntilExit()
        #expect(read == ["readonly true", "title original"])
        #expect(files(in: fixture.directory) == ["store.sqlite", "store.sqlite-shm", "store.sqlite-wal"], "a read-only connection cannot remove them")
        #expect(fixture.mode("-shm") == 0o444)
        #expect(fixture.mode("-wal") == 0o444)

        #expect(chmod(fixture.path, 0o644) == 0)
        let writer = try Child(["open", fixture.path])
        let written = writer.readLines { _ in false }
        writer.process.waitUntilExit()
        #expect(written == ["readonly false", "written", "closed"])
        #expect(files(in: fixture.directory) == ["store.sqlite"])
        let copy = try CopiedDatabase(of: fixture.path)
        #expect(try copy.connection.scalar("SELECT points FROM Ticket WHERE id = 1", as: Int.self) == 7)
    }

    /// The same path as the child above, in this process, where the file system supports
    /// immutable files (SQLite opens an immutable file read-only, even for root).
    @Test(.enabled(if: immutableFilesWork(), "chattr +i is not possible here; the store-child tests cover this"))
    func anImmutableFileIsReportedAndWrittenOnceItIsNotImmutable() throws {
        let fixture = try StoreFixture()
        try fixture.store.insert(Ticket()).title = "original"
        fixture.close()
        #expect(setImmutable(fixture.path, true))
        defer { _ = setImmutable(fixture.path, false) }
        let store = try Store(path: fixture.path, scheduler: fixture.scheduler, watchesExternalChanges: false)
        #expect(store.isReadOnly)
        let (errors, _) = record(store.errors)
        let ticket = try #require(try store.load(Ticket.self, id: 1))
        ticket.title = "written"
        fixture.scheduler.advance()
        store.writer.sync { _ in }
        fixture.scheduler.advance()
        #expect(errors.values.count == 1)
        #expect(errors.values.first?.sqliteError?.isReadOnly == true)
        #expect(store.pendingRowCount == 1)

        #expect(setImmutable(fixture.path, false))
        fixture.scheduler.advance(by: .milliseconds(50))   // the retry opens the connection again
        store.writer.sync { _ in }
        fixture.scheduler.advance()
        #expect(store.pendingRowCount == 0)
        #expect(!store.isReadOnly)
        #expect(errors.values.count == 1)
        #expect(try fixture.another().scalar("SELECT title FROM Ticket WHERE id = 1", as: String.self) == "written")
        try store.close()
    }

    @Test func aReadOnlyStoreDoesNotCreateOrMigrate() throws {
        let directory = try temporaryDirectory("tether-readonly-open")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let missing = #expect(throws: StoreError.self) { try Store(path: directory + "/none.sqlite", scheduler: TestScheduler(), readOnly: true) }
        #expect(missing?.sqliteError?.code == .cantOpen)
        #expect(files(in: directory) == [])

        let plain = directory + "/plain.sqlite"
        try Connection(path: plain).execute("CREATE TABLE t (x INTEGER)")
        let unmigrated = #expect(throws: StoreError.self) { try Store(path: plain, scheduler: TestScheduler(), readOnly: true) }
        #expect(unmigrated?.description.contains("SQLITE_READONLY") == true, "\(String(describing: unmigrated))")
    }

    @Test func aStoreOpenedReadOnlyOnPurposeRefusesWritesAndKeepsTheModelsValues() throws {
        let fixture = try StoreFixture()
        try fixture.store.insert(Ticket()).title = "original"
        fixture.close()
        let store = try Store(path: fixture.path, scheduler: fixture.scheduler, watchesExternalChanges: false, readOnly: true)
        #expect(store.isReadOnly)
        let (errors, _) = record(store.errors)
        let ticket = try #require(try store.load(Ticket.self, id: 1))
        #expect(ticket.title == "original")

        ticket.title = "changed"
        fixture.scheduler.advance()
        let refused = StoreError.readOnly(path: fixture.path)
        #expect(refused.description == "the store of \(fixture.path) was opened read-only; the change was not written")
        #expect(errors.values == [refused])
        #expect(ticket.title == "changed", "the model keeps its value")
        #expect(store.pendingRowCount == 0, "nothing waits to be written")
        try store.flush()
        #expect(throws: refused) { try store.insert(Ticket()) }
        #expect(throws: refused) { try store.delete(ticket) }
        #expect(throws: refused) { try store.update(ticket) { $0.points = 2 } }
        #expect(ticket.persistentID == 1)

        // Changes made elsewhere still reach its models, and are not taken as changes to write.
        try fixture.another().execute("UPDATE Ticket SET points = 4 WHERE id = 1")
        try store.refresh()
        #expect(ticket.points == 4)
        #expect(errors.values == [refused])
        #expect(try fixture.another().scalar("SELECT title FROM Ticket WHERE id = 1", as: String.self) == "original")
        try store.close()
    }
}
