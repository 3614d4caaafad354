import Foundation
import Testing
@testable import TetherSQLite
import TetherTestSupport

/// Seeded random work of two stores on one file, in one process, on sheets and their entries
/// (a to-many relationship with a cascade rule and an order): entries inserted, appended to and
/// removed from collections, given other sheets, reordered, changed and deleted, sheets inserted
/// and deleted (after syncing, or while the other store still works with them: SQLite may give
/// a deleted sheet's id to the next one), with flushes, refreshes and turns at random, and the
/// other store's changes applied in the middle of a write (an observer that refreshes), or read
/// and applied later (the watcher's look); a write
/// the database or the store refuses (an entry given to a sheet deleted elsewhere) is an error,
/// not a failure. After each round of syncing, every live
/// sheet of each store holds exactly the entries its row has, in the declared order, each naming
/// it, and its total is their sum; in memory, at every step, each entry in a collection names
/// its sheet. A turn's commit runs at once, or after the other store's next operation (as if
/// it waited for the write lock); the harness waits for it either way, so a failing seed
/// replays exactly: `TETHER_SEEDS=421 swift test --filter replaySeeds`.
/// Something to run from an observer of `committedChanges` (see `ToManyInterleavingTests.Side`).
@Model
final class Interruption {
    @Transient var run: (() -> Void)?
}

@Suite("To-many relationships: seeded work of two stores")
struct ToManyInterleavingTests {
    final class Side {
        /// Exact turns: what a commit's end schedules runs at the store's next turn, however
        /// fast the writer queue was.
        let scheduler = TurnScheduler()
        let store: Store
        var sheets: [Sheet] = []
        /// Run once at the store's next committed change, inside the write that makes it.
        let interruption = Interruption()
        let subscription: any Disposable

        init(path: String) throws {
            store = try Store(path: path, scheduler: scheduler, watchesExternalChanges: false)
            subscription = store.committedChanges.subscribe(with: interruption, next: { interruption, _ in
                let run = interruption.run
                interruption.run = nil
                run?()
            })
        }

        deinit { subscription.dispose() }

        var liveSheets: [Sheet] { sheets.filter { $0.persistentID != nil } }
        var liveEntries: [Entry] { liveSheets.flatMap(\.entries).filter { $0.persistentID != nil } }

        /// Picks up sheets another store inserted.
        func adoptNewSheets() throws {
            for sheet in try store.fetch(Sheet.self) where !sheets.contains(where: { $0 === sheet }) { sheets.append(sheet) }
        }
    }

    @Test(arguments: 1...40)
    func seed(_ seed: Int) throws {
        try Self.run(seed: UInt64(seed), operations: 80)
    }

    /// Replays seeds given in `TETHER_SEEDS` (`421`, or a range `41-800`), 200 operations each
    /// (or `TETHER_OPERATIONS`); with `TETHER_TRACE` set, prints every step and the rows.
    /// Skipped without `TETHER_SEEDS`.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["TETHER_SEEDS"] != nil))
    func replaySeeds() throws {
        let parts = (ProcessInfo.processInfo.environment["TETHER_SEEDS"] ?? "").split(separator: "-").compactMap { UInt64($0) }
        let first = try #require(parts.first, "TETHER_SEEDS: a seed or a range such as 41-800")
        let operations = ProcessInfo.processInfo.environment["TETHER_OPERATIONS"].flatMap { Int($0) } ?? 200
        for seed in first...(parts.last ?? first) { try Self.run(seed: seed, operations: operations) }
    }

    /// Runs one seed, then checks that both stores were freed (nothing the run armed keeps
    /// them alive).
    static func run(seed: UInt64, operations: Int) throws {
        final class Weak {
            weak var store: Store?
        }
        let stores = [Weak(), Weak()]
        do {
            try run(seed: seed, operations: operations, stores: stores.map { weak in { weak.store = $0 } })
        } catch {
            Issue.record("seed \(seed): \(error)")   // the seed, to replay it
            return
        }
        #expect(stores.allSatisfy { $0.store == nil }, "seed \(seed): both stores are freed at the end")
    }

