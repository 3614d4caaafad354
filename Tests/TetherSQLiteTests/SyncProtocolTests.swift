import Foundation
import Testing
@testable import TetherSQLite

/// The sync protocol's guarantees (Sources/TetherSQLite/TetherSQLite.docc/Persistence.md, "The
/// sync protocol"), each tried with the interleaving that used to break it: a commit in flight
/// when `flush()` is called, a reload read before a local commit and applied after it, a row
/// loaded between the watcher's look and the store's next turn, `refresh()` after the watcher
/// has read a change.
@Suite("Store: the sync protocol")
struct SyncProtocolTests {
    /// Reads the log the way the watcher thread does: on the writer queue, leaving what it found
    /// for the store's next turn.
    func watcherLooks(_ store: Store) {
        store.catchUpRequest()()
    }

    /// Two sheets in the store (then `before` runs, given the first); another program deletes
    /// the second and inserts a sheet of its own, to which SQLite gives the same id. The store
    /// has not looked yet.
    func twoSheetsTheLastReplacedElsewhere(
        _ fixture: StoreFixture, before: (Sheet) throws -> Void = { _ in }
    ) throws -> (a: Sheet, b: Sheet, bID: Int64, other: Connection) {
        let a = Sheet(), b = Sheet()
        try fixture.store.insert(a)
        try fixture.store.insert(b)
        try before(a)
        let bID = try #require(b.persistentID)
        let other = try fixture.another()
        try other.execute("DELETE FROM Sheet WHERE id = ?", [.integer(bID)])
        try other.execute("INSERT INTO Sheet (id, title) VALUES (?, 'theirs')", [.integer(bID)])
        return (a, b, bID, other)
    }

    /// A turn of the store whose commit runs on the writer queue once the turn is over (one
    /// that ended during the turn would have its outcome applied in it), with `during` run in
    /// the turn's place while it waits; returns once the commit has run. Its outcome waits for
    /// the next turn.
    func turnWithItsCommitAfter(_ fixture: StoreFixture, during: () -> Void = {}) {
        let gate = DispatchGroup()
        gate.enter()
        fixture.store.state.beforeAsynchronousCommit = { gate.wait() }
        fixture.scheduler.advance()
        fixture.store.state.beforeAsynchronousCommit = nil
        during()
        gate.leave()
        fixture.store.writer.sync { _ in }
    }

    func points(_ fixture: StoreFixture, _ id: Int64) throws -> Int? {
        try fixture.another().scalar("SELECT points FROM Ticket WHERE id = ?", [.integer(id)], as: Int.self)
    }

