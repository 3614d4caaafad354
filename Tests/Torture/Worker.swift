import Foundation
import Synchronization
import TetherSQLite
import TetherTestSupport

/// Writes a line to standard output at once (write(2): nothing buffered is lost when killed).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A value shared with signal subscribers (which are `@Sendable` closures).
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>
    init(_ value: Value) { storage = Mutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update(_ body: (inout Value) -> Void) { storage.withLock { body(&$0) } }
}

/// A database value as text (to compare a model with its row).
func text(_ value: SQLiteValue) -> String {
    switch value {
    case .null: return "NULL"
    case .integer(let integer): return "\(integer)"
    case .real(let real): return "\(real)"
    case .text(let text): return text
    case .blob(let bytes): return "\(bytes)"
    }
}

/// What a worker is told on its command line.
struct WorkerOptions {
    var path: String
    var seed: UInt64
    var index: Int
    var operations: Int
    var rows: Int
    var busyMilliseconds: Int
    var faults: Bool
}

/// One worker process: random operations on the shared file through one store, reporting on
/// standard output what the checker needs:
///
///     w ID V     set its own column of cell ID to V (not yet acknowledged)
///     a          flush() returned: every earlier change is committed
///     u? ID      about to increment n of cell ID with Store.update
///     u ID       that update returned (committed)
///     uf ID ...  that update threw (rolled back)
///     t? ID, t ID, tf ID   the same, from a second store on another thread of the process
///     ro         its store opened the file read-only (during a read-only spell)
///     done E     finished its operations, everything acknowledged (E: errors seen)
///     verified N after "verify" on standard input: caught up, N live cells compared
///     X ...      a violation it saw itself (its own value undone, a counter that went back,
///                a live model unlike its row)
///
/// Then it waits for a line on standard input (all writers have stopped), catches up with
/// `refresh()`, and compares every live model with its row.
func runWorker(_ options: WorkerOptions) -> Never {
    // Root may write any file: a worker runs as "nobody" (uid and gid 65534) so that the
    // coordinator's read-only spells (the file's mode made 0444) bind it as they bind a user.
    if geteuid() == 0 {
        guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else {
            say("X cannot drop privileges: errno \(errno)")
            exit(1)
        }
    }
    var random = SeededRandom(seed: options.seed &* 1_000_003 &+ UInt64(options.index) &* 7919 &+ 1)
    let scheduler = TestScheduler()
    let store: Store
    do {
        store = try Store(path: options.path, scheduler: scheduler, busyTimeout: .milliseconds(options.busyMilliseconds))
    } catch {
        say("X open: \(error)")
        exit(1)
    }
    if store.isReadOnly { say("ro") }   // opened during a read-only spell: writes wait for the file
    let mine = ownColumn(options.index)
    var held: [Int64: Cell] = [:]
    var expected: [Int64: Int] = [:]
    /// The largest value of each counter (c0...c3, n, cs) this process's models of a cell showed.
    var seen: [Int64: [Int]] = [:]
    let errors = Shared(0)
    let errorsSubscription = store.errors.subscribe(next: { _ in errors.update { $0 += 1 } })
    // A live query over every cell: it keeps them all live, so each must follow its row.
    let liveIDs = Shared<[Int64]>([])
    let liveFailure = Shared<String?>(nil)
    let liveQuery = store.observe(Cell.self).subscribe(
        next: { cells in liveIDs.update { $0 = cells.compactMap(\.persistentID) } },
        error: { error in liveFailure.update { $0 = "\(error)" } })

    // A second store on another thread of the same process, incrementing `n` through update().
    let stopThread = Shared(false)
    let threadEnded = DispatchSemaphore(value: 0)
    let threadSeed = options.seed &* 31 &+ UInt64(options.index) &+ 17
    let (path, rows, busy) = (options.path, options.rows, options.busyMilliseconds)
    Thread {
        defer { threadEnded.signal() }
        var random = SeededRandom(seed: threadSeed)
        let store: Store
        do {
            store = try Store(path: path, scheduler: TestScheduler(), busyTimeout: .milliseconds(busy))
        } catch {
            say("X thread open: \(error)")
            return
        }
        while !stopThread.value {
            let id = Int64(random.within(1...rows))
            do {
                guard let cell = try store.load(Cell.self, id: id) else { continue }
                say("t? \(id)")
                do {
                    try store.update(cell) { $0.n += 1 }
                    say("t \(id)")
                } catch {
                    say("tf \(id) \(error)")
                }
            } catch {
                say("e thread load \(error)")
            }
            usleep(UInt32(random.within(500...3_000)))
        }
    }.start()

    /// Folders this process holds (their leaves with them).
    var folders: [Folder] = []

    /// The cell of row `id`, held from now on.
    func cell(_ id: Int64) -> Cell? {
        if let cell = held[id] { return cell }
        do {
            guard let cell = try store.load(Cell.self, id: id) else {
                say("X missing cell \(id)")
                return nil
            }
            held[id] = cell
            if let value = expected[id], cell[keyPath: mine] != value {
                say("X own-undone \(id) loaded=\(cell[keyPath: mine]) expected=\(value)")
            }
            expected[id] = cell[keyPath: mine]
            return cell
        } catch {
            say("e load \(error)")
            return nil
        }
    }

    func randomCell() -> (Int64, Cell)? {
        let id = Int64(random.within(1...options.rows))
        return cell(id).map { (id, $0) }
    }

    for operation in 0..<options.operations {
        let roll = random.below(100)
        switch roll {
        case 0..<30:   // its own column, by plain assignment (written through)
            guard let (id, cell) = randomCell() else { break }
            cell[keyPath: mine] += 1
            expected[id] = cell[keyPath: mine]
            say("w \(id) \(cell[keyPath: mine])")
        case 30..<37:   // the shared column: the last writer wins
            guard let (_, cell) = randomCell() else { break }
            cell.s = "w\(options.index).\(operation)"
        case 37..<45:   // read-modify-write
            guard let (id, cell) = randomCell() else { break }
            say("u? \(id)")
            do {
                try store.update(cell) { $0.n += 1 }
                say("u \(id)")
            } catch {
                say("uf \(id) \(error)")
            }
        case 45..<53:
            do {
                try store.flush()
                say("a")
            } catch {
                say("e flush \(error)")
            }
        case 53..<63:   // turns of the store's scheduler, with time for the watcher between
            for _ in 0..<random.within(1...4) {
                scheduler.advance()
                usleep(UInt32(random.below(800)))
            }
        case 63..<68:   // let go of a model (a model with pending changes stays alive)
            if let id = held.keys.randomElement(using: &random) { held[id] = nil }
        case 68..<72:
            let churn = Churn()
            churn.label = "w\(options.index).\(operation)"
            do { try store.insert(churn) } catch { say("e insert \(error)") }
        case 72..<75:
            do {
                let all = try store.fetch(Churn.self)
                if let victim = all.randomElement(using: &random) { try store.delete(victim) }
            } catch {
                say("e delete \(error)")
            }
        case 75..<78:   // an edit of a churn row (which another worker may delete meanwhile)
            do {
                if let row = try store.fetch(Churn.self).randomElement(using: &random) { row.v += 1 }
            } catch {
                say("e fetch \(error)")
            }
        case 78..<81:
            do {
                _ = try store.fetch(Cell.self, where: "n >= ?", [.integer(Int64(random.below(5)))], orderBy: \.n)
            } catch {
                say("e fetch \(error)")
            }
        case 81..<85:
            do { try store.refresh() } catch { say("e refresh \(error)") }
        case 85..<87 where options.faults:   // a full disk for a moment
            fillTheDisk(store, operation: operation)
        case 87..<97:   // folders and their leaves (a to-many relationship, cascade)
            relationshipOperation(store, roll: roll, operation: operation, folders: &folders, random: &random)
        case 97:   // its own column of every cell at once (from 64 rows, a commit logs runs of ids)
            for id in 1...Int64(options.rows) {
                guard let cell = cell(id) else { continue }
                cell[keyPath: mine] += 1
                expected[id] = cell[keyPath: mine]
                say("w \(id) \(cell[keyPath: mine])")
            }
        default:   // time passes: the watcher reads the log, applied at the next turn
            usleep(UInt32(random.below(2_000)))
        }
        for (id, cell) in held {
            if cell[keyPath: mine] != expected[id] {
                say("X own-undone \(id) model=\(cell[keyPath: mine]) expected=\(expected[id] ?? -1) after operation \(operation)")
                expected[id] = cell[keyPath: mine]
            }
            // Every counter only grows in the file: a model showing a smaller value than this
            // process saw before applied a stale read.
            let now = [cell.c0, cell.c1, cell.c2, cell.c3, cell.n, cell.cs]
            let before = seen[id] ?? now
            if zip(now, before).contains(where: { $0 < $1 }) {
                say("X went-back \(id) from \(before) to \(now) after operation \(operation)")
            }
            seen[id] = zip(now, before).map { max($0, $1) }
        }
        // In memory, at every step: each leaf in a folder's collection names that folder.
        for folder in folders where folder.persistentID != nil {
            for leaf in folder.leaves where leaf.folder !== folder {
                say("X leaf \(leaf.persistentID ?? 0) in folder \(folder.persistentID ?? 0) names \(leaf.folder?.persistentID ?? 0) after operation \(operation)")
            }
        }
    }

    stopThread.update { $0 = true }
    threadEnded.wait()

    // Everything it changed is committed before it says done; only a flush that returned
    // acknowledges it.
    var attempts = 0
    while true {
        do {
            try store.flush()
            say("a")
            break
        } catch {
            attempts += 1
            if attempts == 500 {
                say("X final flush failed: \(error)")
                break
            }
            usleep(10_000)
        }
    }
    scheduler.advance()
    say("done \(errors.value)")

    // All writers have stopped: catch up, then every live model must equal its row.
    _ = readLine()
    do {
        try store.refresh()
        scheduler.advance()
        let reader = try Connection(path: options.path)
        var rows: [Int64: [String]] = [:]
        for row in try reader.rows(cellSQL) {
            guard case .integer(let id) = row.values[0] else { continue }
            rows[id] = row.values.dropFirst().map(text)
        }
        let cells = try store.fetch(Cell.self)   // the live models, as they are
        for cell in cells {
            guard let id = cell.persistentID else { continue }
            if values(of: cell) != rows[id] {
                say("X diverged cell \(id): model \(values(of: cell)) row \(rows[id] ?? [])")
            }
        }
        var churnRows: [Int64: [String]] = [:]
        for row in try reader.rows("SELECT id, label, v FROM Churn") {
            guard case .integer(let id) = row.values[0] else { continue }
            churnRows[id] = row.values.dropFirst().map(text)
        }
        for churn in try store.fetch(Churn.self) {
            guard let id = churn.persistentID else { continue }
            if [churn.label, "\(churn.v)"] != churnRows[id] {
                say("X diverged churn \(id): model \([churn.label, "\(churn.v)"]) row \(churnRows[id] ?? [])")
            }
        }
        // Every live folder holds exactly its leaves' rows, in order, each naming it.
        for folder in try store.fetch(Folder.self) {
            guard let id = folder.persistentID else { continue }
            let leaves = try reader.rows("SELECT id FROM Leaf WHERE folder_id = ? ORDER BY position, id", [.integer(id)])
                .map { text($0.values[0]) }
            let held = folder.leaves.map { "\($0.persistentID ?? 0)" }
            if held != leaves { say("X diverged folder \(id): leaves \(held) rows \(leaves)") }
            if folder.leaves.contains(where: { $0.folder !== folder }) { say("X folder \(id): a leaf names another folder") }
            // Its subfolders and its tag, as the rows say (none names a deleted row).
            let subfolders = try reader.rows("SELECT id FROM Folder WHERE parent_id = ? ORDER BY id", [.integer(id)])
                .map { text($0.values[0]) }
            let heldSubfolders = folder.subfolders.map { "\($0.persistentID ?? 0)" }
            if heldSubfolders != subfolders { say("X diverged folder \(id): subfolders \(heldSubfolders) rows \(subfolders)") }
            let tagRow = try reader.rows("SELECT tag_id, parent_id FROM Folder WHERE id = ?", [.integer(id)]).first?.values
            let tag = folder.tag.flatMap(\.persistentID).map { SQLiteValue.integer($0) } ?? .null
            if let tagRow, tagRow[0] != tag { say("X diverged folder \(id): tag \(tag) row \(tagRow[0])") }
            if folder.tag != nil, folder.tag?.persistentID == nil { say("X folder \(id) holds a deleted tag") }
            let parent = folder.parent.flatMap(\.persistentID).map { SQLiteValue.integer($0) } ?? .null
            if let tagRow, tagRow[1] != parent { say("X diverged folder \(id): parent \(parent) row \(tagRow[1])") }
        }
        if let failure = liveFailure.value { say("X live query failed: \(failure)") }
        if liveIDs.value != rows.keys.sorted() {
            say("X live query \(liveIDs.value.count) ids, table \(rows.count)")
        }
        say("verified \(cells.count)")
    } catch {
        say("X verify: \(error)")
    }
    liveQuery.dispose()
    errorsSubscription.dispose()
    exit(0)
}

