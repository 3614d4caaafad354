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
}
