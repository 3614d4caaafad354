import Foundation
import Synchronization
import Testing
@testable import TetherSQLite

/// A model with a computed property, to see reloads reach computed properties.
@Model
final class Order {
    var item = ""
    var quantity = 1
    var price = 0.0
    var total: Double { Double(quantity) * price }
}
extension Order: PersistentModel {}

/// Records a signal's whole history.
///
/// Why `@unchecked Sendable` is safe: every signal recorded here delivers on the test's thread
/// (model signals fire on the thread that changes the model, and the store's signals on its
/// scheduler, a `TestScheduler` that only the test's thread advances), so `storage` is only
/// touched by that thread.
final class History<Value>: @unchecked Sendable {
    private var storage: [Event<Value, StoreError>] = []
    var events: [Event<Value, StoreError>] { storage }
    var values: [Value] { events.compactMap { if case .next(let value) = $0 { value } else { nil } } }
    var isCompleted: Bool { events.contains { if case .completed = $0 { true } else { false } } }
    func append(_ event: Event<Value, StoreError>) { storage.append(event) }

    static func of<F: Error>(_ signal: Signal<Value, F>, _ convert: @escaping @Sendable (F) -> StoreError) -> (History, any Disposable) {
        let history = History()
        let disposable = signal.subscribe(events: { event in
            switch event {
            case .next(let value): history.append(.next(value))
            case .error(let error): history.append(.error(convert(error)))
            case .completed: history.append(.completed)
            }
        })
        return (history, disposable)
    }
}

func record<Value>(_ signal: Signal<Value, Never>) -> (History<Value>, any Disposable) {
    History.of(signal) { (never: Never) -> StoreError in }
}

func record<Value>(_ signal: Signal<Value, StoreError>) -> (History<Value>, any Disposable) {
    History.of(signal) { $0 }
}

/// A second store on the fixture's file: "another copy of the app", in this process.
final class SecondStore {
    let scheduler = TestScheduler()
    let log = SQLLog()
    let store: Store

    init(_ fixture: StoreFixture, watches: Bool = false) throws {
        store = try Store(path: fixture.path, scheduler: scheduler, watchesExternalChanges: watches)
        let log = self.log
        store.writer.sync { connection in connection.trace { log.append($0) } }
    }

    var writes: [String] {
        log.statements.filter { $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT") || $0.hasPrefix("DELETE") }
    }
}

/// Advances `scheduler` until `condition` holds (for work that comes from another thread or
/// process in real time), checking every millisecond, for at most `timeout`.
func pump(_ scheduler: TestScheduler, timeout: Duration = .seconds(10), until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        scheduler.advance()
        if condition() { return true }
        usleep(1_000)
    }
    scheduler.advance()
    return condition()
}

@Suite("Store: changes made elsewhere reach live models")
struct ExternalChangeTests {
    @Test func anExternalUpdateReloadsTheLiveModelInPlaceWithoutEcho() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (points, _) = record(observe(ticket, \.points))
        let (titles, _) = record(observe(ticket, \.title))

        try fixture.another().execute("UPDATE Ticket SET points = 7 WHERE id = ?", [.integer(id)])
        #expect(ticket.points == 1, "not noticed before refresh (this store does not watch)")
        fixture.log.clear()
        try store.refresh()

