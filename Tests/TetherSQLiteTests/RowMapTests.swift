import Testing
@testable import TetherSQLite

/// A stand-in for a model (the map holds any object).
private final class Row {
    let id: Int64
    init(_ id: Int64) { self.id = id }
}

/// The identity map's per-table structure: weak references to live models, by id, in pages of
/// 16 consecutive ids.
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

    @Test func theMapHoldsModelsWeaklyAndSweepsTheirEntriesWhenDue() {
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
}
