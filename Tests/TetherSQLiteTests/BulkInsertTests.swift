import Foundation
import Testing
@testable import TetherSQLite

/// Rows inserted at once from which the store logs ranges of ids (the tests use more).
private let threshold = _ChangeTracker.bulkInsertThreshold
/// A big insert: well above the threshold.
private let many = threshold * 3

/// Tickets `start..<start + count`: ticket i has title "t<i>" and i points.
private func makeTickets(_ count: Int, from start: Int = 0) -> [Ticket] {
    (start..<start + count).map { i in
        let ticket = Ticket()
        ticket.title = "t\(i)"
        ticket.points = i
        return ticket
    }
}

/// A fresh directory for a file the test sets up itself; deleted when freed.
private final class Directory {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("tether-bulk-\(UUID().uuidString)").path
    init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

@Suite("Store: a big insert logs ranges of ids")
struct BulkInsertTests {
    @Test func aBigInsertIsOneLogEntryReportedRowByRowHereAndInAnotherStore() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        _ = try a.fetch(Ticket.self)                       // the table and its triggers
        let (results, _) = record(b.store.observe(Ticket.self))
        let (feedA, _) = record(a.committedChanges)
        let (feedB, _) = record(b.store.committedChanges)
        let other = try fixture.another()
        let before = try highWater(other)
        fixture.log.clear()

        let tickets = makeTickets(many)
        try a.insert(contentsOf: tickets)
        let ids = tickets.compactMap(\.persistentID)
        let first = try #require(ids.first)
        let last = first + Int64(many) - 1
        #expect(ids == Array(first...last))
        #expect(triggerRuns(fixture.log, "tether_Ticket_insert") == 0, "the insert trigger did not run")
        #expect(try entries(other, after: before) == [[.integer(before + 1), "Ticket", .integer(first), 1, .integer(last)]])
        #expect(a.writer.sync { $0.triggersEnabled }, "back on")

        let sequence = before + 1
        #expect(feedA.values == ids.map { StoreChange(sequence: sequence, table: "Ticket", rowID: $0, kind: .insert, isLocal: true) })
        #expect(Set(feedA.values).count == many, "changes of one entry differ by row")

        try b.store.refresh()
        #expect(feedB.values == ids.map { StoreChange(sequence: sequence, table: "Ticket", rowID: $0, kind: .insert, isLocal: false) })
        #expect(results.values.map(\.count) == [0, many])
        let rows = try #require(results.values.last)
        #expect(rows.map(\.persistentID) == ids)
        #expect(rows.map(\.title) == (0..<many).map { "t\($0)" })
        #expect(rows.map(\.points) == Array(0..<many))
        #expect(rows.allSatisfy { $0.estimate == nil })

        try b.store.refresh()
        #expect(feedB.values.count == many, "each change once")
        #expect(results.values.count == 2)
    }

    @Test func rangeEntriesKeepCommitOrderAmongOtherChanges() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        let zero = try a.insert(Ticket())
        let id = try #require(zero.persistentID)
        let other = try fixture.another()
        try b.store.refresh()
        let (feedB, _) = record(b.store.committedChanges)
        let (feedA, _) = record(a.committedChanges)
        let start = try highWater(other)

        try other.execute("UPDATE Ticket SET points = 2 WHERE id = ?", [.integer(id)])
        try a.insert(contentsOf: makeTickets(many))
        try other.execute("INSERT INTO Ticket (title) VALUES ('after')")
        try a.delete(zero)
        try b.store.refresh()

