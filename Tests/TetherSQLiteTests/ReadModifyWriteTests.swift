import Foundation
import Synchronization
import Testing
@testable import TetherSQLite

@Suite("Store: read-modify-write (update)")
struct ReadModifyWriteTests {
    func points(_ fixture: StoreFixture, _ id: Int64) throws -> Int? {
        try fixture.another().scalar("SELECT points FROM Ticket WHERE id = ?", [.integer(id)], as: Int.self)
    }

    @Test("update starts from the row's committed values, writes once, and observers see the result once")
    func startsFromCommittedValues() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (seen, _) = record(observe(ticket, \.points))
        try fixture.another().execute("UPDATE Ticket SET points = 10 WHERE id = ?", [.integer(id)])   // not refreshed
        fixture.log.clear()
        let result = try fixture.store.update(ticket) { ticket -> Int in
            ticket.points += 1
            return ticket.points
        }
        #expect(result == 11)
        #expect(ticket.points == 11)
        #expect(try points(fixture, id) == 11)
        fixture.scheduler.advance()
        try fixture.store.flush()
        #expect(fixture.updates.count == 1, "written in the update's transaction only: \(fixture.updates)")
        #expect(seen.values == [1, 11])
        #expect(fixture.store.pendingRowCount == 0)
    }

    @Test("two stores incrementing one field through update lose nothing")
    func concurrentIncrementsLoseNothing() throws {
        let fixture = try StoreFixture()
        let id = try #require(try fixture.store.insert(Ticket()).persistentID)
        let path = fixture.path
        let rounds = 150
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
                let ticket = try #require(try store.load(Ticket.self, id: id))
                for _ in 0..<rounds { try store.update(ticket) { $0.points += 1 } }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try points(fixture, id) == 1 + 2 * rounds)
    }

    @Test("a closure that throws writes nothing and leaves the committed values")
    func throwingClosureWritesNothing() throws {
        struct Refused: Error {}
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try fixture.another().execute("UPDATE Ticket SET points = 4 WHERE id = ?", [.integer(id)])
        #expect(throws: Refused.self) {
            try fixture.store.update(ticket) { ticket in
                ticket.points = 99
                ticket.title = "half"
                throw Refused()
            }
        }
        #expect(ticket.points == 4)
        #expect(ticket.title == "")
        fixture.scheduler.advance()
        try fixture.store.flush()
        #expect(try points(fixture, id) == 4)
        #expect(fixture.store.pendingRowCount == 0)
    }

    @Test("a row deleted elsewhere throws .deleted and the model stops being written through")
    func deletedRowThrows() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try fixture.another().execute("DELETE FROM Ticket WHERE id = ?", [.integer(id)])
        #expect(throws: StoreError.deleted(model: "Ticket", id: id)) {
            try fixture.store.update(ticket) { $0.points += 1 }
        }
        #expect(ticket.persistentID == nil)
        #expect(try fixture.another().scalar("SELECT count(*) FROM Ticket", as: Int.self) == 0)
    }

    @Test("a database locked past the busy timeout: a clear error, nothing written, the model at its committed values")
    func lockedDatabaseThrows() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(100))
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        var ran = false
        do {
            try fixture.store.update(ticket) { ran = true; $0.points += 1 }
            Issue.record("update returned while another connection held the write lock")
        } catch let error as StoreError {
            #expect(error.sqliteError?.code.primary == SQLiteResultCode.busy)
        }
        #expect(!ran)
        #expect(ticket.points == 1)
        try other.execute("ROLLBACK")
        try fixture.store.update(ticket) { $0.points += 1 }
        #expect(try points(fixture, id) == 2)
    }

    @Test("the lent connection reads in the same transaction")
    func lentConnectionReads() throws {
        let fixture = try StoreFixture()
        let first = try fixture.store.insert(Ticket())
        first.points = 41
        try fixture.store.flush()
        let second = try fixture.store.insert(Ticket())
        try fixture.store.update(second) { ticket, db in
            ticket.points = (try db.scalar("SELECT max(points) FROM Ticket", as: Int.self) ?? 0) + 1
        }
        #expect(second.points == 42)
        #expect(try points(fixture, try #require(second.persistentID)) == 42)
    }

    @Test("pending changes are committed before the update reads the row")
    func pendingChangesCommittedFirst() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        ticket.title = "mine"
        try fixture.store.update(ticket) { $0.points += 1 }
        #expect(ticket.title == "mine")
        #expect(try fixture.another().scalar("SELECT title FROM Ticket WHERE id = ?", [.integer(id)], as: String.self) == "mine")
        #expect(try points(fixture, id) == 2)
    }

    @Test("an observer's correction of update's result is a local change, written after")
    func correctionAfterUpdateIsWritten() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let clamp = observe(ticket, \.points).subscribe(with: ticket, next: { ticket, points in
            if points > 10 { ticket.points = 10 }
        })
        defer { clamp.dispose() }
        try fixture.another().execute("UPDATE Ticket SET points = 10 WHERE id = ?", [.integer(id)])
        try fixture.store.update(ticket) { $0.points += 5 }
        #expect(ticket.points == 10)
        #expect(fixture.store.pendingRowCount == 1, "the clamp is pending")
        try fixture.store.flush()
        #expect(try points(fixture, id) == 10)
    }

    @Test("a write the database refuses: the error is thrown and sent, nothing is written, the model keeps the row's values")
    func refusedWriteRestoresTheModel() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try fixture.another().execute("""
            CREATE TRIGGER refuse_many BEFORE UPDATE OF points ON Ticket WHEN NEW.points > 100
            BEGIN SELECT RAISE(ABORT, 'too many points'); END
            """)
        let (errors, _) = record(fixture.store.errors)
        let thrown = #expect(throws: StoreError.self) {
            try fixture.store.update(ticket) { $0.points = 101 }
        }
        #expect(thrown?.sqliteError?.message.contains("too many points") == true)
        #expect(errors.values.count == 1)
        #expect(ticket.points == 1)
        fixture.scheduler.advance()
        try fixture.store.flush()
        #expect(try points(fixture, id) == 1)
        #expect(fixture.store.pendingRowCount == 0)
    }
}