    @Test("flush() waits for the commit in flight and throws when it fails; the change stays pending")
    func flushWaitsForCommitInFlight() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(200))
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        try other.execute("UPDATE Ticket SET title = 'locker' WHERE id = ?", [.integer(id)])

        ticket.points = 7
        fixture.scheduler.advance()   // the end-of-turn commit is now in flight, and will time out
        #expect(fixture.store.pendingRowCount == 1)
        #expect(throws: StoreError.self) { try fixture.store.flush() }
        #expect(fixture.store.pendingRowCount == 1)
        #expect(try points(fixture, id) == 1)

        try other.execute("ROLLBACK")
        try fixture.store.flush()
        #expect(fixture.store.pendingRowCount == 0)
        #expect(try points(fixture, id) == 7)
    }

    @Test("a reload read before a local commit never undoes it")
    func staleReloadDoesNotUndoLocalCommit() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try fixture.another().execute("UPDATE Ticket SET title = 'elsewhere' WHERE id = ?", [.integer(id)])
        watcherLooks(fixture.store)   // read: points 1, title "elsewhere"; applied at the next turn

        ticket.points += 1
        try fixture.store.flush()
        #expect(try points(fixture, id) == 2)
        fixture.scheduler.advance()
        #expect(ticket.points == 2)
        #expect(ticket.title == "elsewhere")

        ticket.points += 1
        try fixture.store.flush()
        #expect(try points(fixture, id) == 3)
    }

    @Test("the sqlite3 shell as the other writer: a reload read before a local commit never undoes it")
    func staleReloadAfterTheShellDoesNotUndoLocalCommit() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        shell.arguments = ["sqlite3", fixture.path, "UPDATE Ticket SET title = 'shell' WHERE id = \(id);"]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "sqlite3 (Debian package sqlite3; .ci/run installs it) ran")
        watcherLooks(fixture.store)
        for expected in 2...4 {
            ticket.points += 1
            try fixture.store.flush()
            fixture.scheduler.advance()
            #expect(ticket.points == expected)
        }
        #expect(ticket.title == "shell")
        #expect(try points(fixture, id) == 4)
    }

    @Test("a row inserted elsewhere and loaded before the next turn stays live")
    func rowLoadedBeforeTurnStaysLive() throws {
        let fixture = try StoreFixture()
        let second = try SecondStore(fixture)   // has not used Invoice yet
        let inserted = try fixture.store.insert(Ticket())
        let id = try #require(inserted.persistentID)
        watcherLooks(second.store)              // reads the insert, for a table it does not know yet

        let loaded = try #require(try second.store.load(Ticket.self, id: id))
        let (deletions, _) = record(second.store.deletion(of: loaded))
        second.scheduler.advance()
        #expect(loaded.persistentID == id)
        #expect(deletions.values.isEmpty)

        inserted.points = 5
        try fixture.store.flush()
        try second.store.refresh()
        #expect(loaded.points == 5)
        loaded.title = "B"
        try second.store.flush()
        #expect(try fixture.another().scalar("SELECT title FROM Ticket WHERE id = ?", [.integer(id)], as: String.self) == "B")
    }

    @Test("refresh() applies what the watcher already read")
    func refreshAppliesWhatTheWatcherRead() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try fixture.another().execute("UPDATE Ticket SET points = 9 WHERE id = ?", [.integer(id)])
        watcherLooks(fixture.store)
        try fixture.store.refresh()
        #expect(ticket.points == 9)
    }

    @Test("a store reads and watches its tables while another program holds the write lock")
    func opensTablesWhileAnotherProgramWrites() throws {
        let fixture = try StoreFixture()
        let id = try #require(try fixture.store.insert(Ticket()).persistentID)
        let locker = try fixture.another()
        try locker.execute("BEGIN IMMEDIATE")
        defer { try? locker.execute("ROLLBACK") }
        let second = try Store(path: fixture.path, scheduler: TestScheduler(), busyTimeout: .milliseconds(50), watchesExternalChanges: false)
        let (results, _) = record(second.observe(Ticket.self))
        #expect(results.values.map { $0.compactMap(\.persistentID) } == [[id]])
        #expect(try second.load(Ticket.self, id: id)?.points == 1)
    }

    @Test("at exit, changes that cannot be written are named on standard error")
    func exitReportsWhatCannotBeWritten() throws {
        let fixture = try StoreFixture()
        try fixture.store.insert(contentsOf: [Ticket(), Ticket()])
        try fixture.store.flush()
        let locker = try fixture.another()
        try locker.execute("BEGIN IMMEDIATE")
        defer { try? locker.execute("ROLLBACK") }

        let child = Process()
        child.executableURL = executableNextToTheTests("store-child")
        child.arguments = ["exit-locked", fixture.path]
        let errors = Pipe()
        child.standardError = errors
        child.standardOutput = FileHandle.nullDevice
        try child.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(text.contains(" error tether.store: [TetherSQLite] at exit, 2 changed rows (Ticket 1: points; Ticket 2: points) could not be written to \(fixture.path)"), "\(text)")
        #expect(text.contains("SQLITE_BUSY"), "\(text)")
    }

    @Test("a model loaded after a look that is still waiting never shows that look's older values")
    func loadedModelNotSetBackByAnOlderLook() throws {
        let fixture = try StoreFixture()
        let second = try SecondStore(fixture)
        let id = try #require(try fixture.store.insert(Ticket()).persistentID)
        do { _ = try second.store.load(Ticket.self, id: id) }   // the table is known; the model is freed
        let other = try fixture.another()
        try other.execute("UPDATE Ticket SET points = 2 WHERE id = ?", [.integer(id)])
        watcherLooks(second.store)                               // reads points 2; applied at the next turn
        try other.execute("UPDATE Ticket SET points = 3 WHERE id = ?", [.integer(id)])
        let loaded = try #require(try second.store.load(Ticket.self, id: id))
        #expect(loaded.points == 3)
        let (seen, _) = record(observe(loaded, \.points))
        second.scheduler.advance()
        #expect(loaded.points == 3)
        #expect(seen.values == [3], "never back to 2")
    }

    @Test("an observer that flushes while a commit's outcome is applied: later changes still apply")
    func nestedDrainSeesTheBatchCommitted() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let other = try fixture.another()
        let box = store.box   // the observers run on this thread, the store's
        let flushes = observe(ticket, \.title).subscribe(next: { _ in try? box.store?.flush() })
        defer { flushes.dispose() }

        ticket.points = 5
        try other.execute("UPDATE Ticket SET title = 'theirs' WHERE id = ?", [.integer(id)])
        let gate = DispatchSemaphore(value: 0)
        store.writer.async { _ in gate.wait() }
        fixture.scheduler.advance()                     // our commit, queued: it will find 'theirs'
        gate.signal()
        store.writer.sync { _ in }                      // committed: points 5
        try other.execute("UPDATE Ticket SET points = 9 WHERE id = ?", [.integer(id)])
        let (tracker, inbox) = (store.tracker, store.inbox)
        _ = store.writer.sync { connection in inbox.push(.changes(try! tracker.catchUp(connection))) }   // reads 9
        fixture.scheduler.advance()                     // our commit's outcome: 'theirs' -> the observer flushes
        #expect(ticket.title == "theirs")
        #expect(ticket.points == 9, "the later change applies although it was applied inside the commit's outcome")
    }

    @Test("a row deleted and inserted again under the same id: the live query sends the new row's object")
    func liveQueryAfterDeleteAndInsertUnderTheSameID() throws {
        let fixture = try StoreFixture()
        try fixture.store.insert(contentsOf: [Ticket(), Ticket()])
        let (results, _) = record(fixture.store.observe(Ticket.self))
        let old = try #require(results.values.last?.last)
        #expect(old.persistentID == 2)
        let other = try fixture.another()
        try other.execute("DELETE FROM Ticket WHERE id = 2")
        try other.execute("INSERT INTO Ticket (title, points) VALUES ('again', 7)")   // SQLite gives id 2 again
        try fixture.store.refresh()
        let latest = try #require(results.values.last)
        #expect(latest.map(\.persistentID) == [1, 2])
        #expect(latest.last !== old)
        #expect(latest.last?.title == "again")
        #expect(old.persistentID == nil)
    }
}


