import Dispatch
import Synchronization
import Testing
import TetherSQLite

@Suite("DatabaseQueue")
struct DatabaseQueueTests {
    private func makeQueue(_ db: TestDatabase) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: db.path)
        try queue.sync { try $0.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, thread INTEGER NOT NULL)") }
        return queue
    }

    @Test func syncFromManyThreadsIsSerialized() throws {
        let db = try TestDatabase()
        let queue = try makeQueue(db)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<50 {
                do {
                    try queue.sync { connection in
                        try connection.inTransaction {
                            try connection.execute("INSERT INTO t (thread) VALUES (?)", [.integer(Int64(thread))])
                            // The row just inserted is this closure's: no other closure ran in between.
                            let last = try connection.scalar("SELECT thread FROM t WHERE id = ?", [.integer(connection.lastInsertRowID)], as: Int.self)
                            if last != thread { throw SQLiteError(code: .misuse, message: "interleaved") }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try queue.sync { try $0.scalar("SELECT count(*) FROM t", as: Int.self) } == 400)
        #expect(try queue.sync { try $0.rows("SELECT thread, count(*) FROM t GROUP BY thread").map { $0[1] } } == Array(repeating: 50, count: 8))
    }

    @Test func asyncClosuresRunInOrderBeforeALaterSync() throws {
        let db = try TestDatabase()
        let queue = try makeQueue(db)
        for index in 0..<100 {
            queue.async { connection in
                try? connection.execute("INSERT INTO t (id, thread) VALUES (?, 0)", [.integer(Int64(index))])
            }
        }
        let ids = try queue.sync { try $0.rows("SELECT id FROM t ORDER BY rowid").map { $0[0] } }
        #expect(ids == (0..<100).map { .integer(Int64($0)) })
    }

    @Test func performSuspendsUntilTheClosureRan() async throws {
        let db = try TestDatabase()
        let queue = try makeQueue(db)
        try await queue.perform { try $0.execute("INSERT INTO t (thread) VALUES (1)") }
        let count = try await queue.perform { try $0.scalar("SELECT count(*) FROM t", as: Int.self) }
        #expect(count == 1)
        await #expect(throws: SQLiteError.self) {
            try await queue.perform { try $0.execute("INSERT INTO nowhere VALUES (1)") }
        }
    }

    @Test func errorsPropagateFromSync() throws {
        let db = try TestDatabase()
        let queue = try makeQueue(db)
        let error = #expect(throws: SQLiteError.self) { try queue.sync { try $0.execute("SELEKT") } }
        #expect(error?.sql == "SELEKT")
        #expect(queue.path == db.path)
    }

    @Test func openingFailsWithATypedError() throws {
        let db = try TestDatabase()
        #expect(throws: SQLiteError.self) {
            try DatabaseQueue(path: db.directory + "/missing/dir/db.sqlite")
        }
    }
}
