import Foundation
import Testing
@testable import TetherSQLite
import TetherTestSupport

/// A row two stores share: `a` is written only by the first store, `b` only by the second, `n`
/// only through `update`, `s` by both (the last writer wins).
@Model
final class Tally {
    var a = 0
    var b = 0
    var n = 0
    var s = ""
}
extension Tally: PersistentModel {}

/// A row the two stores insert, edit and delete.
@Model
final class Note {
    var v = 0
}
extension Note: PersistentModel {}

/// Seeded random interleavings of two stores on one file, in one process, replayed exactly: the
/// test decides the order of everything on each store's writer queue (a look at the log queued
/// before or after a commit, commits held back while the other store writes), so a failing
/// seed fails the same way every time. Besides the shared rows, the stores insert, edit and
/// delete notes, which each watches with a live query. The multi-process torture test (`TortureTests`) adds
/// real timing, kills and faults; this one covers the orders systematically.
@Suite("Store: seeded interleavings of two stores")
struct SyncInterleavingTests {
    /// One store, its scheduler, and what the test expects of its own column.
    final class Side {
        let scheduler = TurnScheduler()   // exact turns: what a commit's end schedules runs at the next one
        let store: Store
        let own: ReferenceWritableKeyPath<Tally, Int>
        var held: [Int64: Tally] = [:]
        var expected: [Int64: Int] = [:]
        /// The largest a, b and n this store's models of each row have shown.
        var seen: [Int64: [Int]] = [:]
        /// A semaphore the writer queue is waiting on, while the test holds it.
        var gate: DispatchSemaphore?
        /// The ids of the last result of a live query over every note.
        let notes: History<QueryResult<Note>>
        let subscription: any Disposable

        init(path: String, own: ReferenceWritableKeyPath<Tally, Int>) throws {
            store = try Store(path: path, scheduler: scheduler, busyTimeout: .seconds(5), watchesExternalChanges: false)
            self.own = own
            (notes, subscription) = record(store.observe(Note.self))
        }

        /// Lets the writer queue go on (before anything that waits for it).
        func release() {
            gate?.signal()
            gate = nil
        }

        func tally(_ id: Int64) throws -> Tally {
            if let tally = held[id] { return tally }
            release()
            let tally = try #require(try store.load(Tally.self, id: id))
            held[id] = tally
            if expected[id] == nil { expected[id] = tally[keyPath: own] }
            return tally
        }

        /// What the watcher does, queued behind whatever the writer queue has now.
        func queueALook() {
            let (tracker, inbox, box, scheduler) = (store.tracker, store.inbox, store.box, self.scheduler)
            store.writer.async { connection in
                do {
                    let changes = try tracker.catchUp(connection)
                    if !changes.isEmpty { inbox.push(.changes(changes)) }
                } catch {
                    inbox.push(.error(StoreError.wrap(error)))
                }
                scheduler.schedule { box.store?.drain() }
            }
        }
    }

