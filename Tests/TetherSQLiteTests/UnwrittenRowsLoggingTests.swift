import Foundation
import InMemoryLogging
import Logging
import Synchronization
import Testing
@testable import TetherSQLite

@Suite("Store: changes that could not be written are logged")
struct UnwrittenRowsLoggingTests {
    @Test func aStoreFreedWhileItsFlushFailsLogsTheUnwrittenRowsAsAnError() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(20))
        let path = fixture.path
        let ticket = try fixture.store.insert(Ticket())
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        defer { try? other.execute("ROLLBACK") }
        ticket.points = 5

        let handler = InMemoryLogHandler()
        let labels = Mutex<[String]>([])
        TetherLogger.$handlerFactory.withValue({ label in
            labels.withLock { $0.append(label) }
            return handler
        }) {
            fixture.close()                               // the flush fails: SQLITE_BUSY
        }

        #expect(labels.withLock { $0 } == ["tether.store"])
        let entries = handler.entries
        #expect(entries.map(\.level) == [.error])
        let message = entries.first?.message.description ?? ""
        #expect(message.hasPrefix("when the store was freed, 1 changed row (Ticket 1: points) could not be written to \(path): "), "\(message)")
        #expect(message.contains("SQLITE_BUSY"), "\(message)")
    }

    @Test func aStoreFreedWithEverythingWrittenLogsNothing() throws {
        let fixture = try StoreFixture()
        let ticket = try fixture.store.insert(Ticket())
        ticket.points = 5
        let handler = InMemoryLogHandler()
        TetherLogger.$handlerFactory.withValue({ _ in handler }) {
            fixture.close()
        }
        #expect(handler.entries.isEmpty)
        let reader = try Connection(path: fixture.path, options: .init(readOnly: true))
        #expect(try reader.scalar("SELECT points FROM Ticket", as: Int.self) == 5)
    }
}