    private static func run(seed: UInt64, operations: Int, stores: [(Store) -> Void]) throws {
        var random = SeededRandom(seed: seed)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-tomany-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let sides = [try Side(path: path), try Side(path: path)]
        for (side, keep) in zip(sides, stores) { keep(side.store) }
        let reader = try Connection(path: path)

        func sync() throws {
            // A change naming a sheet the other store deleted fails until the deletion is seen
            // (then it is dropped): the second flush must succeed.
            for side in sides { try? side.store.flush() }
            for side in sides {
                try side.store.refresh()
                side.scheduler.advance()
            }
            for side in sides { try side.store.flush() }
            for side in sides {
                try side.store.refresh()
                side.scheduler.advance()
                try side.adoptNewSheets()
            }
        }

        func check(_ moment: String) throws {
            for (number, side) in sides.enumerated() {
                for sheet in side.liveSheets {
                    let rows = try reader.rows(
                        "SELECT id, amount FROM Entry WHERE sheet_id = ? ORDER BY position, id", [.integer(sheet.persistentID!)])
                    let ids = rows.map { row -> Int64 in if case .integer(let id) = row.values[0] { id } else { -1 } }
                    let amounts = rows.map { row -> Int in if case .integer(let amount) = row.values[1] { Int(amount) } else { -1 } }
                    #expect(sheet.entries.map { $0.persistentID ?? 0 } == ids,
                            "seed \(seed), \(moment): store \(number)'s sheet \(sheet.persistentID!) holds the rows of its entries, in order")
                    #expect(sheet.entries.allSatisfy { $0.sheet === sheet }, "seed \(seed), \(moment): each entry names its sheet")
                    #expect(sheet.total == amounts.reduce(0, +), "seed \(seed), \(moment): the total is the rows' sum")
                }
            }
        }

        var label = 0
        func newEntry() -> Entry {
            label += 1
            let entry = Entry()
            entry.label = "e\(label)"
            entry.position = random.within(0...5)
            entry.amount = random.within(1...9)
            return entry
        }

