import Foundation
import Testing
@testable import TetherSQLite

/// Typed live queries and validation, with another process writing the same file.
@Suite("Typed queries and validation with another process")
struct QueriesAndAnotherProcessTests {
    /// A typed live query and a live count follow another process's commits: the row enters
    /// the result when the other process makes it match, and the history is whole (no result
    /// with the row before it matched, none without it after).
    @Test func aTypedLiveQueryFollowsAnotherProcess() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        let other = try store.insert(Ticket())
        other.points = 0
        let id = try #require(ticket.persistentID)
        try store.flush()
        let (results, _) = record(store.observe(Ticket.self, where: \.points >= 150 && \.title != "", orderBy: \.points))
        let (counts, _) = record(store.observeCount(Ticket.self, where: \.points >= 150))

        let child = try Child(["count", fixture.path, "\(id)", "300"])
        #expect(pump(fixture.scheduler, timeout: .seconds(30)) { ticket.points == 300 })
        child.process.waitUntilExit()
        #expect(child.process.terminationStatus == 0)

        let sizes = results.values.map(\.count)
        #expect(sizes.first == 0 && sizes.last == 1)
        #expect(sizes == sizes.sorted(), "once in, the row stays in: \(sizes)")
        #expect(results.values.last?.first === ticket)
        #expect(counts.values == [0, 1])
    }

    /// A UNIQUE index and rows another process inserted: our change that collides is kept back
    /// and named; the other process's rows are untouched.
    @Test func aChangeCollidingWithAnotherProcessesRowIsKeptBack() throws {
        let fixture = try StoreFixture(watches: true)
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        ticket.title = "mine"
        try store.flush()
        try fixture.another().execute("CREATE UNIQUE INDEX unique_title ON Ticket(title)")
        let child = try Child(["bulk", fixture.path, "3"])
        _ = child.readLines { $0.contains("inserted") }
        child.process.waitUntilExit()

        ticket.title = "b1"
        let error = #expect(throws: StoreError.self) { try store.flush() }
        #expect(error == .invalid(ValidationError(model: "Ticket", id: ticket.persistentID, failures: [.init(property: "title", rule: "UNIQUE")])))
        #expect(try store.count(Ticket.self, where: \.title == "b1") == 1)
        #expect(try store.count(Ticket.self, where: \.title == "mine") == 1, "our row still holds what was written")
        ticket.title = "b1 (mine)"
        try store.flush()
        #expect(try store.fetch(Ticket.self, where: .hasPrefix(\.title, "b1")).count == 2)
    }
}