        #expect(ticket.points == 7)
        #expect(points.events == [.next(1), .next(7)])
        #expect(titles.events == [.next("")], "only the fields whose value changed fire")
        fixture.scheduler.advance(by: .seconds(1))
        try store.flush()
        #expect(store.pendingRowCount == 0)
        #expect(fixture.updates.isEmpty, "a reload is never written back")
    }

    @Test func computedPropertiesFollowAndSeeTheWholeRowAtOnce() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let order = try store.insert(Order())
        order.price = 2
        try store.flush()
        let (totals, _) = record(observe(order, \.total))

        try fixture.another().execute("UPDATE \"Order\" SET quantity = 3, price = 5 WHERE id = ?", [.integer(order.persistentID!)])
        try store.refresh()
        #expect(totals.events == [.next(2), .next(15)], "never a total of half the row (6 or 5)")
    }

    @Test func aValueOfTheWrongTypeWrittenElsewhereIsAnErrorAndTheModelKeepsItsValue() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (errors, _) = record(store.errors)
        try fixture.another().execute("UPDATE Ticket SET points = 'many', title = 'typed' WHERE id = ?", [.integer(id)])
        try store.refresh()
        #expect(ticket.points == 1, "the model keeps its value")
        #expect(ticket.title == "typed", "the row's other columns are applied")
        #expect(errors.values.count == 1)
        let message = errors.values.first?.description ?? ""
        #expect(message.contains("Ticket") && message.contains("points") && message.contains("many"), "\(message)")
        fixture.scheduler.advance()
        try store.flush()
        #expect(fixture.updates.isEmpty, "nothing written back: the bad value stays for its writer to fix")
    }

    @Test func aRowDeletedElsewhereEndsWriteThroughAndLaterChangesAreErrors() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (deleted, _) = record(store.deletion(of: ticket))
        let (errors, _) = record(store.errors)

        try fixture.another().execute("DELETE FROM Ticket WHERE id = ?", [.integer(id)])
        try store.refresh()
        #expect(deleted.events.count == 2 && deleted.isCompleted, "sent once, then completed")
        #expect(ticket.persistentID == nil)
        #expect(try store.load(Ticket.self, id: id) == nil)

        ticket.points = 5
        fixture.scheduler.advance()
        try store.flush()
        #expect(errors.values.map(\.description) == ["Ticket \(id) was deleted; the change was not written"])
        #expect(try fixture.another().rows("SELECT count(*) FROM Ticket").first?[0] == .integer(0), "not resurrected")
        #expect(store.pendingRowCount == 0)

        let (late, _) = record(store.deletion(of: ticket))
        #expect(late.events.count == 2 && late.isCompleted, "subscribing after the deletion sends at once")
    }

    @Test func pendingLocalChangesToADeletedRowAreReportedNotLost() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (errors, _) = record(store.errors)
        ticket.points = 4                                 // pending, not committed
        try fixture.another().execute("DELETE FROM Ticket WHERE id = ?", [.integer(id)])
        try store.refresh()
        #expect(errors.values.map(\.description) == ["Ticket \(id) was deleted; the change was not written"])
        fixture.scheduler.advance()
        try store.flush()
        #expect(try fixture.another().rows("SELECT count(*) FROM Ticket").first?[0] == .integer(0))
    }

    @Test func aRowWhoseIDChangedElsewhereIsADeletionAndAnInsertion() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (feed, _) = record(store.committedChanges)
        let (deleted, _) = record(store.deletion(of: ticket))
        try fixture.another().execute("UPDATE Ticket SET id = 100 WHERE id = ?", [.integer(id)])
        try store.refresh()
        #expect(feed.values.filter { $0.kind != .update }.map { "\($0.kind) \($0.rowID)" } == ["delete \(id)", "insert 100"])
        #expect(deleted.events.count == 2, "the object of the old id learns its row is gone")
        let moved = try #require(try store.load(Ticket.self, id: 100))
        #expect(moved !== ticket)
    }

    @Test func aDeletedModelInsertedAgainIsWrittenThroughWithoutErrors() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        try store.delete(ticket)
        let (errors, _) = record(store.errors)
        try store.insert(ticket)
        let id = try #require(ticket.persistentID)
        ticket.points = 6
        try store.flush()
        #expect(errors.events.isEmpty)
        #expect(try fixture.another().rows("SELECT points FROM Ticket WHERE id = ?", [.integer(id)]).first?.values == [.integer(6)])
        #expect(ticket._$registrar.persistence === store.state.tables[ObjectIdentifier(Ticket.self)]?.liveHook,
                "the model reports to the store again, not as a deleted row")
    }

    /// A change pending when another program deletes the row is dropped with the row (and
    /// said), and leaves nothing behind: once the model is inserted again, a change of the same
    /// property is written.
    @Test func aModelDeletedElsewhereWithAChangePendingWritesItsChangesOnceInsertedAgain() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        try store.flush()
        let (errors, _) = record(store.errors)
        ticket.points = 3
        try fixture.another().execute("DELETE FROM Ticket")
        try store.refresh()
        #expect(ticket.persistentID == nil && store.pendingRowCount == 0)
        #expect(errors.values.count == 1, "the dropped change is said: \(errors.values)")
        try store.insert(ticket)
        try store.flush()
        let id = try #require(ticket.persistentID)
        ticket.points = 6
        #expect(store.pendingRowCount == 1)
        try store.flush()
        #expect(try fixture.another().rows("SELECT points FROM Ticket WHERE id = ?", [.integer(id)]).first?.values == [.integer(6)])
    }

    @Test func aDeletionHereIsReportedToo() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let (deleted, _) = record(store.deletion(of: ticket))
        try store.delete(ticket)
        #expect(deleted.events.count == 2 && deleted.isCompleted)
    }

    @Test func theStoresSignalsCompleteWhenTheStoreIsFreed() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        let (feed, _) = record(fixture.store.committedChanges)
        let (errors, _) = record(fixture.store.errors)
        let (deleted, _) = record(fixture.store.deletion(of: ticket))
        fixture.close()
        #expect(feed.events.count == 1 && feed.isCompleted)
        #expect(errors.events.count == 1 && errors.isCompleted)
        #expect(deleted.events.count == 1 && deleted.isCompleted, "completed, nothing sent: the row was not deleted")
    }

    @Test func deletionCompletesWithoutSendingWhenTheModelIsFreed() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        var ticket: Ticket? = try store.insert(Ticket())
        let (deleted, _) = record(store.deletion(of: ticket!))
        weak let weakTicket = ticket
        ticket = nil
        #expect(weakTicket == nil, "watching for the deletion does not keep the model alive")
        #expect(deleted.events.count == 1 && deleted.isCompleted, "completed, nothing sent")
    }

    // MARK: Conflicts

    @Test func aPendingLocalChangeWinsOverAnExternalChangeToTheSameField() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        ticket.points = 5                                                  // local, pending
        try fixture.another().execute("UPDATE Ticket SET points = 9, title = 'theirs' WHERE id = ?", [.integer(id)])
        try store.refresh()
        #expect(ticket.points == 5, "the local change wins")
        #expect(ticket.title == "theirs", "their change to another field is taken")
        try store.flush()
        let row = try fixture.another().rows("SELECT points, title FROM Ticket WHERE id = ?", [.integer(id)]).first
        #expect(row?.values == [.integer(5), .text("theirs")], "neither change is lost")
    }

    @Test func anExternalChangeThenALocalOneTheLocalIsWrittenAfter() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try fixture.another().execute("UPDATE Ticket SET points = 9, title = 'theirs' WHERE id = ?", [.integer(id)])
        try store.refresh()
        #expect(ticket.points == 9)
        ticket.points = 5
        try store.flush()
        let row = try fixture.another().rows("SELECT points, title FROM Ticket WHERE id = ?", [.integer(id)]).first
        #expect(row?.values == [.integer(5), .text("theirs")])
    }

    @Test func aReloadReadBeforeALocalCommitDoesNotUndoIt() throws {
        // The writer queue reads the log (seeing an external 9) before it commits our 5, and the
        // reload reaches the model's thread while our commit is in flight: it must not set 9.
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (points, _) = record(observe(ticket, \.points))
        let gate = DispatchSemaphore(value: 0)
        store.writer.async { _ in gate.wait() }                   // hold the writer queue
        try fixture.another().execute("UPDATE Ticket SET points = 9 WHERE id = ?", [.integer(id)])
        let (tracker, inbox, box, scheduler) = (store.tracker, store.inbox, store.box, fixture.scheduler)
        store.writer.async { connection in                         // what the watcher does, queued: reads 9
            inbox.push(.changes(try! tracker.catchUp(connection)))
            scheduler.schedule { box.store?.drain() }
        }
        ticket.points = 5
        fixture.scheduler.advance()                                // our commit: queued after it
        #expect(store.state.inFlight.isEmpty == false)
        gate.signal()
        store.writer.sync { _ in }                                 // both have run on the writer
        fixture.scheduler.advance()                                // the reload, then our commit's outcome
        #expect(ticket.points == 5)
        #expect(points.values == [1, 5], "the model never went back to 9")
        #expect(store.state.inFlight.isEmpty)
        let row = try fixture.another().rows("SELECT points FROM Ticket WHERE id = ?", [.integer(id)]).first
        #expect(row?.values == [.integer(5)])
    }

    // MARK: Two stores, no echo

    @Test func twoStoresOnOneFileSeeEachOthersChangesWithoutEcho() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        let inA = try a.insert(Ticket())
        let id = try #require(inA.persistentID)
        let inB = try #require(try b.store.load(Ticket.self, id: id))
        try b.store.refresh()                             // B has seen the insert
        let (feedA, _) = record(a.committedChanges)
        let (feedB, _) = record(b.store.committedChanges)
        let (pointsInB, _) = record(observe(inB, \.points))

        inA.points = 2
        fixture.scheduler.advance()                       // the end of the turn: commit
        try a.flush()                                     // wait for it
        fixture.scheduler.advance()                       // its outcome
        try b.store.refresh()
        b.scheduler.advance(by: .seconds(1))
        try b.store.flush()
        #expect(inB.points == 2)
        #expect(pointsInB.values == [1, 2])
        #expect(b.writes.isEmpty, "B wrote nothing back")

        try a.refresh()
        #expect(feedA.values.map { [$0.kind == .update, $0.isLocal] } == [[true, true]])
        #expect(feedB.values.map { [$0.kind == .update, $0.isLocal] } == [[true, false]])
        #expect(feedA.values.map(\.sequence) == feedB.values.map(\.sequence))

        inB.title = "from B"
        b.scheduler.advance()
        try b.store.flush()
        try a.refresh()
        #expect(inA.title == "from B")
        #expect(feedA.values.count == 2 && feedA.values[1].isLocal == false)
    }

    @Test func theFeedReportsEveryCommittedChangeInOrder() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (feed, _) = record(store.committedChanges)
        let first = try store.insert(Ticket())
        let second = try store.insert(Ticket())
        second.points = 3
        try store.flush()
        let other = try fixture.another()
        try other.execute("UPDATE Ticket SET title = 'x' WHERE id = ?", [.integer(first.persistentID!)])
        try other.execute("INSERT INTO Ticket (title, points) VALUES ('new', 1)")
        try store.delete(first)
        try store.refresh()
        let firstID = try #require(feed.values.first?.rowID)
        #expect(feed.values.map { "\($0.kind) \($0.rowID - firstID) \($0.isLocal)" } == [
            "insert 0 true",
            "insert 1 true",
            "update 1 true",
            "update 0 false",
            "insert 2 false",
            "delete 0 true",
        ])
        #expect(feed.values.map(\.sequence) == feed.values.map(\.sequence).sorted())
        #expect(Set(feed.values.map(\.sequence)).count == 6)
    }

    @Test func aReaderLeftBehindByPruningReloadsEverything() throws {
        let fixture = try StoreFixture()
        let a = fixture.store!
        let b = try SecondStore(fixture)
        let ticket = try a.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let inB = try #require(try b.store.load(Ticket.self, id: id))
        ticket.points = 42
        try a.flush()
        // Another program inserts more rows than the log keeps entries, one entry per row (the
        // trigger); A reads them, and prunes after its next write. (A store's own big insert is
        // one entry per range of ids: see BulkInsertTests.)
        let rows = Int(_ChangeTracker.retainedEntries) + 2_000
        try fixture.another().execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows)) INSERT INTO Ticket (title) SELECT 'x' FROM n")
        try a.refresh()
        try a.insert(Ticket())
        a.writer.sync { _ in }                          // the prune runs after the insert, on the writer queue
        let oldest = try fixture.another().scalar("SELECT min(seq) FROM tether_changes", as: Int64.self) ?? 0
        #expect(oldest > 3, "the log was pruned past B's position")
        try b.store.refresh()
        #expect(inB.points == 42, "B reloaded its live models")
    }

    @Test func aLogEmptiedByHandIsNoticedAndEverythingReloaded() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = (0..<5).map { _ in Ticket() }
        try store.insert(contentsOf: tickets)
        let other = try fixture.another()
        try other.execute("DELETE FROM tether_changes")               // numbering starts again
        try other.execute("UPDATE Ticket SET points = 3 WHERE id = ?", [.integer(tickets[0].persistentID!)])
        try store.refresh()
        #expect(tickets[0].points == 3)
        try other.execute("UPDATE Ticket SET points = 4 WHERE id = ?", [.integer(tickets[1].persistentID!)])
        try store.refresh()
        #expect(tickets[1].points == 4, "reading goes on from the new numbering")
    }
}

