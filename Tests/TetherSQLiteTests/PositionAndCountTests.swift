import Foundation
import Testing
import TetherSQLite   // the public API only
import TetherTestSupport

/// What a windowed list asks of the store: where a model stands in a query's order
/// (`position(of:)`), and how many rows meet a condition, live (`observeCount`).
@Suite("Positions in a query's order, and live counts")
struct PositionAndCountTests {
    /// Seeded tickets with ties and NULLs; for every order (points, an estimate with NULLs, the
    /// title, the id; both directions) and a few conditions, each model's position is its index
    /// in the fetch with the same condition and order, and nil for a model the condition leaves
    /// out or whose row is deleted.
    @Test(arguments: 1...6)
    func positionsAreIndexesInTheFetch(seed: Int) throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        var random = SeededRandom(seed: UInt64(seed))
        let tickets = try (0..<60).map { index in
            let ticket = Ticket()
            ticket.title = ["a", "b", "c", "B", "張"][random.below(5)] + "\(random.below(3))"
            ticket.points = random.within(0...4)
            ticket.estimate = random.chance(30) ? nil : Double(random.within(0...3)) / 2
            return try store.insert(ticket)
        }
        for ticket in tickets where random.chance(15) { try store.delete(ticket) }
        try store.flush()
        let conditions: [(String, Condition<Ticket>)] = [
            ("every row", .always(true)), ("points >= 2", \.points >= 2), ("estimate is nil", .isNil(\.estimate)),
            ("none", .always(false)),
        ]
        for (name, condition) in conditions {
            for descending in [false, true] {
                try check(store, tickets, condition, \.points, descending, "\(name), points")
                try check(store, tickets, condition, \.estimate, descending, "\(name), estimate")
                try check(store, tickets, condition, \.title, descending, "\(name), title")
            }
            let byID = try store.fetch(Ticket.self, where: condition)
            for ticket in tickets {
                let position = try store.position(of: ticket, where: condition)
                #expect(position == byID.firstIndex { $0 === ticket }, "\(name), by id")
            }
        }
        let never = try store.position(of: Ticket(), orderBy: \.points)
        #expect(never == nil, "never inserted")
    }

    private func check<V>(
        _ store: Store, _ tickets: [Ticket], _ condition: Condition<Ticket>, _ order: KeyPath<Ticket, V>,
        _ descending: Bool, _ name: String
    ) throws {
        let expected = try store.fetch(Ticket.self, where: condition, orderBy: order, descending: descending)
        for ticket in tickets {
            let position = try store.position(of: ticket, where: condition, orderBy: order, descending: descending)
            #expect(position == expected.firstIndex { $0 === ticket }, "\(name), descending \(descending)")
        }
    }

    /// A window over a long list: the page that shows a model is found from its position, and
    /// follows it when rows are inserted before it elsewhere.
    @Test func aPageFoundFromAPositionShowsTheModel() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let tickets = (0..<500).map { index in
            let ticket = Ticket()
            ticket.points = index * 2
            return ticket
        }
        try store.insert(contentsOf: tickets)
        try store.flush()
        let wanted = tickets[321]
        let found = try store.position(of: wanted, orderBy: \.points)
        #expect(found == 321)
        let index = try #require(found)
        var pages: [[Int]] = []
        let page = store.observe(Ticket.self, where: .always(true), orderBy: \.points, limit: 10, offset: index / 10 * 10)
            .sink(next: { pages.append($0.map(\.points)) }, error: { Issue.record($0) })
        #expect(pages.last?.contains(642) == true)
        let other = try fixture.another()
        try other.execute("INSERT INTO Ticket (title, points) VALUES ('early', 1), ('early', 3)")
        try store.refresh()
        let moved = try store.position(of: wanted, orderBy: \.points)
        #expect(moved == 323)
        #expect(pages.last == [636, 638, 640, 642, 644, 646, 648, 650, 652, 654], "the page is the rows at its positions now")
        page.dispose()
    }

    /// A count through a relationship is counted again when the related table changes: renaming
    /// a client changes how many bills are the client's whose name has "Ad".
    @Test func aCountThroughARelationshipFollowsTheRelatedTable() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ada = Client()
        ada.name = "Ada"
        let grace = Client()
        grace.name = "Grace"
        try store.insert(contentsOf: [ada, grace])
        for number in 1...5 {
            let bill = Bill()
            bill.number = number
            bill.client = number <= 2 ? ada : grace
            try store.insert(bill)
        }
        try store.flush()
        var counts: [Int] = []
        let count = store.observeCount(Bill.self, where: .related(\.client, .contains(\.name, "Ad")))
            .sink(next: { counts.append($0) }, error: { Issue.record($0) })
        let other = try fixture.another()
        try other.execute("UPDATE Client SET name = 'Grace Adams' WHERE name = 'Grace'")
        try store.refresh()
        grace.name = "Grace"          // here: written at the end of the turn
        fixture.scheduler.advance()
        try store.flush()
        #expect(counts == [2, 5, 2])
        count.dispose()
    }

    /// Many rows inserted in one transaction elsewhere give one new count; a count without a
    /// condition follows inserts and deletes, here and elsewhere.
    @Test func aCountFollowsInsertsAndDeletesOncePerCommit() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let first = try store.insert(Ticket())
        try store.flush()
        var counts: [Int] = []
        let count = store.observeCount(Ticket.self).sink(next: { counts.append($0) }, error: { Issue.record($0) })
        let other = try fixture.another()
        try other.execute("WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 1000) INSERT INTO Ticket (title) SELECT 't' || k FROM n")
        try other.execute("UPDATE Ticket SET points = 7")
        try store.refresh()
        #expect(counts == [1, 1001])
        try store.delete(first)
        try other.execute("DELETE FROM Ticket WHERE title = 't1'")
        try store.refresh()
        #expect(counts == [1, 1001, 1000, 999])
        count.dispose()
        try other.execute("DELETE FROM Ticket")
        try store.refresh()
        #expect(counts == [1, 1001, 1000, 999], "nothing after disposal")
    }

    /// A condition that reads a column: an update elsewhere that moves rows in or out changes it.
    @Test func aCountWithAConditionFollowsUpdates() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        try store.insert(contentsOf: (0..<4).map { points in
            let ticket = Ticket()
            ticket.points = points
            return ticket
        })
        try store.flush()
        var counts: [Int] = []
        let count = store.observeCount(Ticket.self, where: \.points >= 2).sink(next: { counts.append($0) }, error: { Issue.record($0) })
        try fixture.another().execute("UPDATE Ticket SET points = 9 WHERE points = 0")
        try store.refresh()
        #expect(counts == [2, 3])
        count.dispose()
    }

    /// Bad input: an order that is not a column, a closed store.
    @Test func aPropertyThatIsNotAColumnOrAClosedStoreIsAClearError() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let ticket = try store.insert(Ticket())
        #expect {
            _ = try store.position(of: ticket, orderBy: \.draft)
        } throws: { error in
            guard case .mapping(let mapping)? = error as? StoreError else { return false }
            return "\(mapping)".contains("draft")
        }
        try store.close()
        #expect {
            _ = try store.position(of: ticket, orderBy: \.points)
        } throws: { error in
            if case .closed? = error as? StoreError { return true }
            return false
        }
        var failure: StoreError?
        let count = store.observeCount(Ticket.self).sink(next: { _ in }, error: { failure = $0 })
        if case .closed? = failure {} else { Issue.record("expected .closed, got \(String(describing: failure))") }
        count.dispose()
    }
}
