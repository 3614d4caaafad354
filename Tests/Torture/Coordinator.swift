import Foundation
import TetherSQLite
import TetherTestSupport

/// What one run does (`tether-torture run --help` lists the flags).
struct RunOptions {
    var seed: UInt64 = 1
    var workers = 3
    var operations = 400
    var rows = 12
    var busyMilliseconds = 100
    var kills = true
    var faults = true
    var shell = true
    var directory: String?
    var keep = false
}

/// A worker process, its pipes, and the lines it printed.
final class WorkerProcess: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: `process` and the pipes are used by the coordinator's
    // thread only; the reader thread touches only `lines` and `ended` (each behind its own lock)
    // and the read end of `output`, which nothing else reads.
    let index: Int
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let lines = Shared<[String]>([])
    let ended = Shared(false)
    var killed = false

    init(index: Int, executable: String, arguments: [String]) throws {
        self.index = index
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let reader = Thread { [self] in self.read() }
        reader.start()
    }

    private func read() {
        var buffer = Data()
        let handle = output.fileHandleForReading
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            var complete: [String] = []
            while let newline = buffer.firstIndex(of: 0x0A) {
                complete.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
            lines.update { $0 += complete }
        }
        ended.update { $0 = true }
    }

    var isDone: Bool { lines.value.contains { $0.hasPrefix("done") } }
    var hasEnded: Bool { ended.value }
}

