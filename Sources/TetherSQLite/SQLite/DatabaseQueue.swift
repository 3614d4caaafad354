import Dispatch
import TetherSignals

/// A connection that can be used from any thread: it owns one ``Connection`` and runs your
/// closures on its own serial dispatch queue, one at a time.
///
/// ```swift
/// let database = try DatabaseQueue(path: "invoices.sqlite")
/// let count = try database.sync { connection in
///     try connection.scalar("SELECT count(*) FROM Invoice", as: Int.self) ?? 0
/// }
/// database.async { connection in
///     try? connection.execute("DELETE FROM Invoice WHERE quantity = 0", [])
/// }
/// let names = try await database.perform { connection in
///     try connection.rows("SELECT customer FROM Invoice").map { $0[0] }
/// }
/// ```
///
/// The closures are `@Sendable` and what they return is `Sendable`, so the connection (and its
/// statements, which are not `Sendable`) cannot escape the queue: the compiler rejects storing
/// it in a captured variable or returning it. Values cross in and out as `Sendable` copies.
///
/// Calling ``sync(_:)`` from one of this queue's own closures would deadlock; it stops the
/// program with a message instead (`dispatchPrecondition`).
public final class DatabaseQueue: Sendable {
    /// The serial queue every closure runs on.
    private let queue: DispatchQueue
    /// The connection, touched only from closures running on `queue`. The lock orders those
    /// accesses (it is never contended: the queue is serial) and is what lets this class be
    /// `Sendable` without an unchecked conformance.
    private let connection: _Locked<Connection>
    /// The database path.
    public let path: String

    /// Opens a connection (see ``Connection/init(path:options:)``) and a serial queue for it.
    ///
    /// ```swift
    /// let database = try DatabaseQueue(path: path, options: .init(busyTimeout: .seconds(1)))
    /// ```
    public init(path: String, options: Connection.Options = .init(), label: String = "Tether.DatabaseQueue") throws(SQLiteError) {
        self.queue = DispatchQueue(label: label)
        self.connection = _Locked(try Connection(path: path, options: options))
        self.path = path
    }

    /// Closes the connection, on the queue, after the closures already submitted have run (see
    /// ``Connection``'s `close()`: SQLite checkpoints and removes the `-wal` and `-shm` files when
    /// it was the database's last connection). The closures that run afterwards get the closed
    /// connection, whose every call fails with `SQLITE_MISUSE`. Closing again does nothing.
    func close() {
        dispatchPrecondition(condition: .notOnQueue(queue))
        queue.sync { connection.withLock { $0.close() } }
    }

    /// Runs `body` with the connection on the queue and waits for its result.
    ///
    /// ```swift
    /// let ids = try database.sync { try $0.rows("SELECT id FROM Invoice").map(\.values) }
    /// ```
    public func sync<Result: Sendable>(_ body: @Sendable (Connection) throws -> Result) rethrows -> Result {
        dispatchPrecondition(condition: .notOnQueue(queue))
        return try queue.sync { try connection.withLock { try body($0) } }
    }

    /// Runs `body` with the connection on the queue later, and returns at once. Closures run in
    /// the order they were submitted.
    ///
    /// ```swift
    /// database.async { connection in try? connection.execute("VACUUM") }
    /// ```
    public func async(_ body: @escaping @Sendable (Connection) -> Void) {
        queue.async { [connection] in connection.withLock { body($0) } }
    }

    /// Runs `body` with the connection on the queue, suspending the calling task until it has
    /// run (the task's thread is not blocked).
    ///
    /// ```swift
    /// let count = try await database.perform { try $0.scalar("SELECT count(*) FROM Invoice", as: Int.self) }
    /// ```
    public func perform<Result: Sendable>(_ body: @escaping @Sendable (Connection) throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [connection] in
                continuation.resume(with: Swift.Result { try connection.withLock { try body($0) } })
            }
        }
    }
}
