import Foundation
import TetherSQLite

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
    defer { if !options.keep { try? FileManager.default.removeItem(atPath: directory) } }
    var violations: [String] = []

    // The cells, ids 1...rows, and the churn table.
    do {
        let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
        try store.insert(contentsOf: (0..<options.rows).map { _ in Cell() })
        _ = try store.fetch(Churn.self)
        try store.flush()
    } catch {
        return ["setup failed: \(error)"]
    }

    var workers: [WorkerProcess] = []
    for index in 0..<options.workers {
        let arguments = ["worker", path, "\(options.seed)", "\(index)", "\(options.operations)", "\(options.rows)",
                         "\(options.busyMilliseconds)", options.faults ? "faults" : "nofaults"]
        do {
            workers.append(try WorkerProcess(index: index, executable: executable, arguments: arguments))
        } catch {
            return ["cannot start worker \(index): \(error)"]
        }
    }

    // Faults, until every worker is done or dead.
    var kills = 0, locks = 0, shellWrites = 0, shellFailures = 0
    var shellAcknowledged: [Int64: Int] = [:]
    let deadline = ContinuousClock.now + .seconds(600)
    while workers.contains(where: { !$0.isDone && !$0.hasEnded }), ContinuousClock.now < deadline {
        usleep(UInt32(random.within(1...4) * 1_000))
        let roll = random.below(100)
        if options.kills, roll < 4, kills < options.workers - 1,
           let victim = workers.filter({ !$0.isDone && !$0.hasEnded && !$0.killed }).randomElement(using: &random) {
            kill(victim.process.processIdentifier, SIGKILL)
            victim.killed = true
            kills += 1
        } else if options.faults, roll < 12 {
            // Another program holds the write lock past the workers' busy timeout.
            if let locker = try? Connection(path: path), (try? locker.execute("BEGIN IMMEDIATE")) != nil {
                usleep(UInt32((options.busyMilliseconds + random.within(20...150)) * 1_000))
                try? locker.execute("ROLLBACK")
                locks += 1
            }
        } else if options.shell, roll < 30 {
            let id = Int64(random.within(1...options.rows))
            let sql = "UPDATE Cell SET cs = cs + 1, s = 'shell.\(shellWrites)' WHERE id = \(id);"
            if runShell(path: path, sql: sql) {
                shellAcknowledged[id, default: 0] += 1
            } else {
                shellFailures += 1
            }
            shellWrites += 1
        }
    }
    if ContinuousClock.now >= deadline { violations.append("the run did not end within 600 s") }

    // All writers have stopped: the survivors catch up and compare their live models.
    for worker in workers where !worker.hasEnded {
        worker.input.fileHandleForWriting.write(Data("verify\n".utf8))
    }
    let exitDeadline = ContinuousClock.now + .seconds(60)
    while workers.contains(where: { !$0.hasEnded }), ContinuousClock.now < exitDeadline { usleep(5_000) }
    for worker in workers where !worker.hasEnded {
        violations.append("worker \(worker.index) hung after verify")
        kill(worker.process.processIdentifier, SIGKILL)
    }
    for worker in workers { worker.process.waitUntilExit() }

    violations += check(path: path, workers: workers, shellAcknowledged: shellAcknowledged, rows: options.rows)
    say("torture seed \(options.seed): \(options.workers) workers x \(options.operations) operations, \(options.rows) cells; "
        + "kills \(kills), lock holds \(locks), shell writes \(shellWrites) (\(shellFailures) refused); "
        + "\(violations.count) violations")
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
func check(path: String, workers: [WorkerProcess], shellAcknowledged: [Int64: Int], rows: Int) -> [String] {
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

    var updatesAcknowledged: [Int64: Int] = [:]
    var updatesPossible: [Int64: Int] = [:]
    for worker in workers {
        let name = "worker \(worker.index)"
        let lines = worker.lines.value
        var written: [Int64: Int] = [:]
        var acknowledged: [Int64: Int] = [:]
        var unacknowledged: [Int64: Int] = [:]
        var updating: Int64?
        for line in lines {
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
        if worker.killed { continue }
        if worker.process.terminationReason != .exit || worker.process.terminationStatus != 0 {
            violations.append("\(name) ended abnormally (\(worker.process.terminationReason == .exit ? "status" : "signal") \(worker.process.terminationStatus)) without being killed")
        } else if !lines.contains(where: { $0.hasPrefix("verified") }) {
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
