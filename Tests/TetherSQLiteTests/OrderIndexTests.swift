import Foundation
import Testing
import TetherSQLite   // the public API only

@Model
final class Song {
    var title = ""
    var plays = 0
}
extension Song: PersistentModel {}

/// A live query ordered by a column gets the index its order needs, so that placing a changed
/// row never reads the whole table (89 ms at 1,000,000 rows without one); it orders the same
/// with the index as without.
@Suite("The index a live query's order needs")
struct OrderIndexTests {
    private func indexes(_ fixture: StoreFixture) throws -> [String] {
        try fixture.another().rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Song' ORDER BY name")
            .compactMap { if case .text(let name)? = $0.values.first { name } else { nil } }
    }

    @Test func aLiveQueryOrderedByAColumnWithoutAnIndexMakesOne() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let titles = ["b", "a", "d", "c", "a"]
        for (plays, title) in titles.enumerated() {
            let track = Song()
            track.title = title
            track.plays = plays
            try store.insert(track)
        }
        try store.flush()
        #expect(try indexes(fixture).isEmpty)
        let (results, observing) = record(store.observe(Song.self, orderBy: \.title).map { $0.map(\.title) })
        #expect(try indexes(fixture) == ["tether_Song_title_order"])
        #expect(results.values.last == ["a", "a", "b", "c", "d"])

        // Another program changes a column that is not the order, then the order itself.
        try fixture.another().execute("UPDATE Song SET plays = 99 WHERE title = 'c'")
        try store.refresh()
        try fixture.another().execute("UPDATE Song SET title = 'e' WHERE title = 'b'")
        try store.refresh()
        #expect(results.values.last == ["a", "a", "c", "d", "e"])
        let direct = try fixture.another().rows("SELECT title FROM Song ORDER BY title, id").map(\.values)
        #expect(results.values.last?.map { [SQLiteValue.text($0)] } == direct)

        // Ordered again by the same column, or by id: nothing more is made.
        let again = store.observe(Song.self, orderBy: \.title).subscribe(next: { _ in })
        let byID = store.observe(Song.self).subscribe(next: { _ in })
        #expect(try indexes(fixture) == ["tether_Song_title_order"])
        again.dispose()
        byID.dispose()
        observing.dispose()
    }

    @Test func anIndexThatServesTheOrderIsUsedAndNoneIsAdded() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        try store.insert(Song())
        try store.flush()
        try fixture.another().execute("CREATE INDEX mine ON Song(plays)")
        let observing = store.observe(Song.self, orderBy: \.plays).subscribe(next: { _ in })
        let made = try indexes(fixture)
        #expect(made == ["mine"])
        observing.dispose()
    }

    /// With the write lock held elsewhere, the query does not wait for it (the busy timeout is
    /// 5 s): it orders without the index, at once.
    @Test func theWriteLockHeldElsewhereDoesNotHoldTheQueryUp() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        try store.insert(Song())
        try store.flush()
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        let started = ContinuousClock.now
        let (results, observing) = record(store.observe(Song.self, orderBy: \.title))
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(results.values.last?.count == 1)
        try other.execute("COMMIT")
        #expect(try indexes(fixture).isEmpty)
        observing.dispose()
    }

    @Test func aReadOnlyStoreOrdersWithoutMakingAnIndex() throws {
        let fixture = try StoreFixture()
        for title in ["y", "x"] {
            let track = Song()
            track.title = title
            try fixture.store.insert(track)
        }
        try fixture.store.flush()
        let viewer = try Store(path: fixture.path, scheduler: TestScheduler(), watchesExternalChanges: false, readOnly: true)
        let (results, observing) = record(viewer.observe(Song.self, orderBy: \.title).map { $0.map(\.title) })
        #expect(results.values.last == ["x", "y"])
        #expect(try indexes(fixture).isEmpty)
        observing.dispose()
    }
}
