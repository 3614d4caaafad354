// A live count: how many rows meet a condition, counted again only when a look at the change
// log finds a change that can alter it.

extension Store {
    /// The count of rows meeting `condition`, now and after every committed change that can
    /// alter it (made here, by another connection or by another process), when it changed.
    ///
    /// It is counted again once per look at the change log, not once per changed row: a
    /// commit of a thousand rows costs one count. Which changes count is decided as for a live
    /// query: a change to the model's table, or to another table the condition reads (a
    /// `related` condition reads the related table: renaming a customer can change how many
    /// invoices meet `.related(\.customer, .contains(\.name, "Ada"))`). Without a condition,
    /// only inserted and deleted rows can change the count, and updates are not counted again.
    ///
    /// ```swift
    /// store.observeCount(Invoice.self, where: .isNil(\.paidOn)).sink(next: { badge = $0 })
    /// ```
    ///
    /// Subscribe on the store's thread; the counts arrive there. It fails if the count cannot
    /// be read, and completes when the store is closed.
    public func observeCount<M: PersistentModel>(
        _ type: M.Type, where condition: Condition<M> = .always(true)
    ) -> Signal<Int, StoreError> {
        let box = self.box
        return Signal<Int, StoreError> { observer in
            guard let store = box.store else {
                observer.sendCompleted()
                return nil
            }
            return store.startLiveCount(type, condition, observer: observer)
        }
    }

    private func startLiveCount<M: PersistentModel>(
        _ type: M.Type, _ condition: Condition<M>, observer: Observer<Int, StoreError>
    ) -> (any Disposable)? {
        let id: Int
        let count: Int
        let stamp: UInt64
        do {
            try checkOpen()
            let table = try table(for: type)
            let (whereSQL, arguments) = try table.render(condition)
            let sql = "SELECT count(*) FROM \(table.quotedName)\(Store.whereClause(whereSQL))"
            // Without a condition an update changes nothing (`.always(false)` counts 0 always).
            let everyRow = if case .constant = condition.node { true } else { false }
            let inbox = self.inbox
            (id, (count, stamp)) = try registerLiveQuery(idSQL: sql, arguments: arguments, insertsAndDeletesOnly: everyRow) {
                try writer.sync { connection in
                    let statement = try connection.cachedStatement(sql)
                    defer { statement.reset() }
                    try statement.bind(arguments)
                    let stamp = inbox.stamp().stamp
                    return (try statement.step() ? try statement.column(0, as: Int.self) : 0, stamp)
                }
            }
        } catch {
            observer.sendError(StoreError.wrap(error))
            return nil
        }
        observer.sendNext(count)
        return keepLiveQuery(_LiveCount(observer: observer, count: count, stamp: stamp), id: id)
    }
}

/// A live count, as the store keeps it (on its thread): its query's "ids" are one count.
final class _LiveCount: _AnyLiveQuery {
    let observer: Observer<Int, StoreError>
    /// The first count's read: looks stamped before it saw an older state, already counted.
    let stamp: UInt64
    private var count: Int

    init(observer: Observer<Int, StoreError>, count: Int, stamp: UInt64) {
        self.observer = observer
        self.count = count
        self.stamp = stamp
    }

    func update(_ change: _QueryChange, entries: [_LogEntry], resync: Bool, stamp: UInt64, store: Store) {
        guard stamp > self.stamp, case .ids(let values) = change else { return }
        let new = Int(values.first ?? 0)
        guard new != count else { return }
        count = new
        observer.sendNext(new)
    }

    func fail(_ error: StoreError) { observer.sendError(error) }

    func end() { observer.sendCompleted() }
}