@Suite("Store: live queries")
struct LiveQueryTests {
    @Test func sendsTheResultThenANewOneForEachChangeThatAffectsIt() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let low = try store.insert(Ticket())
        let (results, subscription) = record(store.observe(Ticket.self, where: "points > ?", [2], orderBy: \.title))
        let (titleLists, _) = record(store.observe(Ticket.self, where: "points > ?", [2], orderBy: \.title).map { $0.map(\.title) })
        func titles() -> [[String]] { titleLists.values }
        #expect(titles() == [[]])

        let b = Ticket(); b.title = "b"; b.points = 5
        try store.insert(b)
        #expect(titles() == [[], ["b"]], "an insert that matches: a new result at once")

        try store.insert(Ticket())
        #expect(titles().count == 2, "an insert that does not match: nothing")

        low.title = "a"
        low.points = 3
        fixture.scheduler.advance()                     // the end of the turn commits
        store.writer.sync { _ in }
        fixture.scheduler.advance()                     // the commit's outcome
        #expect(titles().last == ["a", "b"], "a change that makes a row match, in order")
        #expect(results.values.last?.first === low, "identity-mapped objects")

        let other = try fixture.another()
        try other.execute("INSERT INTO Ticket (title, points) VALUES ('c', 9)")
        try other.execute("UPDATE Ticket SET points = 0 WHERE title = 'b'")
        try store.refresh()
        #expect(titles().last == ["a", "c"], "two commits elsewhere, one new result")
        #expect(titles().count == 4)

