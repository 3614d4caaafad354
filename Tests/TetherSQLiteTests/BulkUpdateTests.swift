import Foundation
import Testing
@testable import TetherSQLite

/// Rows written in one commit from which the store logs ranges of ids.
private let threshold = _ChangeTracker.bulkInsertThreshold
/// A big flush: well above the threshold.
private let many = threshold * 3

/// Tickets `0..<count`, inserted (below the threshold at a time, so that each is logged by the
/// insert trigger: the tests look at what the updates log).
private func insertTickets(_ count: Int, into store: Store) throws -> [Ticket] {
    let tickets = (0..<count).map { i in
        let ticket = Ticket()
        ticket.title = "t\(i)"
        ticket.points = i
        return ticket
    }
    try store.insert(contentsOf: tickets)
    return tickets
}

@Suite("Store: a big flush logs ranges of ids")
struct BulkUpdateTests {
    @Test func aBigFlushIsOneLogEntryReportedRowByRowHereAndInAnotherStore() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        let tickets = try insertTickets(many, into: a)
        let ids = tickets.compactMap(\.persistentID)
        try b.store.refresh()
        let (results, _) = record(b.store.observe(Ticket.self).map { $0.map(\.points) })
        let (feedA, _) = record(a.committedChanges)
        let (feedB, _) = record(b.store.committedChanges)
        let other = try fixture.another()
        let before = try highWater(other)
        fixture.log.clear()

        // Changed in another order than the ids': the log holds one run all the same.
        for ticket in tickets.reversed() { ticket.points += 1_000 }
        try a.flush()
        #expect(triggerRuns(fixture.log, "tether_Ticket_update") == 0, "the update trigger did not run")
        #expect(try entries(other, after: before) == [[.integer(before + 1), "Ticket", .integer(ids[0]), 2, .integer(ids[many - 1])]])
        #expect(a.writer.sync { $0.triggersEnabled }, "back on")
        #expect(try other.rows("SELECT points FROM Ticket ORDER BY id").map { $0[0] } == (0..<many).map { .integer(Int64($0 + 1_000)) })