        let trace = ProcessInfo.processInfo.environment["TETHER_TRACE"] != nil
        // A store whose writer queue is held (see operation 14) until the other store's next
        // operation is over; released however the run ends, or closing the store would wait.
        var held: (side: Int, gate: DispatchGroup)?
        defer { held?.gate.leave() }
        /// Lets the held commit run, and waits for it.
        func release() {
            guard let release = held else { return }
            release.gate.leave()
            sides[release.side].store.writer.sync { _ in }
            held = nil
        }
        /// What the other store may do while one's writer is held: nothing that reaches the
        /// held store (syncing both, arming an interruption).
        let whileHeld = [0, 1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 16, 17, 18, 19]
        for step in 0..<operations {
            var which = random.below(2)
            var operation = random.below(20)
            if let held {
                which = 1 - held.side
                operation = whileHeld[random.below(whileHeld.count)]
            }
            let side = sides[which]
            let sheets = side.liveSheets
            let entries = side.liveEntries
            if trace {
                print("step \(step) store \(which) op \(operation) sheets \(sheets.map { "\($0.persistentID!):\($0.entries.map { "\($0.persistentID ?? 0)" })" })")
            }
            do {
            switch operation {
            case 0:
                let sheet = Sheet()
                sheet.entries = (0..<random.below(3)).map { _ in newEntry() }
                try side.store.insert(sheet)
                side.sheets.append(sheet)
            case 1 where !sheets.isEmpty:
                let entry = newEntry()
                entry.sheet = sheets[random.below(sheets.count)]
                try side.store.insert(entry)
            case 2 where !sheets.isEmpty:
                sheets[random.below(sheets.count)].entries.append(newEntry())
            case 3 where !sheets.isEmpty:
                let sheet = sheets[random.below(sheets.count)]
                if !sheet.entries.isEmpty { sheet.entries.remove(at: random.below(sheet.entries.count)) }
            case 4 where !entries.isEmpty && !sheets.isEmpty:
                entries[random.below(entries.count)].sheet = sheets[random.below(sheets.count)]
            case 5 where !entries.isEmpty:
                entries[random.below(entries.count)].position = random.within(0...5)
            case 6 where !entries.isEmpty:
                entries[random.below(entries.count)].amount = random.within(1...9)
            case 7 where !entries.isEmpty:
                try side.store.delete(entries[random.below(entries.count)])
            case 8 where !sheets.isEmpty:
                // Deleting a sheet: both stores synced first (so neither gives an entry to a
                // sheet the other deleted), then the other notices the cascade in the log.
                try sync()
                let live = side.liveSheets
                if !live.isEmpty { try side.store.delete(live[random.below(live.count)]) }
                try sync()
                try check("after step \(step), a sheet deleted")
            case 9:
                try side.store.flush()
            case 11:
                // The store forgets its sheets (they are freed) and fetches them again: their
                // collections wait for their first use while both stores go on.
                try side.store.flush()
                side.sheets = []
                try side.adoptNewSheets()
            case 12 where !sheets.isEmpty:
                try side.store.delete(sheets[random.below(sheets.count)])
            case 13:
                try side.store.refresh()
            case 14:
                // A turn: it starts a commit on the writer queue. The commit runs at once, or
                // waits until the other store's next operation is over: when nothing in the turn
                // could wait for the writer queue behind it (an interruption that writes, a look
                // whose application loads rows). Either way the harness waits for it, and its
                // outcome waits in the inbox for the store's next turn or write.
                let quiet = sides.allSatisfy { $0.interruption.run == nil } && side.store.inbox.isEmpty
                if quiet, random.below(2) == 0 {
                    let gate = DispatchGroup()
                    gate.enter()
                    side.store.state.beforeAsynchronousCommit = { gate.wait() }
                    held = (which, gate)
                }
                side.scheduler.advance()
                side.store.state.beforeAsynchronousCommit = nil
                if held == nil { side.store.writer.sync { _ in } }
            case 16 where !entries.isEmpty:
                // The entry with the largest id deleted, and a new one added at once: SQLite
                // gives it the same id, which the other store may still know as the old entry.
                let last = entries.max { ($0.persistentID ?? 0) < ($1.persistentID ?? 0) }!
                try side.store.delete(last)
                sheets[random.below(sheets.count)].entries.append(newEntry())
            case 17:
                // An entry loaded by its id on its own (it joins its sheet's collection, if live).
                let top = (try? reader.scalar("SELECT max(id) FROM Entry", as: Int64.self)) ?? nil
                if let top, top > 0 { _ = try side.store.load(Entry.self, id: Int64(random.within(1...Int(top)))) }
            case 18 where !sheets.isEmpty:
                // The same for a sheet: the one with the largest id deleted, a new one inserted.
                let last = sheets.max { ($0.persistentID ?? 0) < ($1.persistentID ?? 0) }!
                try side.store.delete(last)
                let sheet = Sheet()
                sheet.entries = (0..<random.below(3)).map { _ in newEntry() }
                try side.store.insert(sheet)
                side.sheets.append(sheet)
            case 15:
                // At this store's next committed change, inside the write: the other store
                // writes what it has pending, and this one looks (as an observer that refreshes
                // would), so the other's changes apply in the middle of this one's write.
                let other = sides[1 - which]
                // Weakly: a store must not keep the other alive (one left armed at the end would
                // keep both, and their stores would write at the process's exit).
                side.interruption.run = { [weak side, weak other] in
                    try? other?.store.flush()
                    try? side?.store.refresh()
                }
            case 19:
                // The watcher's look: read now, applied at the store's next turn or write (the
                // store's own writes and turns meanwhile take values that do not reflect it).
                side.store.catchUpRequest()()
            case _ where held != nil:
                break   // an operation that does not apply here; syncing would wait for the held store
            default:
                try sync()
                try check("after step \(step)")
            }
            } catch let error as StoreError {
                if trace { print("   error: \(error)") }
            }
            // The other store's operation is over: the held commit runs now.
            if let held, held.side != which { release() }
            if trace {
                for (number, side) in sides.enumerated() {
                    print("   after: store \(number) \(side.liveSheets.map { "\($0.persistentID!):\($0.entries.map { "\($0.persistentID ?? 0)/\($0.position)" })" })")
                }
                print("   db: \((try? reader.rows("SELECT id, sheet_id, position FROM Entry ORDER BY id"))?.map { $0.values.map { "\($0)" }.joined(separator: ",") } ?? [])")
            }
            // In memory, at every step: each entry in a collection names its sheet.
            for (number, side) in sides.enumerated() {
                for sheet in side.liveSheets {
                    for entry in sheet.entries where entry.sheet !== sheet {
                        Issue.record("seed \(seed), step \(step) (operation \(operation) by store \(which)): store \(number)'s sheet \(sheet.persistentID!) holds entry \(entry.persistentID.map(String.init) ?? "deleted"), which names sheet \(entry.sheet?.persistentID.map(String.init) ?? "none")")
                    }
                }
            }
        }
        release()
        try sync()
        try check("at the end")
    }
}