/// Runs one seeded torture run: workers on one file, faults and kills from the coordinator, then
/// the checker. Returns the violations found.
func runTorture(_ options: RunOptions, executable: String) -> [String] {
    var random = SeededRandom(seed: options.seed)
    let directory = options.directory
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("tether-torture-\(options.seed)-\(UUID().uuidString)").path
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/torture.sqlite"
    // Kept when asked, and always when a violation was found: a rare failure's history is
    // never thrown away.
    var keepFiles = options.keep
    defer { if !keepFiles { try? FileManager.default.removeItem(atPath: directory) } }
    var violations: [String] = []

    // The cells, ids 1...rows, and the churn table; the file and its folder writable by the
    // workers, who run as "nobody" when this runs as root.
    do {
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        try store.insert(contentsOf: (0..<options.rows).map { _ in Cell() })
        _ = try store.fetch(Churn.self)
        try store.close()
    } catch {
        return ["setup failed: \(error)"]
    }
    chmod(directory, 0o777)
    chmod(path, 0o666)
    // The file belongs to the workers' user ("nobody", see `runWorker`). SQLite running as root
    // (this process's lock holds, the sqlite3 shell) gives the `-wal` and `-shm` it creates to
    // the database file's owner, with the file's mode at that moment: owned by root, a 0444
    // `-shm` made during a read-only spell could never be written by a worker again (a store
    // gives such a file back the database file's mode only if it owns it), and every worker
    // would stay read-only to the end.
    if geteuid() == 0 {
        for file in [directory, path, path + "-wal", path + "-shm"] { _ = chown(file, 65534, 65534) }
    }

    /// Starts worker `index` (again, after a kill: a new incarnation with its own operations).
    func start(_ index: Int, incarnation: Int, operations: Int) throws -> WorkerProcess {
        let seed = options.seed &+ UInt64(incarnation) << 32
        let arguments = ["worker", path, "\(seed)", "\(index)", "\(operations)", "\(options.rows)",
                         "\(options.busyMilliseconds)", options.faults ? "faults" : "nofaults"]
        return try WorkerProcess(index: index, executable: executable, arguments: arguments)
    }
    // Each worker's incarnations, in order: a killed worker is started again, and goes on from
    // what the database holds.
    var workers: [[WorkerProcess]] = []
    for index in 0..<options.workers {
        do {
            workers.append([try start(index, incarnation: 0, operations: options.operations)])
        } catch {
            return ["cannot start worker \(index): \(error)"]
        }
    }
    func running() -> [WorkerProcess] { workers.compactMap(\.last).filter { !$0.isDone && !$0.hasEnded } }

    // Faults, until every worker is done or dead.
    var kills = 0, locks = 0, readOnlySpells = 0, shellWrites = 0, shellFailures = 0, shellDeletes = 0
    var shellAcknowledged: [Int64: Int] = [:]
    let deadline = ContinuousClock.now + .seconds(3_600)
    while !running().isEmpty, ContinuousClock.now < deadline {
        usleep(UInt32(random.within(1...4) * 1_000))
        let roll = random.below(100)
        if options.kills, roll < 4, kills < 4 * options.workers,
           let victim = running().filter({ !$0.killed }).randomElement(using: &random) {
            kill(victim.process.processIdentifier, SIGKILL)
            victim.killed = true
            kills += 1
            do {
                let again = try start(victim.index, incarnation: workers[victim.index].count, operations: max(1, options.operations / 4))
                workers[victim.index].append(again)
            } catch {
                violations.append("cannot restart worker \(victim.index): \(error)")
            }
        } else if options.faults, roll < 12 {
            // Another program holds the write lock past the workers' busy timeout.
            if let locker = try? Connection(path: path), (try? locker.execute("BEGIN IMMEDIATE")) != nil {
                usleep(UInt32((options.busyMilliseconds + random.within(20...150)) * 1_000))
                try? locker.execute("ROLLBACK")
                locks += 1
            }
        } else if options.faults, roll < 15 {
            // The file is read-only for a moment: stores that open it meanwhile (workers started
            // again) get a read-only connection, and must write once it is writable again.
            chmod(path, 0o444)
            if options.kills, kills < 4 * options.workers, random.chance(50),
               let victim = running().filter({ !$0.killed }).randomElement(using: &random) {
                // Started again while the file is read-only.
                kill(victim.process.processIdentifier, SIGKILL)
                victim.killed = true
                kills += 1
                do {
                    workers[victim.index].append(try start(victim.index, incarnation: workers[victim.index].count, operations: max(1, options.operations / 4)))
                } catch {
                    violations.append("cannot restart worker \(victim.index): \(error)")
                }
            }
            usleep(UInt32(random.within(10...80) * 1_000))
            chmod(path, 0o666)
            readOnlySpells += 1
        } else if options.shell, roll < 32 {
            let id = Int64(random.within(1...options.rows))
            let sql = "UPDATE Cell SET cs = cs + 1, s = 'shell.\(shellWrites)' WHERE id = \(id);"
            if runShell(path: path, sql: sql) {
                shellAcknowledged[id, default: 0] += 1
            } else {
                shellFailures += 1
            }
            shellWrites += 1
        } else if options.shell, roll < 38 {
            // The shell deletes a folder (its subtree and their leaves go, by the triggers: the
            // shell's foreign keys and recursive triggers are off) or a tag (the folders that
            // carry it carry none). Before a worker made the tables, it fails: not a violation.
            let sql = random.chance(50)
                ? "DELETE FROM Folder WHERE id = (SELECT id FROM Folder ORDER BY random() LIMIT 1);"
                : "DELETE FROM Tag WHERE id = (SELECT id FROM Tag ORDER BY random() LIMIT 1);"
            if runShell(path: path, sql: sql) { shellDeletes += 1 } else { shellFailures += 1 }
        }
    }
    if ContinuousClock.now >= deadline { violations.append("the run did not end within an hour") }

    // All writers have stopped: the survivors catch up and compare their live models.
    let last = workers.compactMap(\.last)
    for worker in last where !worker.hasEnded {
        worker.input.fileHandleForWriting.write(Data("verify\n".utf8))
    }
    let exitDeadline = ContinuousClock.now + .seconds(60)
    while last.contains(where: { !$0.hasEnded }), ContinuousClock.now < exitDeadline { usleep(5_000) }
    for worker in last where !worker.hasEnded {
        violations.append("worker \(worker.index) hung after verify")
        kill(worker.process.processIdentifier, SIGKILL)
    }
    for worker in workers.joined() { worker.process.waitUntilExit() }

    violations += check(path: path, workers: workers, shellAcknowledged: shellAcknowledged, rows: options.rows)
    if !violations.isEmpty { keepFiles = true }
    if keepFiles {
        say("torture seed \(options.seed): the file and the workers' logs are kept in \(directory)")
        // What each worker reported, one file per incarnation, to read a violation's history.
        for (index, incarnations) in workers.enumerated() {
            for (number, incarnation) in incarnations.enumerated() {
                let log = incarnation.lines.value.joined(separator: "\n") + "\n"
                try? log.write(toFile: "\(directory)/worker-\(index)-\(number).log", atomically: true, encoding: .utf8)
            }
        }
    }
    let allLines = workers.joined().flatMap { $0.lines.value }
    func count(_ prefix: String) -> Int { allLines.filter { $0.hasPrefix(prefix) }.count }
    let faultsSeen = "read-only opens \(count("ro")), failed flushes \(count("e flush")), failed updates \(count("uf ") + count("tf ")), failed inserts \(count("e insert"))"
    say("torture seed \(options.seed): \(options.workers) workers x \(options.operations) operations, \(options.rows) cells; "
        + "kills \(kills) (each worker started again), lock holds \(locks), read-only spells \(readOnlySpells), shell writes \(shellWrites) (\(shellFailures) refused), shell deletes \(shellDeletes); "
        + "\(faultsSeen); \(violations.count) violations")
    return violations
}

