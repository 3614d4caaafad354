@testable import TetherSQLite

// The change log as the tests read it.

/// The log's entries after `seq`, each as [seq, tbl, row, kind, last].
func entries(_ connection: Connection, after seq: Int64 = 0) throws -> [[SQLiteValue]] {
    try connection.rows("SELECT seq, tbl, row, kind, last FROM tether_changes WHERE seq > ? ORDER BY seq", [.integer(seq)])
        .map(\.values)
}

func highWater(_ connection: Connection) throws -> Int64 {
    try connection.scalar("SELECT max(seq) FROM tether_changes", as: Int64?.self).flatMap { $0 } ?? 0
}

/// The statements run by triggers in a traced SQL log (`-- TRIGGER name`, once per row).
func triggerRuns(_ log: SQLLog, _ name: String) -> Int {
    log.statements.filter { $0 == "-- TRIGGER \(name)" }.count
}
