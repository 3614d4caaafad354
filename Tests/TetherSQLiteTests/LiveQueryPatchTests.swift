import Foundation
import Testing
import TetherTestSupport
@testable import TetherSQLite

/// A live query ordered by a column, while other connections (and this store) insert, delete,
/// re-key and reorder rows at random: after every look, its result is exactly what a fetch
/// with the same order returns, and a row that stays in the result keeps its object. The result
/// is patched from the previous one (only the rows that moved or came are looked up), so this
/// checks the patch against the query it stands for. A failing seed replays:
/// `TETHER_SEEDS=7 swift test --filter replayLiveQuerySeeds`.
@Suite("Live queries: the result patched after random changes equals the query")
struct LiveQueryPatchTests {
    @Test(arguments: 1...25)
    func seed(_ seed: Int) throws {
        try Self.run(seed: UInt64(seed), steps: 60)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["TETHER_SEEDS"] != nil))
    func replayLiveQuerySeeds() throws {
        let parts = (ProcessInfo.processInfo.environment["TETHER_SEEDS"] ?? "").split(separator: "-").compactMap { UInt64($0) }
        let first = try #require(parts.first, "TETHER_SEEDS: a seed or a range such as 26-400")
        for seed in first...(parts.last ?? first) { try Self.run(seed: seed, steps: 200) }
    }

    static func run(seed: UInt64, steps: Int) throws {
        var random = SeededRandom(seed: seed)
        let fixture = try StoreFixture()
        let store = fixture.store!
        for index in 0..<(5 + random.below(30)) {
            let ticket = Ticket()
            ticket.title = "t\(index)"
            ticket.points = random.below(20)
            try store.insert(ticket)
        }
        try store.flush()
        let other = try fixture.another()
        var results: [[Ticket]] = []
        let descending = random.chance(50)
        let subscription = store.observe(Ticket.self, orderBy: \.points, descending: descending).sink(next: { results.append($0) })
        defer { subscription.dispose() }
        for step in 0..<steps {
            // A few changes per look: by another connection, or by this store.
            for _ in 0..<(1 + random.below(3)) {
                let ids = try other.rows("SELECT id FROM Ticket").map { $0.values[0] }
                switch random.below(11) {
                case 10:                          // many rows at once: 80 new, every row re-keyed
                    try other.execute("""
                        WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < 80)
                        INSERT INTO Ticket (title, points) SELECT 'bulk', k % 20 FROM n
                        """)
                    try other.execute("UPDATE Ticket SET points = abs(random()) % 20")
                case 0..<4 where !ids.isEmpty:   // a new sort key (moves the row)
                    try other.execute("UPDATE Ticket SET points = \(random.below(20)) WHERE id = ?", [ids[random.below(ids.count)]])
                case 4..<6:                       // a new row
                    try other.execute("INSERT INTO Ticket (title, points) VALUES ('n\(step)', \(random.below(20)))")
                case 6..<8 where !ids.isEmpty:   // a row deleted
                    try other.execute("DELETE FROM Ticket WHERE id = ?", [ids[random.below(ids.count)]])
                case 8 where !ids.isEmpty:       // the largest row deleted, and its id given again
                    try other.execute("DELETE FROM Ticket WHERE id = (SELECT max(id) FROM Ticket)")
                    try other.execute("INSERT INTO Ticket (title, points) VALUES ('again\(step)', \(random.below(20)))")
                default:                          // this store changes a row it holds
                    if let ticket = results.last?.randomElement(using: &random) {
                        ticket.points = random.below(20)
                        try store.flush()
                    }
                }
            }
            let before = results.last ?? []
            try store.refresh()
            let shown = results.last ?? []
            let expected = try store.fetch(Ticket.self, orderBy: \.points, descending: descending)
            #expect(shown.map(\.persistentID) == expected.map(\.persistentID), "seed \(seed), step \(step): the order")
            #expect(zip(shown, expected).allSatisfy { $0 === $1 }, "seed \(seed), step \(step): the live objects")
            #expect(shown.allSatisfy { $0.persistentID != nil }, "seed \(seed), step \(step): no deleted row")
            // A row in the result before and after (same id, not made again) keeps its object.
            let previous = Dictionary(before.compactMap { model in model.persistentID.map { ($0, model) } }, uniquingKeysWith: { a, _ in a })
            for model in shown {
                if let id = model.persistentID, let earlier = previous[id], earlier.persistentID == id {
                    #expect(earlier === model, "seed \(seed), step \(step): row \(id) kept its object")
                }
            }
        }
    }
}
