import Foundation
import Synchronization
import Testing
import TetherTestSupport
@testable import TetherSQLite

/// A stand-in for a model (the map holds any object).
private final class Row {
    let id: Int64
    init(_ id: Int64) { self.id = id }
}

/// The identity map's per-table structure: live models, by id, in pages of 16 consecutive ids,
/// held by unowned counts (neither kept alive nor given a side table).
@Suite("Identity map: the rows of one table")
struct RowMapTests {
    @Test func idsAnywhereInInt64FindTheirOwnModel() {
        let map = _RowMap()
        let ids: [Int64] = [1, 2, 15, 16, 17, 63, 64, 65, 1_000_000, -1, -16, -17, 0, .max, .min, .max - 15]
        let rows = ids.map(Row.init)
        for row in rows { map.set(row, for: row.id) }
        #expect(map.count == ids.count)
        for row in rows { #expect(map[row.id] === row, "id \(row.id)") }
        for missing: Int64 in [3, 14, 18, 62, 66, 999_999, -2, -15, .max - 1, .min + 1] { #expect(map[missing] == nil, "id \(missing)") }
        var seen: [Int64: ObjectIdentifier] = [:]
        map.forEachLive { id, model in seen[id] = ObjectIdentifier(model) }
        #expect(seen == Dictionary(uniqueKeysWithValues: rows.map { ($0.id, ObjectIdentifier($0)) }))
        withExtendedLifetime(rows) {}
    }

    @Test func replacingAndRemovingKeepTheCountRight() {
        let map = _RowMap()
        let first = Row(7), second = Row(7)
        map.set(first, for: 7)
        map.set(second, for: 7)                     // a new model for the same row
        #expect(map.count == 1)
        #expect(map[7] === second)
        map.remove(7)
        map.remove(7)                               // twice: nothing more
        map.remove(8)                               // never there
        #expect(map.count == 0)
        #expect(map[7] == nil)
        withExtendedLifetime((first, second)) {}
    }

    @Test func theMapDoesNotKeepModelsAliveAndSweepsTheirEntriesWhenDue() {
        var identity = _IdentityMap()
        weak var dropped: Row?
        do {
            let rows = (1...3_000).map { Row(Int64($0)) }
            dropped = rows[0]
            let map = identity.rows("T")
            for row in rows { map.set(row, for: row.id) }
            #expect(identity.entryCount("T") == 3_000)
        }
        #expect(dropped == nil, "the map does not keep a model alive")
        let kept = Row(5_000)
        let map = identity.rows("T")                // the next use sweeps (3,000 >= 2 x 1,024)
        #expect(identity.entryCount("T") == 0)
        #expect(map[1] == nil)
        map.set(kept, for: kept.id)                 // on a page the sweep emptied, reused
        #expect(identity.live.map(\.key) == [_RowKey(table: "T", id: 5_000)])
        #expect(map[5_001] == nil && map[4_999] == nil && map[5_000] === kept)
        #expect(identity.entryCount("T") == 1)
        withExtendedLifetime(kept) {}
    }

    @Test func aSweepNeverDropsALiveModel() {
        var identity = _IdentityMap()
        let live = (1...1_500).map { Row(Int64($0 * 3)) }          // every third id, alive
        do {
            let gone = (1...1_500).map { Row(Int64($0 * 3 + 1)) }  // freed after this block
            let map = identity.rows("T")
            for row in live + gone { map.set(row, for: row.id) }
        }
        _ = identity.rows("T")                                     // sweeps: 3,000 entries
        #expect(identity.entryCount("T") == 1_500)
        for row in live { #expect(identity[_RowKey(table: "T", id: row.id)] === row) }
    }

    @Test func theMapGivesItsModelsNoSideTable() {
        let map = _RowMap()
        let rows = (1...100).map { Row(Int64($0)) }
        for row in rows { map.set(row, for: row.id) }
        for row in rows { #expect(map[row.id] === row) }
        #expect(rows.filter(hasSideTable).count == 0)
        // The check itself: a weak reference does make one.
        weak let weakRow = rows[0]
        #expect(hasSideTable(rows[0]) && weakRow != nil)
    }

    /// Models end on other threads while the store's thread looks them up, replaces and sweeps
    /// them: each look-up finds the row's own model or nothing, and every model is freed.
    @Test(arguments: 1...4 as ClosedRange<UInt64>)
    func modelsEndingOnOtherThreadsWhileLookedUp(seed: UInt64) {
        final class Counted {
            let id: Int64
            let ended: Counter
            init(_ id: Int64, _ ended: Counter) { self.id = id; self.ended = ended }
            deinit { ended.add() }
        }
        final class Counter: Sendable {
            let value = Mutex(0)
            func add() { value.withLock { $0 += 1 } }
        }
        /// Hands models to the thread that drops them.
        final class Handoff: @unchecked Sendable {
            // Safe: `models` and `done` are only touched under `lock`.
            let lock = NSCondition()
            var models: [Counted] = []
            var done = false
            let finished = DispatchSemaphore(value: 0)

            func hand(_ model: Counted) {
                lock.lock(); models.append(model); lock.signal(); lock.unlock()
            }

            /// Drops what it is handed until `finish()`.
            func run() {
                while true {
                    lock.lock()
                    while models.isEmpty && !done { lock.wait() }
                    let batch = models
                    models = []
                    let last = done
                    lock.unlock()
                    _ = consume batch                   // the last references end here
                    if last { break }
                }
                finished.signal()
            }

            func finish() {
                lock.lock(); done = true; lock.signal(); lock.unlock()
                finished.wait()
            }
        }
        var random = SeededRandom(seed: seed)
        var identity = _IdentityMap()
        let ended = Counter()
        let handoff = Handoff()
        Thread { handoff.run() }.start()
        var made = 0
        var held: [Int64: Counted] = [:]
        for _ in 0..<40_000 {
            let id = Int64(random.below(4_096))
            let map = identity.rows("T")
            switch random.below(4) {
            case 0, 1:
                let model = Counted(id, ended)
                made += 1
                map.set(model, for: id)
                if let old = held.updateValue(model, forKey: id) { handoff.hand(old) }
            case 2:
                if let old = held.removeValue(forKey: id) { handoff.hand(old) }
            default:
                let found = map[id] as? Counted
                if let found { #expect(found.id == id, "seed \(seed)") }
                if let model = held[id] { #expect(found === model, "seed \(seed): a held model is found") }
            }
        }
        for model in held.values { handoff.hand(model) }
        held.removeAll()
        handoff.finish()
        #expect(ended.value.withLock { $0 } == made, "seed \(seed): every model was freed")
        identity = _IdentityMap()
    }
}
