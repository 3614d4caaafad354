import Dispatch
import Foundation
import Synchronization

// Read-modify-write without lost updates: a closure runs on the store's thread while the store's
// connection holds the database's write lock (Sources/TetherSQLite/TetherSQLite.docc/
// Persistence.md, "Read-modify-write").

extension Store {
    /// Changes `model` starting from its row's current committed values, inside one write
    /// transaction: no other writer (another store, another process, the sqlite3 shell) can
    /// commit between the read and the write, so no update is lost. Returns what `body` returns.
    ///
    /// Use it when a new value is computed from the old one and other programs may change the
    /// same field at the same time: counters, stock, balances. A plain assignment
    /// (`invoice.stock -= 1`) is written through as the last writer's value, which is right for
    /// edits (the last edit wins) and wrong for increments (two processes each decrementing
    /// from 5 both write 4).
    ///
    /// ```swift
    /// try store.update(item) { $0.stock -= 1 }     // two processes doing this lose nothing
    /// ```
    ///
    /// How it runs: the model's pending changes are committed first (`flush()`); then the
    /// store takes the write lock (waiting up to the busy timeout), reads the row, sets the
    /// model's persisted properties to the row's values, runs `body` on this thread, and writes
    /// the columns `body` changed, in the same transaction. Observers see the result once, when
    /// `update` returns (a model `transaction`), and the change is not written again at the end
    /// of the turn. If `body` throws, or the write fails, nothing is written: the model is left
    /// with the row's committed values and the error is rethrown. A row deleted meanwhile throws
    /// `StoreError.deleted`.
    ///
    /// `body` runs while other writers wait: keep it short, change only this model's persisted
    /// properties, and do not call the store from it (that stops the program with a message:
    /// the store's connection is busy with this transaction). Do not call `update` inside a
    /// model `transaction { }`: its observers would be told after `update` returned, and the
    /// change written again.
    @discardableResult
    public func update<M: PersistentModel, R>(_ model: M, _ body: (M) throws -> R) throws -> R {
        try update(model) { model, _ in try body(model) }
    }

    /// `update(_:_:)`, with the store's connection lent to `body` for reads in the same
    /// transaction (for example the largest number in use, to give the model the next one).
    ///
    /// ```swift
    /// try store.update(invoice) { invoice, db in
    ///     let last = try db.scalar("SELECT max(number) FROM Invoice", as: Int.self) ?? 0
    ///     invoice.number = last + 1
    /// }
    /// ```
    ///
    /// `db` may be used only inside `body`. Rows that `body` writes through it are committed
    /// with the update and reach live models as changes made elsewhere would.
    @discardableResult
    public func update<M: PersistentModel, R>(_ model: M, _ body: (M, Connection) throws -> R) throws -> R {
        precondition(!state.inWriteLock, Self.calledInWriteLock("update"))
        try checkWritable()
        let table = try table(for: M.self)
        guard let id = model.persistentID else { throw StoreError.notStored(model: M._$schema.name) }
        try flush()
        let key = _RowKey(table: table.name, id: id)
        let handoff = _WriteLockHandoff<([SQLiteValue]?, _LentConnection), [_Update]>()
        let (tracker, inbox, sql, count) = (self.tracker, self.inbox, table.selectByIDSQL, table.definition.columns.count)
        let file = self.file
        writer.async { connection in
            do {
                let (_, changes) = try file.write(connection) {
                    try tracker.write(connection, { () throws -> [_Update] in
                        let select = try connection.cachedStatement(sql)
                        try select.bind([.integer(id)])
                        var values: [SQLiteValue]?
                        if try select.step() { values = try (1...count).map { position throws(SQLiteError) in try select.value(at: position) } }
                        select.reset()
                        handoff.ready(.success((values, _LentConnection(connection))))
                        guard let updates = handoff.decision() else { throw _RolledBack() }
                        for update in updates { try connection.execute(update.sql, update.arguments) }
                        return updates
                    }, rows: { $0.map { ($0.key.table, $0.key.id, StoreChange.Kind.update) } })
                }
                handoff.finish(.success(inbox.push(.changes(changes))))
            } catch is _RolledBack {
                handoff.finish(.success(nil))
            } catch {
                handoff.fail(StoreError.wrap(error))
            }
        }
        let (row, lent) = try handoff.readiness().get()
        guard let row else {
            handoff.decide(nil)
            _ = handoff.outcome()
            markDeleted(model, key: key, table: table)
            drain()
            throw StoreError.deleted(model: table.definition.modelName, id: id)
        }
        let object = ObjectIdentifier(model)
        let columns = table.definition.columns
        var result: Result<R, any Error>!
        var outcome: Result<UInt64?, StoreError>!
        state.inWriteLock = true
        transaction {
            defer { state.inWriteLock = false }
            // The row's committed values (not written back: they are the row's).
            set(model, to: row, table: table)
            let before = columns.map { try? table.encode(property: $0.propertyIndex, of: model) }
            result = Result { try body(model, lent.connection) }
            var updates: [_Update] = []
            if case .success = result {
                do {
                    var changed: [(property: Int, value: SQLiteValue)] = []
                    for (position, column) in columns.enumerated() {
                        let value = try table.encode(property: column.propertyIndex, of: model)
                        if value != before[position] { changed.append((column.propertyIndex, value)) }
                    }
                    if !changed.isEmpty {
                        // The UPDATE sets the columns in the order of their properties' indexes.
                        changed.sort { $0.property < $1.property }
                        let sql = table.updateSQL(properties: _ColumnSet(changed.map(\.property)))
                        updates.append(_Update(key: key, sql: sql, arguments: changed.map(\.value) + [.integer(id)]))
                    }
                } catch {
                    result = .failure(StoreError.wrap(error))
                }
            }
            let succeeded = if case .success = result { true } else { false }
            handoff.decide(succeeded ? updates : nil)
            outcome = handoff.outcome()
            let failed = if case .failure = outcome { true } else { false }
            if !succeeded || failed {
                // Nothing was written: back to the row's committed values.
                set(model, to: row, table: table)
            }
            // Every change made in the transaction is the row's now (committed, or the row's own
            // values): the notifications at its end are not written back.
            for column in columns { state.suppressed.insert(_Suppressed(object: object, column: column.propertyIndex)) }
        }
        for column in columns { state.suppressed.remove(_Suppressed(object: object, column: column.propertyIndex)) }
        if case .success(let stamp?) = outcome { protect(CollectionOfOne(key), at: stamp) }
        drain()
        if case .failure(let error) = outcome {
            errorSubject.sendNext(error)
            throw error
        }
        return try result.get()
    }