        try other.execute("UPDATE Ticket SET title = 'zz' WHERE points <= 2")
        try store.refresh()
        #expect(titles().count == 4, "a change to rows outside the result: nothing")

        subscription.dispose()
        fixture.scheduler.advance()
        #expect(store.state.liveQueries.count == 1, "the other one is still there")
        #expect(store.tracker.tables(ofQuery: 1).isEmpty)
        #expect(store.tracker.tables(ofQuery: 2) == ["Ticket"])
    }

    @Test func anUpdateToARowInTheResultSendsItAgainUpdatedInPlace() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let (results, _) = record(store.observe(Ticket.self))
        let (titles, _) = record(store.observe(Ticket.self).map { $0.map(\.title) })
        try fixture.another().execute("UPDATE Ticket SET title = 'renamed'")
        try store.refresh()
        #expect(titles.values == [[""], ["renamed"]])
        #expect(results.values.count == 2)
        #expect(results.values.last?.first === ticket)
    }

    @Test func aQueryReadingAnotherTableFollowsItToo() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        _ = try store.insert(Order())
        let ticket = try store.insert(Ticket())
        ticket.title = "widget"
        try store.flush()
        let (results, _) = record(store.observe(Ticket.self, where: "title IN (SELECT item FROM \"Order\")"))
        #expect(results.values.map(\.count) == [0])
        try fixture.another().execute("UPDATE \"Order\" SET item = 'widget'")
        try store.refresh()
        #expect(results.values.map(\.count) == [0, 1])
    }

    @Test func invalidSQLFailsTheSignal() throws {
        let fixture = try StoreFixture()
        let (results, _) = record(fixture.store.observe(Ticket.self, where: "no_such_column = 1"))
        #expect(results.events.count == 1)
        guard case .error(let error) = results.events.first else {
            Issue.record("expected an error, got \(results.events)")
            return
        }
        #expect(error.description.contains("no_such_column"))
        #expect(fixture.store.state.liveQueries.isEmpty)
    }

    @Test func completesWhenTheStoreIsFreedAndHoldsNothing() throws {
        let fixture = try StoreFixture()
        let (results, _) = record(fixture.store.observe(Ticket.self))
        weak let store = fixture.store
        fixture.close()
        #expect(store == nil, "a live query does not keep the store alive")
        #expect(results.events.count == 2 && results.values.map(\.count) == [0] && results.isCompleted)
    }
}