        let sequence = before + 1
        #expect(feedA.values == ids.map { StoreChange(sequence: sequence, table: "Ticket", rowID: $0, kind: .update, isLocal: true) })
        try b.store.refresh()
        #expect(feedB.values == ids.map { StoreChange(sequence: sequence, table: "Ticket", rowID: $0, kind: .update, isLocal: false) })
        #expect(results.values == [Array(0..<many), (0..<many).map { $0 + 1_000 }])
    }

    @Test func belowTheThresholdTheUpdateTriggerLogsEachRow() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = try insertTickets(threshold, into: store)
        let other = try fixture.another()
        let before = try highWater(other)
        fixture.log.clear()
        for ticket in tickets.dropLast() { ticket.points += 1 }
        try store.flush()
        #expect(triggerRuns(fixture.log, "tether_Ticket_update") == threshold - 1)
        #expect(try entries(other, after: before).count == threshold - 1)

        fixture.log.clear()
        for ticket in tickets { ticket.points += 1 }
        try store.flush()
        #expect(triggerRuns(fixture.log, "tether_Ticket_update") == 0)
        #expect(try entries(other, after: before + Int64(threshold - 1)).count == 1)
    }

    @Test func rowsDeletedElsewhereAreNotWrittenAndSplitTheRuns() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = try insertTickets(many, into: store)
        let ids = tickets.compactMap(\.persistentID)
        let (errors, _) = record(store.errors)
        for ticket in tickets { ticket.points = -1 }
        // Another program deletes two of the rows before the store commits.
        let other = try fixture.another()
        try other.execute("DELETE FROM Ticket WHERE id IN (?, ?)", [.integer(ids[10]), .integer(ids[20])])
        let before = try highWater(other)
        try store.flush()
        #expect(try other.scalar("SELECT count(*) FROM Ticket", as: Int.self) == many - 2, "not written back")
        #expect(try other.scalar("SELECT count(*) FROM Ticket WHERE points = -1", as: Int.self) == many - 2)
        #expect(try entries(other, after: before) == [
            [.integer(before + 1), "Ticket", .integer(ids[0]), 2, .integer(ids[9])],
            [.integer(before + 2), "Ticket", .integer(ids[11]), 2, .integer(ids[19])],
            [.integer(before + 3), "Ticket", .integer(ids[21]), 2, .integer(ids[many - 1])],
        ])
        #expect(store.pendingRowCount == 0)
        #expect(errors.values == [.deleted(model: "Ticket", id: ids[10]), .deleted(model: "Ticket", id: ids[20])])
    }

    @Test func aTriggerOfTheAppsOwnFiresForEveryUpdatedRowAndTheRowsAreLoggedOneByOne() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = try insertTickets(many, into: store)
        let ids = tickets.compactMap(\.persistentID)
        let other = try fixture.another()
        try other.execute("""
            CREATE TABLE TicketAudit (ticket INTEGER NOT NULL, points INTEGER NOT NULL);
            CREATE TRIGGER ticket_audit AFTER UPDATE ON ticket BEGIN INSERT INTO TicketAudit VALUES (NEW.id, NEW.points); END;
            """)
        let before = try highWater(other)
        let (feed, _) = record(store.committedChanges)
        fixture.log.clear()
        for ticket in tickets { ticket.points += 7 }
        try store.flush()
        #expect(triggerRuns(fixture.log, "ticket_audit") == many)
        #expect(try other.rows("SELECT ticket, points FROM TicketAudit ORDER BY rowid").map(\.values)
            == zip(ids, 0..<many).map { [.integer($0), .integer(Int64($1 + 7))] })
        let log = try entries(other, after: before)
        #expect(log == ids.enumerated().map { [.integer(before + 1 + Int64($0.offset)), "Ticket", .integer($0.element), 2, nil] })
        #expect(feed.values.map(\.rowID) == ids)
    }

    @Test func aBigFlushOnAFullDatabaseWritesAndLogsNothingKeepsEveryChangeAndLeavesTheTriggersOn() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = try insertTickets(many, into: store)
        let ids = tickets.compactMap(\.persistentID)
        let other = try fixture.another()
        let before = try highWater(other)
        let pages = try store.writer.sync { try $0.scalar("PRAGMA page_count", as: Int.self) ?? 0 }
        store.writer.sync { connection in try? connection.execute("PRAGMA max_page_count = \(pages + 5)") }
        for ticket in tickets { ticket.title = String(repeating: "x", count: 5_000) }
        let full = #expect(throws: StoreError.self) { try store.flush() }
        #expect(full?.sqliteError?.isFull == true)
        #expect(store.pendingRowCount == many, "every change is still pending")
        #expect(try highWater(other) == before, "nothing logged")
        #expect(try other.scalar("SELECT count(*) FROM Ticket WHERE title LIKE 'x%'", as: Int.self) == 0, "nothing written")
        #expect(store.writer.sync { $0.triggersEnabled })

        store.writer.sync { connection in try? connection.execute("PRAGMA max_page_count = 1000000") }
        try store.flush()
        #expect(store.pendingRowCount == 0)
        #expect(try other.scalar("SELECT count(*) FROM Ticket WHERE title LIKE 'x%'", as: Int.self) == many)
        #expect(try entries(other, after: before) == [[.integer(before + 1), "Ticket", .integer(ids[0]), 2, .integer(ids[many - 1])]])
    }

    @Test func aBigFlushRefusedByAConstraintWritesTheOtherRowsAndLeavesTheTriggersOn() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = try insertTickets(many, into: store)
        let ids = tickets.compactMap(\.persistentID)
        let other = try fixture.another()
        try other.execute("CREATE UNIQUE INDEX unique_title ON Ticket(title)")
        let (errors, _) = record(store.errors)
        let before = try highWater(other)
        for (i, ticket) in tickets.enumerated() { ticket.title = "u\(i)" }
        tickets[many / 2].title = "u0"                                // breaks the index
        #expect(throws: StoreError.self) { try store.flush() }
        #expect(store.writer.sync { $0.triggersEnabled })
        #expect(try other.scalar("SELECT count(*) FROM Ticket WHERE title LIKE 'u%'", as: Int.self) == many - 1)
        #expect(try other.scalar("SELECT title FROM Ticket WHERE id = ?", [.integer(ids[many / 2])], as: String.self) == "t\(many / 2)")
        // Written row by row, each in a savepoint, with the triggers on.
        let log = try entries(other, after: before)
        #expect(log.count == many - 1)
        #expect(log.allSatisfy { $0[3] == 2 && $0[4] == .null })
        #expect(store.pendingRowCount == 1, "the refused row is kept back")
        #expect(errors.values.count == 1)
    }
}