extension SyncProtocolTests {
    /// The store has read another program's deletion of a parent (here as the watcher reads
    /// the log) but not applied it: its models still name the parent. An insert naming it must
    /// fail as it does once the deletion is applied, not land in the new row that took its id.
    @Test("an insert naming a row whose deletion is read but not applied is refused")
    func insertNamingARowDeletedInALookNotAppliedYet() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (a, b, bID, other) = try twoSheetsTheLastReplacedElsewhere(fixture)
        watcherLooks(store)                                        // read; applied at the next turn
        #expect(b.persistentID == bID, "not applied yet")
        let late = Entry()
        late.label = "late"
        late.sheet = b
        #expect(throws: StoreError.self) { try store.insert(late) }
        #expect(try other.scalar("SELECT COUNT(*) FROM Entry WHERE sheet_id = ?", [.integer(bID)], as: Int.self) == 0)
        fixture.scheduler.advance()
        #expect(b.persistentID == nil, "the deletion is applied at the next turn")
        _ = a
    }

    /// Another program deletes a parent and inserts a new one, which gets its id, with a child.
    /// The store has read that (as the watcher does) but not applied it when it loads the child
    /// by id (and reads its parent: the old one, here). Once the look is applied, the child
    /// names the new parent and is in its collection only; the old parent's model is deleted
    /// and holds nothing.
    @Test("a child loaded before a look that replaces its parent's row is applied ends under the new parent")
    func aChildLoadedBeforeALookReplacingItsParentIsAppliedEndsUnderTheNewParent() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (a, b, bID, other) = try twoSheetsTheLastReplacedElsewhere(fixture)
        _ = b.entries
        try other.execute("INSERT INTO Entry (label, sheet_id, position, amount) VALUES ('theirs', ?, 0, 1)", [.integer(bID)])
        let entryID = try #require(try other.scalar("SELECT max(id) FROM Entry", as: Int64.self))
        watcherLooks(store)                                        // read; applied at the next turn
        let entry = try #require(try store.load(Entry.self, id: entryID))
        #expect(entry.sheet === b, "before the look is applied, the id is b's here")
        fixture.scheduler.advance()
        #expect(b.persistentID == nil)
        #expect(b.entries.isEmpty)
        let theirs = try #require(entry.sheet)
        #expect(theirs !== b)
        #expect(theirs.persistentID == bID)
        #expect(theirs.entries.map { $0 === entry } == [true])
        _ = a
    }

    /// Another program deletes a child and inserts a new one, which gets its id, in the same
    /// parent. The store has read that but not applied it when it deletes its model of the old
    /// child: nothing is deleted (the row is already gone), and the new child's model joins the
    /// parent. Deleting that one then takes it out of the parent's collection: the old model,
    /// marked deleted once, no longer stands for the id.
    @Test("deleting a child whose row was replaced elsewhere leaves the new child's place alone")
    func deletingAChildReplacedElsewhereLeavesTheNewChildsPlaceAlone() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let sheet = Sheet()
        let old = Entry()
        old.label = "old"
        sheet.entries = [old]
        try store.insert(sheet)
        try store.flush()
        let (sheetID, entryID) = (try #require(sheet.persistentID), try #require(old.persistentID))
        let other = try fixture.another()
        try other.execute("DELETE FROM Entry WHERE id = ?", [.integer(entryID)])
        try other.execute("INSERT INTO Entry (label, sheet_id, position, amount) VALUES ('theirs', ?, 0, 1)", [.integer(sheetID)])
        #expect(other.lastInsertRowID == entryID, "SQLite gave the id again")
        watcherLooks(store)                                        // read; applied by the delete
        try store.delete(old)
        #expect(try other.scalar("SELECT label FROM Entry WHERE id = ?", [.integer(entryID)], as: String.self) == "theirs")
        #expect(old.persistentID == nil)
        let theirs = try #require(sheet.entries.first)
        #expect(sheet.entries.count == 1 && theirs !== old && theirs.label == "theirs")
        try store.delete(theirs)
        #expect(sheet.entries.isEmpty)
        #expect(try other.scalar("SELECT COUNT(*) FROM Entry", as: Int.self) == 0)
    }

    /// A move to a parent deleted elsewhere (its id taken by a new row) is refused by a commit
    /// that runs at a turn; before the refusal is applied, the child is moved again, to a live
    /// parent. The refusal no longer applies: the later move is written, nothing stays pending,
    /// and no error is sent (nothing the model holds now was refused).
    @Test("a move made after a refused one, before the refusal arrives, is written")
    func aMoveMadeBeforeTheRefusalOfAnEarlierOneArrivesIsWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let entry = Entry()
        let (a, b, _, other) = try twoSheetsTheLastReplacedElsewhere(fixture) { a in
            entry.sheet = a
            try store.insert(entry)
            try store.flush()
        }
        let aID = try #require(a.persistentID)
        let (errors, _) = record(store.errors)
        entry.sheet = b                   // b's row was replaced, but this store has not looked
        turnWithItsCommitAfter(fixture)   // refused; the refusal waits for the next turn
        entry.sheet = a
        try store.flush()
        #expect(try other.scalar("SELECT sheet_id FROM Entry", as: Int64.self) == aID)
        #expect(entry.sheet === a)
        #expect(store.pendingRowCount == 0)
        #expect(errors.values.isEmpty)
        #expect(b.persistentID == nil)
    }

    /// A look that holds another program's delete of a row (and a new row with its id) is read
    /// before the store takes the row's change for a commit, and applied after, while the
    /// commit waits for the writer queue. The commit checks the deletes after what the values
    /// it took reflect, not after what the store has applied by the time it runs: the change is
    /// left out, not written into the new row, and said once.
    @Test("a change taken before a look deleting its row is applied is not written when the commit runs after")
    func aChangeTakenBeforeALookDeletingItsRowIsAppliedIsNotWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let first = try store.insert(Ticket())
        let last = try store.insert(Ticket())
        try store.flush()
        let lastID = try #require(last.persistentID)
        let (errors, _) = record(store.errors)
        let other = try fixture.another()
        try other.execute("DELETE FROM Ticket WHERE id = ?", [.integer(lastID)])
        try other.execute("INSERT INTO Ticket (title, points) VALUES ('theirs', 7)")
        #expect(other.lastInsertRowID == lastID, "SQLite gave the id again")
        last.title = "mine"                                          // a commit is scheduled
        watcherLooks(store)                                          // read; its turn comes after the commit's
        // The commit takes "mine" and waits; then the look is applied.
        turnWithItsCommitAfter(fixture) {
            #expect(last.persistentID == nil, "the look was applied while the commit waited")
        }
        fixture.scheduler.advance()
        #expect(try other.scalar("SELECT title FROM Ticket WHERE id = ?", [.integer(lastID)], as: String.self) == "theirs")
        #expect(errors.values == [.deleted(model: "Ticket", id: lastID)], "the change is not written, and said once")
        #expect(store.pendingRowCount == 0)
        #expect(first.persistentID != nil)
    }

    /// SQLite gives the id of the last row again once that row is deleted, unless the table
    /// never reuses ids. A store that has not yet seen the delete still holds a model of the old
    /// row: its change must not land in the new row that took the id (another program's data),
    /// and deleting its model must not delete that row.
    @Test("a stale model of a deleted row does not write into the new row that got its id")
    func staleModelDoesNotWriteIntoAReusedID() throws {
        let fixture = try StoreFixture()
        let first = try fixture.store.insert(Ticket())
        let last = try fixture.store.insert(Ticket())
        try fixture.store.flush()
        let lastID = try #require(last.persistentID)
        let other = try fixture.another()
        try other.execute("DELETE FROM Ticket WHERE id = ?", [.integer(lastID)])
        try other.execute("INSERT INTO Ticket (title, points) VALUES ('theirs', 7)")
        let theirs = other.lastInsertRowID
        #expect(theirs == lastID, "SQLite gave the id again")
        let (errors, _) = record(fixture.store.errors)
        last.title = "mine"
        try fixture.store.flush()
        #expect(try other.scalar("SELECT title FROM Ticket WHERE id = ?", [.integer(theirs)], as: String.self) == "theirs")
        #expect(errors.values == [.deleted(model: "Ticket", id: lastID)], "the change is not written, and said so")
        #expect(last.persistentID == nil, "the model's row is gone")
        try? fixture.store.delete(last)
        #expect(try other.scalar("SELECT COUNT(*) FROM Ticket WHERE id = ?", [.integer(theirs)], as: Int.self) == 1)
        #expect(first.persistentID != nil)
    }
}