        let kinds = ["update 0"] + (1...many).map { "insert \($0)" } + ["insert \(many + 1)", "delete 0"]
        let sequences = [start + 1] + Array(repeating: start + 2, count: many) + [start + 3, start + 4]
        #expect(feedB.values.map { "\($0.kind) \($0.rowID - id)" } == kinds)
        #expect(feedB.values.map(\.sequence) == sequences)
        #expect(feedB.values.allSatisfy { !$0.isLocal })
        // A saw the external update when it inserted, and the external insert when it deleted.
        #expect(feedA.values.map { "\($0.kind) \($0.rowID - id)" } == kinds)
        #expect(feedA.values.map(\.sequence) == sequences)
        #expect(feedA.values.map(\.isLocal) == [false] + Array(repeating: true, count: many) + [false, true])
    }

    @Test func anotherProcessesBigInsertReachesThisStoresLiveQueryAndFeed() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let (results, _) = record(store.observe(Ticket.self))
        let (feed, _) = record(store.committedChanges)
        let child = try Child(["bulk", fixture.path, "\(many)"])
        let lines = child.readLines { $0.contains { $0.hasPrefix("inserted ") } }
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)
        let parts = try #require(lines.last).split(separator: " ")
        let first = try #require(Int64(parts[1]))
        let last = try #require(Int64(parts[2]))
        #expect(last - first + 1 == Int64(many))

        #expect(pump(fixture.scheduler) { results.values.last?.count == many })
        #expect(results.values.map(\.count) == [0, many])
        let rows = try #require(results.values.last)
        #expect(rows.map(\.persistentID) == Array(first...last))
        #expect(rows.map(\.title) == (0..<many).map { "b\($0)" })
        #expect(rows.map(\.points) == Array(0..<many))

        let other = try fixture.another()
        let sequence = try highWater(other)
        #expect(try entries(other) == [[.integer(sequence), "Ticket", .integer(first), 1, .integer(last)]])
        #expect(feed.values == (first...last).map {
            StoreChange(sequence: sequence, table: "Ticket", rowID: $0, kind: .insert, isLocal: false)
        })
    }

    // MARK: The app's own triggers

    @Test func aTriggerOfTheAppsOwnFiresForEveryRowAndTheRowsAreLoggedOneByOne() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        _ = try store.fetch(Ticket.self)
        let order = try store.insert(Order())
        let orderID = try #require(order.persistentID)
        let other = try fixture.another()
        // A trigger on another table does not matter.
        try other.execute("""
            CREATE TABLE OrderAudit (id INTEGER NOT NULL);
            CREATE TRIGGER order_audit AFTER INSERT ON "Order" BEGIN INSERT INTO OrderAudit VALUES (NEW.id); END;
            """)
        var before = try highWater(other)
        try store.insert(contentsOf: makeTickets(many))
        #expect(try entries(other, after: before).count == 1)

        // One on the table, created by another program (its table name in another case), which
        // writes to an unlogged table and updates a model's table (logged by Tether's trigger).
        try other.execute("""
            CREATE TABLE TicketAudit (ticket INTEGER NOT NULL);
            CREATE TRIGGER ticket_audit AFTER INSERT ON ticket BEGIN
                INSERT INTO TicketAudit VALUES (NEW.id);
                UPDATE "Order" SET quantity = quantity + 1 WHERE id = \(orderID);
            END;
            """)
        before = try highWater(other)
        let (feed, _) = record(store.committedChanges)
        fixture.log.clear()
        let tickets = makeTickets(many, from: many)
        try store.insert(contentsOf: tickets)
        let ids = tickets.compactMap(\.persistentID)
        #expect(ids.count == many)

        #expect(triggerRuns(fixture.log, "ticket_audit") == many)
        #expect(try other.rows("SELECT ticket FROM TicketAudit ORDER BY rowid").map { $0[0] } == ids.map { .integer($0) })
        #expect(try other.scalar("SELECT quantity FROM \"Order\"", as: Int.self) == 1 + many)
        let log = try entries(other, after: before)
        #expect(log.count == 2 * many, "one entry per row: each insert and each update")
        #expect(log.allSatisfy { $0[4] == .null })
        // The feed is the log, read back (something besides the store's inserts logged).
        #expect(feed.values == log.map { row in
            guard case .integer(let seq) = row[0], case .text(let table) = row[1], case .integer(let id) = row[2],
                  case .integer(let kind) = row[3] else { return StoreChange(sequence: 0, table: "", rowID: 0, kind: .update, isLocal: true) }
            return StoreChange(sequence: seq, table: table, rowID: id, kind: StoreChange.Kind(rawValue: Int(kind))!, isLocal: true)
        })
        #expect(feed.values.filter { $0.table == "Ticket" }.map(\.rowID) == ids)
        #expect(feed.values.filter { $0.table == "Order" }.map { "\($0.kind) \($0.rowID)" } == Array(repeating: "update \(orderID)", count: many))
    }

    @Test func aTemporaryTriggerOfTheStoresConnectionFiresForEveryRow() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        _ = try store.fetch(Ticket.self)
        try store.database.sync { connection in
            try connection.execute("""
                CREATE TEMP TABLE seen (id INTEGER NOT NULL);
                CREATE TEMP TRIGGER seen_ticket AFTER INSERT ON main.Ticket BEGIN INSERT INTO seen VALUES (NEW.id); END;
                """)
        }
        let before = try highWater(fixture.another())
        let (feed, _) = record(store.committedChanges)
        let tickets = makeTickets(many)
        try store.insert(contentsOf: tickets)
        let ids = tickets.compactMap(\.persistentID)
        let seen = try store.database.sync { try $0.rows("SELECT id FROM seen ORDER BY rowid").map { $0[0] } }
        #expect(seen == ids.map { .integer($0) })
        let log = try entries(fixture.another(), after: before)
        #expect(log == ids.enumerated().map { [.integer(before + 1 + Int64($0.offset)), "Ticket", .integer($0.element), 1, nil] })
        #expect(feed.values == ids.enumerated().map {
            StoreChange(sequence: before + 1 + Int64($0.offset), table: "Ticket", rowID: $0.element, kind: .insert, isLocal: true)
        })
    }

    // MARK: Triggers back on

    @Test func aBigInsertThatFailsInsertsAndLogsNothingAndLeavesTheTriggersOn() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let existing = try store.insert(Ticket())
        let id = try #require(existing.persistentID)
        let other = try fixture.another()
        try other.execute("CREATE UNIQUE INDEX unique_title ON Ticket(title)")
        let (feed, _) = record(store.committedChanges)
        let (errors, _) = record(store.errors)

        // A constraint violation halfway.
        var before = try highWater(other)
        let tickets = makeTickets(many)
        tickets[many / 2].title = ""                                 // the existing row's title
        let violation = #expect(throws: StoreError.self) { try store.insert(contentsOf: tickets) }
        #expect(violation == .invalid(ValidationError(model: "Ticket", id: nil, failures: [.init(property: "title", rule: "UNIQUE")])))
        #expect(tickets.allSatisfy { $0.persistentID == nil })
        #expect(try other.scalar("SELECT count(*) FROM Ticket", as: Int.self) == 1, "nothing inserted")
        #expect(try highWater(other) == before, "nothing logged")
        #expect(store.writer.sync { $0.triggersEnabled })
        #expect(feed.events.isEmpty)

        existing.points = 5                                          // logged by the update trigger
        try store.flush()
        #expect(try entries(other, after: before) == [[.integer(before + 1), "Ticket", .integer(id), 2, nil]])
        #expect(feed.values == [StoreChange(sequence: before + 1, table: "Ticket", rowID: id, kind: .update, isLocal: true)])

        // A full database, a few rows in.
        before = try highWater(other)
        let pages = try store.writer.sync { try $0.scalar("PRAGMA page_count", as: Int.self) ?? 0 }
        store.writer.sync { connection in try? connection.execute("PRAGMA max_page_count = \(pages + 20)") }
        let big = makeTickets(many)
        for ticket in big { ticket.title += String(repeating: "x", count: 5_000) }
        let full = #expect(throws: StoreError.self) { try store.insert(contentsOf: big) }
        #expect(full?.sqliteError?.isFull == true)
        #expect(big.allSatisfy { $0.persistentID == nil })
        #expect(try other.scalar("SELECT count(*) FROM Ticket", as: Int.self) == 1)
        #expect(try highWater(other) == before)
        #expect(store.writer.sync { $0.triggersEnabled })
        store.writer.sync { connection in try? connection.execute("PRAGMA max_page_count = 1000000") }

        existing.points = 6
        try store.flush()
        #expect(try entries(other, after: before) == [[.integer(before + 1), "Ticket", .integer(id), 2, nil]])

        // The same models, inserted now.
        try store.insert(contentsOf: big)
        let ids = big.compactMap(\.persistentID)
        #expect(ids.count == many)
        #expect(try entries(other, after: before + 1) == [[.integer(before + 2), "Ticket", .integer(ids[0]), 1, .integer(ids[many - 1])]])
        #expect(feed.values.count == 2 + many)
        #expect(errors.events.isEmpty, "the failed inserts threw; nothing else went wrong")
    }

    @Test func theStoresCachedStatementsStillWorkAfterTheTriggersWereSwitched() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let other = try fixture.another()
        let start = try highWater(other)
        let (points, _) = record(store.observe(Ticket.self, where: "points >= ?", [.integer(Int64(many - 2))]).map { $0.map(\.points) })
        let (feed, _) = record(store.committedChanges)
        let b = try SecondStore(fixture)
        let (inB, _) = record(b.store.observe(Ticket.self).map { $0.count })

        let tickets = makeTickets(many)
        try store.insert(contentsOf: tickets)                  // range 1
        let ids = tickets.compactMap(\.persistentID)
        let single = try store.insert(Ticket())                 // the trigger
        tickets[0].points = 1_000                               // the update trigger
        try store.flush()
        try store.delete(tickets[1])                            // the delete trigger
        let more = makeTickets(many, from: many)
        try store.insert(contentsOf: more)                      // range 2
        #expect(try store.load(Ticket.self, id: tickets[2].persistentID!) === tickets[2])
        #expect(try store.fetch(Ticket.self, where: "points = ?", [1_000]).map { $0 === tickets[0] } == [true])
        try b.store.refresh()

        let moreIDs = more.compactMap(\.persistentID)
        let singleID = try #require(single.persistentID)
        #expect(try entries(other, after: start) == [
            [.integer(start + 1), "Ticket", .integer(ids[0]), 1, .integer(ids[many - 1])],
            [.integer(start + 2), "Ticket", .integer(singleID), 1, nil],
            [.integer(start + 3), "Ticket", .integer(ids[0]), 2, nil],
            [.integer(start + 4), "Ticket", .integer(ids[1]), 3, nil],
            [.integer(start + 5), "Ticket", .integer(moreIDs[0]), 1, .integer(moreIDs[many - 1])],
        ])
        let sequences: [Int64] = Array(repeating: start + 1, count: many) + [start + 2, start + 3, start + 4]
        #expect(feed.values.map(\.sequence) == sequences + Array(repeating: start + 5, count: many))
        #expect(points.values == [
            [],
            [many - 2, many - 1],
            [1_000, many - 2, many - 1],                        // in id order
            [1_000] + Array(many - 2..<2 * many),
        ], "the single insert and the delete did not touch the result")
        #expect(inB.values == [0, 2 * many])
    }

    // MARK: Where the store writes no range

    @Test func belowTheThresholdTheTriggerLogsEachRow() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        _ = try store.fetch(Ticket.self)
        let other = try fixture.another()
        let before = try highWater(other)
        let (feed, _) = record(store.committedChanges)
        fixture.log.clear()
        let small = makeTickets(threshold - 1)
        try store.insert(contentsOf: small)
        let ids = small.compactMap(\.persistentID)
        #expect(triggerRuns(fixture.log, "tether_Ticket_insert") == threshold - 1)
        #expect(try entries(other, after: before) == ids.enumerated().map {
            [.integer(before + 1 + Int64($0.offset)), "Ticket", .integer($0.element), 1, nil]
        })
        #expect(feed.values.map(\.sequence) == (1...Int64(threshold - 1)).map { before + $0 })

        fixture.log.clear()
        let atThreshold = makeTickets(threshold)
        try store.insert(contentsOf: atThreshold)
        #expect(triggerRuns(fixture.log, "tether_Ticket_insert") == 0)
        #expect(try entries(other, after: before + Int64(threshold - 1)) == [[
            .integer(before + Int64(threshold)), "Ticket",
            .integer(atThreshold[0].persistentID!), 1, .integer(atThreshold[threshold - 1].persistentID!),
        ]])
    }

    @Test func idsThatAreNotConsecutiveAreLoggedOneEntryPerRun() throws {
        #expect(_ChangeTracker.runs(of: []) == [])
        #expect(_ChangeTracker.runs(of: [4, 5, 6, 9, 10, 3, .max, .min, .min + 1]) == [4...6, 9...10, 3...3, .max ... .max, .min ... .min + 1])

        // Once a table holds the largest id, SQLite picks new ids at random.
        let fixture = try StoreFixture()
        let store = fixture.store!
        _ = try store.fetch(Ticket.self)
        let other = try fixture.another()
        try other.execute("INSERT INTO Ticket (id, title) VALUES (9223372036854775807, 'last')")
        try store.refresh()
        let before = try highWater(other)
        let (feed, _) = record(store.committedChanges)
        let tickets = makeTickets(many)
        try store.insert(contentsOf: tickets)
        let ids = tickets.compactMap(\.persistentID)
        #expect(Set(ids).count == many)
        let runs = _ChangeTracker.runs(of: ids)
        #expect(runs.count > 1)
        #expect(try entries(other, after: before) == runs.enumerated().map { offset, run in
            [.integer(before + 1 + Int64(offset)), "Ticket", .integer(run.lowerBound), 1,
             run.count == 1 ? nil : .integer(run.upperBound)]
        })
        #expect(feed.values.map(\.rowID) == ids)
        #expect(feed.values.map(\.sequence) == runs.enumerated().flatMap { offset, run in
            Array(repeating: before + 1 + Int64(offset), count: run.count)
        })
    }

    // MARK: Pruning

    @Test func pruningCountsEntriesNotRows() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        _ = try a.fetch(Ticket.self)
        _ = try b.store.fetch(Ticket.self)
        let other = try fixture.another()
        let rows = Int(_ChangeTracker.retainedEntries) + 1_000
        try other.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO Ticket (title) SELECT 'x' FROM n")
        try a.refresh()
        let big = makeTickets(5_000)
        try a.insert(contentsOf: big)                           // one entry; then the prune
        a.writer.sync { _ in }
        let high = try highWater(other)
        #expect(high == Int64(rows) + 1)
        #expect(try other.scalar("SELECT count(*) FROM tether_changes", as: Int.self) == Int(_ChangeTracker.retainedEntries))
        #expect(try other.scalar("SELECT min(seq) FROM tether_changes", as: Int64.self) == high - _ChangeTracker.retainedEntries + 1)
        #expect(try entries(other, after: high - 1) == [[.integer(high), "Ticket", .integer(big[0].persistentID!), 1, .integer(big[4_999].persistentID!)]])
        let tracker = b.store.tracker
        let caughtUp = try b.store.writer.sync { try tracker.catchUp($0) }
        #expect(caughtUp.resync, "B was left behind by the prune")
    }

    @Test func aBigInsertOfMoreRowsThanTheLogKeepsLeavesNoReaderBehind() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        _ = try a.fetch(Ticket.self)
        _ = try b.store.fetch(Ticket.self)
        let count = Int(_ChangeTracker.retainedEntries) + 2_000
        try a.insert(contentsOf: makeTickets(count))
        a.writer.sync { _ in }
        let tracker = b.store.tracker
        let caughtUp = try b.store.writer.sync { try tracker.catchUp($0) }
        #expect(!caughtUp.resync)
        #expect(caughtUp.entries.count == 1)
        #expect(Array(caughtUp.changes).count == count)
        #expect(caughtUp.externalKeys.count == count && caughtUp.rows.count == count, "every row read, in one query")
    }

    // MARK: Databases made before

    @Test func aFileMadeBeforeRangesOpensGetsTheColumnAndWorks() throws {
        let directory = try Directory()
        let path = directory.path + "/old.sqlite"
        do {
            // What an earlier store left: Tether's first two migrations, a table with its
            // triggers, rows and their entries.
            let connection = try Connection(path: path)
            try Migrator(Array(Migrator.builtIn().migrations.prefix(2))).migrate(connection)
            try TableDefinition(for: Ticket.self, defaultsFrom: Ticket()).createOrUpdate(in: connection)
            for sql in _ChangeTracker.triggerSQL(table: "Ticket") { try connection.execute(sql) }
            try connection.execute("INSERT INTO Ticket (title, points) VALUES ('old', 1), ('older', 2)")
            #expect(try connection.columns(in: "tether_changes").map(\.name) == ["seq", "tbl", "row", "kind"])
        }
        let scheduler = TestScheduler()
        let store = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
        let connection = try Connection(path: path)
        #expect(try connection.rows("SELECT name FROM tether_migrations ORDER BY name").map { $0[0] }
            == ["001_tether_metadata.sql", "002_tether_changes.sql", "004_tether_change_ranges.sql"])
        #expect(try connection.columns(in: "tether_changes").map(\.name) == ["seq", "tbl", "row", "kind", "last"])
        #expect(try entries(connection) == [[1, "Ticket", 1, 1, nil], [2, "Ticket", 2, 1, nil]], "old entries: one row each")
        #expect(try store.fetch(Ticket.self).map(\.title) == ["old", "older"])

        let other = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
        let (feed, _) = record(other.committedChanges)
        try store.insert(contentsOf: makeTickets(many))
        #expect(try entries(connection, after: 2) == [[3, "Ticket", 3, 1, .integer(2 + Int64(many))]])
        try other.refresh()
        #expect(feed.values == (3...2 + Int64(many)).map { StoreChange(sequence: 3, table: "Ticket", rowID: $0, kind: .insert, isLocal: false) })
        #expect(try other.fetch(Ticket.self).count == 2 + many)
    }

    @Test func aStoreWhoseMigratorLacksTheRangesFileLogsEveryRow() throws {
        let directory = try Directory()
        let path = directory.path + "/custom.sqlite"
        let migrator = try Migrator(Array(Migrator.builtIn().migrations.prefix(2)) + [
            Migration(name: "003_notes.sql", sql: "CREATE TABLE Note (id INTEGER PRIMARY KEY, text TEXT NOT NULL DEFAULT '');"),
        ])
        let scheduler = TestScheduler()
        let store = try Store(path: path, scheduler: scheduler, migrator: migrator, watchesExternalChanges: false)
        let other = try Store(path: path, scheduler: scheduler, migrator: migrator, watchesExternalChanges: false)
        let connection = try Connection(path: path)
        #expect(try connection.columns(in: "tether_changes").map(\.name) == ["seq", "tbl", "row", "kind"])
        let (results, _) = record(other.observe(Ticket.self).map { $0.map(\.title) })
        let (feed, _) = record(store.committedChanges)

        let tickets = makeTickets(many)
        try store.insert(contentsOf: tickets)
        let ids = tickets.compactMap(\.persistentID)
        #expect(try connection.scalar("SELECT count(*) FROM tether_changes", as: Int.self) == many)
        #expect(feed.values == ids.enumerated().map {
            StoreChange(sequence: Int64($0.offset) + 1, table: "Ticket", rowID: $0.element, kind: .insert, isLocal: true)
        })
        try other.refresh()
        #expect(results.values == [[], (0..<many).map { "t\($0)" }])
    }

    // MARK: Pieces

    @Test func aRangeEntryTouchesTheRowsOfItsRange() {
        let entry = _LogEntry(sequence: 7, table: "T", first: 10, last: 1_000, kind: .insert, isLocal: false)
        #expect(entry.touches("T", in: [5: 0, 500: 0]), "by the ids (fewer than the range's rows)")
        #expect(!entry.touches("T", in: [5: 0, 1_001: 0]))
        #expect(!entry.touches("U", in: [500: 0]))
        let short = _LogEntry(sequence: 8, table: "T", first: 3, last: 4, kind: .insert, isLocal: false)
        let manyIDs = Dictionary(uniqueKeysWithValues: (4...100).map { (Int64($0), 0) })
        #expect(short.touches("T", in: manyIDs), "by the range's rows (fewer than the ids)")
        #expect(!short.touches("T", in: Dictionary(uniqueKeysWithValues: (5...100).map { (Int64($0), 0) })))
        #expect(Array(short.changes) == [
            StoreChange(sequence: 8, table: "T", rowID: 3, kind: .insert, isLocal: false),
            StoreChange(sequence: 8, table: "T", rowID: 4, kind: .insert, isLocal: false),
        ])
        let odd = _LogEntry(sequence: 9, table: "T", first: 5, last: 2, kind: .update, isLocal: true)
        #expect(odd.rowIDs == 5...5, "a last below the first (never written by Tether) is one row")
    }

    @Test func triggersAreOffOnlyInsideWithTriggersDisabledAndCachedStatementsStillRun() throws {
        let db = try TestDatabase()
        let connection = db.connection!
        try connection.execute("""
            CREATE TABLE t (x INTEGER NOT NULL);
            CREATE TABLE log (x INTEGER NOT NULL);
            CREATE TRIGGER t_log AFTER INSERT ON t BEGIN INSERT INTO log VALUES (NEW.x); END;
            """)
        let insert = "INSERT INTO t VALUES (?)"
        try connection.execute(insert, [1])                    // cached, prepared with triggers on
        let cached = try connection.cachedStatement(insert)
        #expect(connection.triggersEnabled)
        try connection.withTriggersDisabled {
            #expect(!connection.triggersEnabled)
            try connection.execute(insert, [2])                // expired: prepared again, without the trigger
        }
        #expect(connection.triggersEnabled)
        try connection.execute(insert, [3])
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try connection.withTriggersDisabled {
                try connection.execute(insert, [4])
                throw Failure()
            }
        }
        #expect(connection.triggersEnabled, "back on after a throw too")
        try connection.execute(insert, [5])
        #expect(try connection.cachedStatement(insert) === cached, "the same cached statement throughout")
        #expect(try connection.rows("SELECT x FROM t").map { $0[0] } == [1, 2, 3, 4, 5])
        #expect(try connection.rows("SELECT x FROM log").map { $0[0] } == [1, 3, 5])
    }
}