/// One operation on folders and leaves, chosen by `roll` (87..<97): insert a folder with leaves,
/// append a leaf, move one to another folder, reorder one, delete a leaf or a folder. Another
/// worker may delete any of them meanwhile: errors are reported, not violations.
func relationshipOperation(_ store: Store, roll: Int, operation: Int, folders: inout [Folder], random: inout SeededRandom) {
    folders.removeAll { $0.persistentID == nil }
    if folders.count < 3 || random.chance(20) {
        do { folders += try store.fetch(Folder.self).filter { folder in !folders.contains { $0 === folder } }.prefix(3) } catch { say("e fetch folders \(error)") }
    }
    let leaves = folders.flatMap(\.leaves).filter { $0.persistentID != nil }
    do {
        switch roll {
        case 87:
            let folder = Folder()
            folder.label = "f\(operation)"
            folder.leaves = (0..<random.below(4)).map { _ in
                let leaf = Leaf()
                leaf.position = random.below(10)
                return leaf
            }
            try store.insert(folder)
            folders.append(folder)
            say("r insert folder \(folder.persistentID ?? 0) leaves \(folder.leaves.map { $0.persistentID ?? 0 })")
        case 88 where !folders.isEmpty:   // a subfolder: the tree grows a level
            let parent = folders[random.below(folders.count)]
            let folder = Folder()
            folder.label = "f\(operation)"
            parent.subfolders.append(folder)
            folders.append(folder)
            say("r subfolder \(folder.persistentID ?? 0) of \(parent.persistentID ?? 0)")
        case 89 where !folders.isEmpty:   // a tag: a new one, another folder's, or none
            let folder = folders[random.below(folders.count)]
            switch random.below(3) {
            case 0:
                let tag = Tag()
                tag.label = "t\(operation)"
                try store.insert(tag)
                folder.tag = tag
            case 1:
                folder.tag = folders.compactMap(\.tag).filter { $0.persistentID != nil }.randomElement(using: &random)
            default:
                if let tag = folder.tag, tag.persistentID != nil, random.chance(50) {
                    say("r delete tag \(tag.persistentID ?? 0)")
                    try store.delete(tag)
                } else {
                    folder.tag = nil
                }
            }
        case 90..<92 where !folders.isEmpty:
            let leaf = Leaf()
            leaf.position = random.below(10)
            let folder = folders[random.below(folders.count)]
            folder.leaves.append(leaf)
            say("r append to \(folder.persistentID ?? 0): leaf \(leaf.persistentID ?? 0) names \(leaf.folder?.persistentID ?? 0)")
        case 92..<94 where !folders.isEmpty && !leaves.isEmpty:
            let leaf = leaves[random.below(leaves.count)], folder = folders[random.below(folders.count)]
            leaf.folder = folder
            say("r move leaf \(leaf.persistentID ?? 0) to \(folder.persistentID ?? 0)")
        case 94 where !leaves.isEmpty:
            leaves[random.below(leaves.count)].position = random.below(10)
        case 95 where !leaves.isEmpty:
            let leaf = leaves[random.below(leaves.count)]
            say("r delete leaf \(leaf.persistentID ?? 0)")
            try store.delete(leaf)
        case 96 where !folders.isEmpty:
            let folder = folders[random.below(folders.count)]
            say("r delete folder \(folder.persistentID ?? 0) leaves \(folder.leaves.map { $0.persistentID ?? 0 })")
            try store.delete(folder)
        default:
            break
        }
    } catch {
        say("e relationship \(error)")
    }
}

/// Makes the database full for this store's connection (`max_page_count` at the current size),
/// tries to insert rows that need room (they must fail and write nothing), and lifts the limit.
func fillTheDisk(_ store: Store, operation: Int) {
    do {
        try store.database.sync { connection in
            let pages = try connection.scalar("PRAGMA page_count", as: Int.self) ?? 1
            _ = try connection.rows("PRAGMA max_page_count = \(pages)")
        }
    } catch {
        say("e full \(error)")
        return
    }
    let big = (0..<20).map { index -> Churn in
        let churn = Churn()
        churn.label = String(repeating: "x", count: 4_000) + "\(operation).\(index)"
        return churn
    }
    do {
        try store.insert(contentsOf: big)
        say("e full: the insert fitted")
    } catch {
        if big.contains(where: { $0.persistentID != nil }) { say("X a failed insert left ids") }
    }
    do {
        try store.database.sync { connection in _ = try connection.rows("PRAGMA max_page_count = 1073741823") }
    } catch {
        say("X could not lift the full disk: \(error)")
    }
}
