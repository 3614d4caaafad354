import Logging

// The index a live query's order needs: without one, placing a changed row in the result (and
// making a page of it again) reads the whole table.

extension Store {
    /// Makes sure an index serves ordering `table` by `column`, as a live query ordered by it
    /// needs: the look-ups that place a changed row in the result (`_IncrementalQuery`) and a
    /// page's query walk the index a few steps; without it each of them reads the whole table
    /// (89 ms at 1,000,000 rows, for one changed row). When no index serves the order (the
    /// ordered query's plan sorts in a temporary B-tree), it is made:
    /// `CREATE INDEX tether_Invoice_customer_order ON Invoice(customer)`, with the column's own
    /// collation, so it orders as the query does.
    ///
    /// Tried once per column and store, without waiting for the write lock. One that cannot be
    /// made (a read-only file, the write lock held by another program) is logged, and the query
    /// works without it, slower.
    func ensureOrderIndex(_ table: _Table, column: String) {
        let key = table.name + "\u{0}" + column
        guard state.orderIndexes.insert(key).inserted, !file.readOnlyOnPurpose else { return }
        let quotedTable = table.quotedName, quotedColumn = Store.dialect.quote(column)
        let name = Store.dialect.quote("tether_\(table.name)_\(column)_order")
        let file = self.file
        do {
            try writer.sync { connection in
                // A read first: EXPLAIN runs no transaction, so it would plan with the schema this
                // connection read last, without an index another program made since.
                _ = try connection.rows("SELECT count(*) FROM sqlite_master")
                let plan = try connection.rows("EXPLAIN QUERY PLAN SELECT id FROM \(quotedTable) ORDER BY \(quotedColumn), id")
                let sorts = plan.contains { row in
                    row.values.contains { if case .text(let detail) = $0 { detail.contains("TEMP B-TREE") } else { false } }
                }
                guard sorts else { return }
                // Not worth waiting for: with the write lock held elsewhere, the query goes on
                // without the index at once (and the busy timeout is the connection's again).
                let timeout = try connection.scalar("PRAGMA busy_timeout", as: Int.self) ?? 0
                try connection.execute("PRAGMA busy_timeout = 0")
                defer { try? connection.execute("PRAGMA busy_timeout = \(timeout)") }
                try file.write(connection) {
                    try connection.execute("CREATE INDEX IF NOT EXISTS \(name) ON \(quotedTable)(\(quotedColumn))")
                }
            }
        } catch {
            TetherLogger.logger(TetherLogger.storeLabel).warning(
                "no index for the live query ordered by \(table.name).\(column): \(StoreError.wrap(error)); placing a changed row reads the whole table")
        }
    }
}
