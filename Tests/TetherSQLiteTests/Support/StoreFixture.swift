import Foundation
import Synchronization
@testable import TetherSQLite

/// A store on a fresh file, whose models live on the test's thread and whose end-of-turn commits
/// run when the test advances `scheduler`. It counts the write transactions the store's connection ran.
/// It does not watch for external changes unless asked (`watches: true`): tests see them when
/// they call `refresh()`, at a point they choose.
final class StoreFixture {
    let directory: String
    let path: String
    let scheduler = TestScheduler()
    private(set) var store: Store!
    let log = SQLLog()
    let watches: Bool

    init(busyTimeout: Duration = .seconds(5), watches: Bool = false) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tether-store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/store.sqlite"
        self.watches = watches
        try open(busyTimeout: busyTimeout)
    }

    func open(busyTimeout: Duration = .seconds(5)) throws {
        store = try Store(path: path, scheduler: scheduler, busyTimeout: busyTimeout, watchesExternalChanges: watches)
        let log = self.log
        store.writer.sync { connection in connection.trace { log.append($0) } }
    }

    func close() { store = nil }

    deinit {
        store = nil
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Another connection to the file: "another program".
    func another() throws -> Connection { try Connection(path: path) }

    /// The write transactions (a look at the change log reads in a deferred one of its own).
    var transactions: Int { log.statements.filter { $0.hasPrefix("BEGIN IMMEDIATE") }.count }
    var updates: [String] { log.statements.filter { $0.hasPrefix("UPDATE") } }
}

final class SQLLog: Sendable {
    private let storage = Mutex<[String]>([])
    var statements: [String] { storage.withLock { $0 } }
    func append(_ sql: String) { storage.withLock { $0.append(sql) } }
    func clear() { storage.withLock { $0.removeAll() } }
}