    /// Sets the persisted properties of `model` that differ from `values` (a row of `table`),
    /// marked as not to be written back. A value of the wrong type is reported on `errors`.
    private func set(_ model: AnyObject, to values: [SQLiteValue], table: _Table) {
        let object = ObjectIdentifier(model)
        for (position, column) in table.definition.columns.enumerated() {
            if let current = try? table.encode(property: column.propertyIndex, of: model), current == values[position] { continue }
            state.suppressed.insert(_Suppressed(object: object, column: column.propertyIndex))
            do {
                try table.decode(values[position], position: position, into: model)
            } catch {
                state.suppressed.remove(_Suppressed(object: object, column: column.propertyIndex))
                errorSubject.sendNext(StoreError.wrap(error))
            }
        }
    }

    /// The message for a store call made while `update`'s closure holds the write lock.
    static func calledInWriteLock(_ call: String) -> String {
        "Store.\(call) was called inside the closure of Store.update, which runs while the store's connection holds the database's write lock: change the model there, and call the store after update returns"
    }
}

/// Thrown inside the write transaction to roll it back when the store's thread decided to write
/// nothing.
struct _RolledBack: Error {}

/// The store's connection, lent to the store's thread while the writer queue waits.
///
/// Why `@unchecked Sendable` is safe: a `_LentConnection` is made by a writer-queue work item of
/// `Store.update` just before it hands it over (`_WriteLockHandoff.ready`) and then blocks in
/// `decision()` until the store's thread has finished with it (`decide`): the connection is used
/// by one thread at a time, and the handoff's semaphores order the uses (each `signal` happens
/// before the `wait` it ends). The store's thread uses it only inside the `body` closure, which
/// may not keep it.
struct _LentConnection: @unchecked Sendable {
    let connection: Connection
    init(_ connection: Connection) { self.connection = connection }
}

/// The three steps of a write transaction that waits for the store's thread: the writer queue
/// says it is ready (or failed), the store's thread decides what to write (nil: nothing, roll
/// back), the writer queue reports the outcome.
final class _WriteLockHandoff<Ready: Sendable, Decision: Sendable>: Sendable {
    private struct State {
        var ready: Result<Ready, StoreError>?
        var decision: Decision??
        var outcome: Result<UInt64?, StoreError>?
    }

    private let state = Mutex(State())
    private let readySignal = DispatchSemaphore(value: 0)
    private let decisionSignal = DispatchSemaphore(value: 0)
    private let outcomeSignal = DispatchSemaphore(value: 0)

    /// On the writer queue, inside the transaction.
    func ready(_ ready: Result<Ready, StoreError>) {
        state.withLock { $0.ready = ready }
        readySignal.signal()
    }

    /// On the writer queue: waits for the store's thread's decision.
    func decision() -> Decision? {
        decisionSignal.wait()
        return state.withLock { $0.decision ?? nil }
    }

    /// On the writer queue, after the transaction: committed (the stamp of the event it
    /// pushed), or rolled back (nil).
    func finish(_ outcome: Result<UInt64?, StoreError>) {
        state.withLock { $0.outcome = outcome }
        outcomeSignal.signal()
    }

    /// On the writer queue: the transaction failed, before or after it was ready.
    func fail(_ error: StoreError) {
        let wasReady = state.withLock { $0.ready != nil }
        if wasReady {
            finish(.failure(error))
        } else {
            ready(.failure(error))
        }
    }

    /// On the store's thread: waits until the writer holds the lock (or failed to take it).
    func readiness() -> Result<Ready, StoreError> {
        readySignal.wait()
        return state.withLock { $0.ready! }
    }

    /// On the store's thread.
    func decide(_ decision: Decision?) {
        state.withLock { $0.decision = .some(decision) }
        decisionSignal.signal()
    }

    /// On the store's thread: waits for the transaction's end.
    func outcome() -> Result<UInt64?, StoreError> {
        outcomeSignal.wait()
        return state.withLock { $0.outcome! }
    }
}
