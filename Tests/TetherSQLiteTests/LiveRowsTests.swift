import Foundation
import Testing
import TetherTestSupport
@testable import TetherSQLite

/// The chunks a live query keeps its rows in (`_LiveRows`), against a plain array: random
/// inserts after random rows (or first), removals, runs of either (which split full chunks and
/// join small ones), and results taken and kept while the rows change on. After every step the
/// rows are the array's, no chunk is empty or over capacity, and every result taken earlier
/// still holds what it held. A failing seed replays: `TETHER_SEEDS=9 swift test --filter
/// replayLiveRowsSeeds`.
@Suite("Live query rows in chunks")
struct LiveRowsTests {
    final class Row {
        let id: Int64
        init(_ id: Int64) { self.id = id }
    }

    @Test(arguments: 1...4)
    func seed(_ seed: Int) {
        Self.run(seed: UInt64(seed), steps: 500)
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["TETHER_SEEDS"] != nil))
    func replayLiveRowsSeeds() throws {
        let parts = (ProcessInfo.processInfo.environment["TETHER_SEEDS"] ?? "").split(separator: "-").compactMap { UInt64($0) }
        let first = try #require(parts.first, "TETHER_SEEDS: a seed or a range such as 9-200")
        for seed in first...(parts.last ?? first) { Self.run(seed: seed, steps: 10_000) }
    }

    static func run(seed: UInt64, steps: Int) {
        var random = SeededRandom(seed: seed)
        var next: Int64 = 1
        var expected: [Row] = (0..<random.below(3_000)).map { _ in
            defer { next += 1 }
            return Row(next)
        }
        var rows = _LiveRows(ids: expected.map(\.id), models: expected)
        var kept: [(result: QueryResult<Row>, ids: [Int64])] = []
        for step in 0..<steps {
            let context = "seed \(seed), step \(step)"
            // Runs of one kind, so that chunks fill past their capacity or empty below a join.
            let run = random.chance(10) ? 1 + random.below(1_500) : 1 + random.below(4)
            let inserting = expected.isEmpty || random.chance(50)
            for _ in 0..<run {
                if inserting {
                    let row = Row(next)
                    next += 1
                    // Often at the same place, so that one chunk grows.
                    let place = expected.isEmpty ? 0 : random.chance(70) ? expected.count / 2 : random.below(expected.count + 1)
                    let after = place == 0 ? nil : expected[place - 1].id
                    let inserted = rows.insert(row.id, row, after: after)
                    #expect(inserted, "\(context): inserted after \(String(describing: after))")
                    expected.insert(row, at: place)
                } else if !expected.isEmpty {
                    let place = random.chance(70) ? min(expected.count - 1, expected.count / 3) : random.below(expected.count)
                    let removed = rows.remove(expected[place].id)
                    #expect(removed === expected[place], "\(context): removed row \(expected[place].id)")
                    expected.remove(at: place)
                }
            }
            // A row already in, or one after a row that is not, changes nothing.
            if let some = expected.randomElement(using: &random) {
                let again = rows.insert(some.id, some, after: nil)
                #expect(!again, "\(context): a row already in")
            }
            let orphan = rows.insert(-1, Row(-1), after: -2)
            #expect(!orphan, "\(context): after a row that is not in")
            #expect(rows.ids == expected.map(\.id), "\(context): the order")
            #expect(rows.count == expected.count)
            #expect(rows.chunks.allSatisfy { !$0.ids.isEmpty && $0.ids.count <= _LiveRows<Row>.capacity && $0.ids.count == $0.models.count },
                    "\(context): chunks \(rows.chunks.map(\.ids.count))")
            let result = rows.snapshot()
            #expect(result.count == expected.count && zip(result, expected).allSatisfy { $0 === $1 }, "\(context): the result")
            if let probe = expected.randomElement(using: &random), let index = expected.firstIndex(where: { $0 === probe }) {
                #expect(result[index] === probe, "\(context): the result's index \(index)")
            }
            if random.chance(5) { kept.append((result, expected.map(\.id))) }
        }
        for (number, (result, ids)) in kept.enumerated() {
            #expect(result.map(\.id) == ids, "seed \(seed): result \(number) kept what it held")
        }
    }
}
