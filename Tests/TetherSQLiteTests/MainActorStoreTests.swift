import Foundation
import Testing
import TetherSQLite

/// A persisted view model isolated to the main actor. The store makes models with `init()`,
/// from its own code: the initializer must be `nonisolated` (the compiler says so otherwise).
@MainActor @Model
final class Memo {
    var text = ""
    var stars = 0
    var summary: String { "\(text) (\(stars))" }
    nonisolated init() {}
}
extension Memo: PersistentModel {}

/// Related main-actor models: a to-many relationship and its reference back.
@MainActor @Model
final class Album {
    var title = ""
    @Relationship(inverse: \Track.album, deleteRule: .cascade, orderBy: \Track.number)
    var tracks: [Track] = []
    var length: Int { tracks.reduce(0) { $0 + $1.seconds } }
    nonisolated init() {}
}
extension Album: PersistentModel {}

@MainActor @Model
final class Track {
    @Relationship var album: Album?
    var number = 0
    var seconds = 0
    nonisolated init() {}
}
extension Track: PersistentModel {}

/// Persisting a main-actor model, through the public API only.
@Suite("A model isolated to the main actor, in a store")
@MainActor
struct MainActorStoreTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-main-actor-\(UUID().uuidString)").path

    @Test func insertsWritesThroughFetchesAndObserves() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/memos.sqlite"
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let memo = Memo()
        memo.text = "milk"
        try store.insert(memo)
        var summaries: [String] = []
        let subscription = observe(memo, \.summary).sink { summaries.append($0) }
        memo.stars = 2
        try store.flush()

        let other = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let loaded = try other.fetch(Memo.self, orderBy: \.text)
        #expect(loaded.map(\.summary) == ["milk (2)"])
        var lists: [[String]] = []
        let live = other.observe(Memo.self, orderBy: \.stars).sink(next: { lists.append($0.map(\.text)) }, error: { Issue.record($0) })
        loaded[0].text = "oat milk"    // a loaded model belongs to the main actor too
        try other.flush()
        try store.refresh()

        #expect(summaries == ["milk (0)", "milk (2)", "oat milk (2)"])
        #expect(lists == [["milk"], ["oat milk"]])
        #expect(memo.text == "oat milk")
        subscription.dispose()
        live.dispose()
        try store.close()
        try other.close()
    }

    /// Relationships between main-actor models: the collection is live, a computed property over
    /// it follows, another store loads it in order, and the delete rule applies.
    @Test func relatedMainActorModels() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/albums.sqlite"
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let album = Album()
        album.title = "Kind of Blue"
        album.tracks = [(2, 565), (1, 562)].map { number, seconds in
            let track = Track()
            track.number = number
            track.seconds = seconds
            return track
        }
        try store.insert(album)
        var lengths: [Int] = []
        let subscription = observe(album, \.length).sink { lengths.append($0) }
        let third = Track()
        third.number = 3
        third.seconds = 337
        album.tracks.append(third)
        try store.flush()
        #expect(album.tracks.map(\.number) == [1, 2, 3])
        #expect(third.album === album)

        let other = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let loaded = try #require(try other.load(Album.self, id: album.persistentID!))
        #expect(loaded.tracks.map(\.number) == [1, 2, 3] && loaded.length == 1464)
        try other.delete(loaded)
        try store.refresh()
        #expect(album.persistentID == nil && third.persistentID == nil)
        #expect(lengths == [1127, 1464, 0])
        subscription.dispose()
        try store.close()
        try other.close()
    }
}