/// Runs the sqlite3 shell on `path`: true if it exited normally (the statement committed).
func runShell(path: String, sql: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["sqlite3", "-bail", "-cmd", ".timeout 300", path, sql]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    do {
        try process.run()
    } catch {
        return false
    }
    process.waitUntilExit()
    return process.terminationReason == .exit && process.terminationStatus == 0
}

/// The invariants, checked on the file after every process has ended.
func check(path: String, workers: [[WorkerProcess]], shellAcknowledged: [Int64: Int], rows: Int) -> [String] {
    var violations: [String] = []
    let reader: Connection
    var cells: [Int64: [String]] = [:]
    do {
        reader = try Connection(path: path)
        let integrity = try reader.rows("PRAGMA integrity_check").map { text($0.values[0]) }
        if integrity != ["ok"] { violations.append("integrity_check: \(integrity.joined(separator: "; "))") }
        for row in try reader.rows(cellSQL) {
            guard case .integer(let id) = row.values[0] else { continue }
            cells[id] = row.values.dropFirst().map(text)
        }
    } catch {
        return ["cannot read the file: \(error)"]
    }
    if cells.count != rows { violations.append("\(cells.count) cells, expected \(rows) (cells are never deleted)") }
    // The cascade held through kills and faults: no leaf names a folder that is gone. (The table
    // exists once a worker used folders.)
    if (try? reader.tableExists("Leaf")) == true {
        let orphans = (try? reader.scalar("SELECT COUNT(*) FROM Leaf WHERE folder_id IS NOT NULL AND folder_id NOT IN (SELECT id FROM Folder)", as: Int.self)) ?? -1
        if orphans != 0 { violations.append("\(orphans) leaves name a folder that was deleted (the cascade did not hold)") }
    }
    // No folder names a deleted row: its parent (the tree's cascade, every level) or its tag
    // (nullify), whoever deleted them.
    if (try? reader.tableExists("Folder")) == true {
        let orphans = (try? reader.scalar("SELECT COUNT(*) FROM Folder WHERE parent_id IS NOT NULL AND parent_id NOT IN (SELECT id FROM Folder)", as: Int.self)) ?? -1
        if orphans != 0 { violations.append("\(orphans) folders name a parent that was deleted (the tree's cascade did not hold)") }
        if (try? reader.tableExists("Tag")) == true {
            let tagged = (try? reader.scalar("SELECT COUNT(*) FROM Folder WHERE tag_id IS NOT NULL AND tag_id NOT IN (SELECT id FROM Tag)", as: Int.self)) ?? -1
            if tagged != 0 { violations.append("\(tagged) folders name a tag that was deleted (nullify did not hold)") }
        }
    }

    var updatesAcknowledged: [Int64: Int] = [:]
    var updatesPossible: [Int64: Int] = [:]
    for incarnations in workers {
        guard let worker = incarnations.last else { continue }
        let name = "worker \(worker.index)"
        var written: [Int64: Int] = [:]
        var acknowledged: [Int64: Int] = [:]
        var unacknowledged: [Int64: Int] = [:]
        var updating: Int64?
        // Incarnation by incarnation: what a killed incarnation wrote and never saw acknowledged
        // died with it (it may or may not be in the file); the next one's "a" does not cover it.
        for line in incarnations.flatMap({ incarnation in [nil] + incarnation.lines.value.map(Optional.some) }) {
            guard let line else {
                unacknowledged = [:]
                continue
            }
            let parts = line.split(separator: " ")
            guard let kind = parts.first else { continue }
            switch kind {
            case "w":
                guard parts.count == 3, let id = Int64(parts[1]), let value = Int(parts[2]) else { continue }
                written[id] = value
                unacknowledged[id] = value
            case "a", "done":
                acknowledged.merge(unacknowledged) { $1 }
                unacknowledged = [:]
            case "u?":
                guard let id = Int64(parts[1]) else { continue }
                updating = id
                updatesPossible[id, default: 0] += 1
            case "u":
                guard let id = Int64(parts[1]) else { continue }
                updating = nil
                updatesAcknowledged[id, default: 0] += 1
                // update() flushes first: everything before it is committed.
                acknowledged.merge(unacknowledged) { $1 }
                unacknowledged = [:]
            case "uf":
                guard let id = Int64(parts[1]) else { continue }
                updating = nil
                updatesPossible[id, default: 0] -= 1
            case "t?":
                guard let id = Int64(parts[1]) else { continue }
                updatesPossible[id, default: 0] += 1
            case "t":
                guard let id = Int64(parts[1]) else { continue }
                updatesAcknowledged[id, default: 0] += 1
            case "tf":
                guard let id = Int64(parts[1]) else { continue }
                updatesPossible[id, default: 0] -= 1
            case "X":
                violations.append("\(name): \(line.dropFirst(2))")
            default:
                continue
            }
        }
        _ = updating
        let column = worker.index
        for id in 1...Int64(rows) {
            guard let row = cells[id], let value = Int(row[column]) else { continue }
            let floor = acknowledged[id] ?? 0
            let ceiling = written[id] ?? 0
            if value < floor {
                violations.append("\(name): cell \(id) c\(column) is \(value) but \(floor) was acknowledged (flush returned): an acknowledged change was lost")
            } else if value > ceiling {
                violations.append("\(name): cell \(id) c\(column) is \(value), more than it ever wrote (\(ceiling))")
            }
        }
        for incarnation in incarnations where !incarnation.killed {
            if incarnation.process.terminationReason != .exit || incarnation.process.terminationStatus != 0 {
                violations.append("\(name) ended abnormally (\(incarnation.process.terminationReason == .exit ? "status" : "signal") \(incarnation.process.terminationStatus)) without being killed")
            }
        }
        if !worker.killed, !worker.lines.value.contains(where: { $0.hasPrefix("verified") }) {
            violations.append("\(name) did not verify its live models")
        }
    }
    for id in 1...Int64(rows) {
        guard let row = cells[id], let n = Int(row[4]), let cs = Int(row[6]) else { continue }
        let floor = updatesAcknowledged[id] ?? 0
        let ceiling = updatesPossible[id] ?? 0
        if n < floor { violations.append("cell \(id): n is \(n) but \(floor) increments through update() were acknowledged: increments lost") }
        if n > ceiling { violations.append("cell \(id): n is \(n), more than the \(ceiling) increments attempted") }
        let shell = shellAcknowledged[id] ?? 0
        if cs != shell { violations.append("cell \(id): cs is \(cs) but the shell committed \(shell) increments") }
    }
    return violations
}