@Suite("Store: noticing other connections and processes by itself")
struct WatcherTests {
    @Test func anotherConnectionsCommitReachesTheModelWithoutRefresh() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        let (points, _) = record(observe(ticket, \.points))
        try fixture.another().execute("UPDATE Ticket SET points = 11 WHERE id = ?", [.integer(id)])
        #expect(pump(fixture.scheduler) { ticket.points == 11 })
        #expect(points.values == [1, 11])
    }

    @Test func theSqlite3ShellsChangeReachesTheModel() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try store.flush()
        let (titles, _) = record(observe(ticket, \.title))
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        shell.arguments = ["sqlite3", fixture.path, "UPDATE Ticket SET title = '来自 shell' WHERE id = \(id);"]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0, "sqlite3 (Debian package sqlite3; .ci/run installs it) ran")
        #expect(pump(fixture.scheduler) { ticket.title == "来自 shell" })
        #expect(titles.values == ["", "来自 shell"])
    }

    @Test func anotherProcessWritingEveryChangeIsSeenInOrderWithNoEcho() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try store.flush()
        let (points, _) = record(observe(ticket, \.points))
        let (feed, _) = record(store.committedChanges)
        fixture.log.clear()

        let count = 300
        let child = try Child(["count", fixture.path, "\(id)", "\(count)"])
        #expect(pump(fixture.scheduler, timeout: .seconds(30)) { ticket.points == count })
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)

        let seen = points.values
        #expect(seen.first == 1 && seen.last == count)
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "in order, each value once")
        let external = feed.values.filter { !$0.isLocal && $0.rowID == id }
        #expect(external.count == count, "every committed change is reported")
        #expect(external.map(\.sequence) == external.map(\.sequence).sorted())
        #expect(ticket.title == "v\(count)")
        fixture.scheduler.advance(by: .seconds(1))
        try store.flush()
        #expect(fixture.updates.isEmpty, "no echo: nothing written back")
    }

    @Test func theOtherProcessSeesOurChangesToo() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try store.flush()
        let child = try Child(["watch", fixture.path, "\(id)"])
        var lines = child.readLines { $0.contains("title ") }   // it is watching
        ticket.title = "hello"
        try store.flush()
        lines += child.readLines { $0.contains("title hello") }
        ticket.title = "stop"
        try store.flush()
        lines += child.readLines { $0.contains("bye") }
        child.process.waitUntilExit()
        #expect(lines == ["title ", "title hello", "title stop", "bye"])
        let writes = try fixture.another().scalar("SELECT count(*) FROM tether_changes", as: Int.self)
        #expect(writes == 3, "our insert and two updates: the child wrote nothing back")
    }

    @Test func aProcessKilledMidTransactionLeavesTheStoreWorking() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let id = try #require(ticket.persistentID)
        try store.flush()
        let child = try Child(["hold", fixture.path, "\(id)"])
        _ = child.readLines { $0.contains("holding") }
        kill(child.process.processIdentifier, SIGKILL)
        child.process.waitUntilExit()

        ticket.points = 8
        try store.flush()                               // the dead process's lock is gone
        try store.refresh()
        #expect(ticket.points == 8 && ticket.title == "", "nothing of the killed transaction")
        let connection = try fixture.another()
        #expect(try connection.rows("PRAGMA integrity_check").first?[0] == .text("ok"))
        #expect(try connection.rows("SELECT points, title FROM Ticket WHERE id = ?", [.integer(id)]).first?.values
            == [.integer(8), .text("")])
    }
}