    @Test("two stores: own values never undone, acknowledged changes kept, increments counted, both converge",
          arguments: 1...150 as ClosedRange<UInt64>)
    func seededInterleaving(seed: UInt64) throws {
        let fixture = try StoreFixture()
        let rows = 2
        try fixture.store.insert(contentsOf: (0..<rows).map { _ in Tally() })
        try fixture.store.flush()
        let sides = [try Side(path: fixture.path, own: \.a), try Side(path: fixture.path, own: \.b)]
        var random = SeededRandom(seed: seed)
        var increments = [Int64: Int]()
        var history: [String] = []

        for step in 0..<400 {
            let index = random.below(2)
            let side = sides[index]
            let id = Int64(random.within(1...rows))
            let roll = random.below(115)
            switch roll {
            case 0..<25:
                let tally = try side.tally(id)
                tally[keyPath: side.own] += 1
                side.expected[id] = tally[keyPath: side.own]
                history.append("\(index): \(id) own = \(tally[keyPath: side.own])")
            case 25..<32:
                try side.tally(id).s = "\(index).\(step)"
                history.append("\(index): \(id) s")
            case 32..<45:
                // A turn may apply events that need the writer queue (a live query loading new
                // rows): it is let go first, and what it was given is done.
                side.release()
                side.store.writer.sync { _ in }
                side.scheduler.advance()
                history.append("\(index): turn")
            case 107..<112:
                // The end-of-turn commit without the rest of the turn: queued behind whatever
                // the writer queue holds (a look, another commit), its outcome applied later.
                try side.store.commitPending(synchronously: false)
                history.append("\(index): commit queued")
            case 45..<60:
                side.queueALook()
                history.append("\(index): look queued")
            case 60..<68:
                if side.gate == nil {
                    let gate = DispatchSemaphore(value: 0)
                    side.store.writer.async { _ in gate.wait() }
                    side.gate = gate
                    history.append("\(index): writer held")
                }
            case 68..<74:
                side.release()
                history.append("\(index): writer released")
            case 74..<80:
                side.release()
                try side.store.flush()
                history.append("\(index): flush")
            case 80..<85:
                side.release()
                try side.store.refresh()
                history.append("\(index): refresh")
            case 85..<91:
                let tally = try side.tally(id)
                side.release()
                try side.store.update(tally) { $0.n += 1 }
                increments[id, default: 0] += 1
                history.append("\(index): \(id) update")
            case 91..<98:
                side.held[id] = nil   // dropped (kept alive by the store while it has pending changes)
                history.append("\(index): \(id) dropped")
            case 98..<101:
                side.release()
                try side.store.insert(Note())
                history.append("\(index): note inserted")
            case 101..<104:
                side.release()
                if let note = try side.store.fetch(Note.self).randomElement(using: &random) {
                    try side.store.delete(note)
                    history.append("\(index): note deleted")
                }
            case 104..<107:
                if let note = side.notes.values.last?.randomElement(using: &random) {
                    note.v += 1   // perhaps deleted by the other store meanwhile
                    history.append("\(index): note edited")
                }
            default:
                _ = try side.tally(id)
                history.append("\(index): \(id) held")
            }
            // A writer queue that is not held has done everything it was given: what happens
            // on the two queues, and in which order, is decided by the steps alone.
            for side in sides where side.gate == nil { side.store.writer.sync { _ in } }
            for side in sides {
                // What a set of a stored model reads to tell whether its column is pending
                // already (the registrar's marks) agrees with the pending rows.
                let models = side.held.values.map { $0 as any Model } + (side.notes.values.last ?? []).map { $0 as any Model }
                for model in models {
                    let marked = model._registrarAddress.pointee.pendingColumns.load(ordering: .relaxed)
                    let pending = side.store.state.dirty[ObjectIdentifier(model)]?.columns.marks ?? 0
                    if marked != pending {
                        Issue.record("seed \(seed), step \(step): \(type(of: model)) \(model.persistentID ?? 0) marks \(marked) pending, has \(pending)\n\(history.suffix(12).joined(separator: "\n"))")
                    }
                }
                for (id, tally) in side.held {
                    if tally[keyPath: side.own] != side.expected[id] {
                        Issue.record("seed \(seed), step \(step): own value of \(id) undone: \(tally[keyPath: side.own]) instead of \(side.expected[id] ?? -1)\n\(history.suffix(12).joined(separator: "\n"))")
                        side.expected[id] = tally[keyPath: side.own]
                    }
                    // a, b and n only grow in the file: a view that shows a smaller value than it
                    // showed before applied a stale read.
                    let now = [tally.a, tally.b, tally.n]
                    let before = side.seen[id] ?? [0, 0, 0]
                    if zip(now, before).contains(where: { $0 < $1 }) {
                        Issue.record("seed \(seed), step \(step): \(id) went back from \(before) to \(now)\n\(history.suffix(12).joined(separator: "\n"))")
                    }
                    side.seen[id] = zip(now, before).map { max($0, $1) }
                }
            }
        }

        for side in sides {
            side.release()
            try side.store.flush()
        }
        for side in sides {
            try side.store.refresh()
            side.scheduler.advance()
        }
        let reader = try fixture.another()
        let noteRows = try reader.rows("SELECT id, v FROM Note ORDER BY id").map(\.values)
        for side in sides {
            let notes = side.notes.values.last ?? []
            let shown = notes.map { [SQLiteValue.integer($0.persistentID ?? -1), .integer(Int64($0.v))] }
            #expect(shown == noteRows, "seed \(seed): a live query's notes differ from the table")
        }
        for row in try reader.rows("SELECT id, a, b, n, s FROM Tally") {
            guard case .integer(let id) = row.values[0] else { continue }
            let values = row.values
            #expect(values[1] == .integer(Int64(sides[0].expected[id] ?? 0)), "seed \(seed): a of \(id)")
            #expect(values[2] == .integer(Int64(sides[1].expected[id] ?? 0)), "seed \(seed): b of \(id)")
            #expect(values[3] == .integer(Int64(increments[id] ?? 0)), "seed \(seed): n of \(id)")
            for side in sides {
                guard let tally = try side.store.fetch(Tally.self, where: "id = ?", [.integer(id)]).first else { continue }
                let model: [SQLiteValue] = [.integer(id), .integer(Int64(tally.a)), .integer(Int64(tally.b)), .integer(Int64(tally.n)), .text(tally.s)]
                #expect(model == values, "seed \(seed): a live model differs from its row after refresh")
            }
        }
    }
}
