// The GRDB 7 peers of P4 and P6. This file alone imports GRDB (its `DatabaseQueue`,
// `Statement`... would clash with Tether's).
import Foundation
import GRDB
import Synchronization

struct GRDBLatencyRow: Codable, FetchableRecord {
    var id: Int64
    var title: String
    var points: Int
}

func grdbPool(_ path: String) -> DatabasePool {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    return try! DatabasePool(path: path, configuration: configuration)
}

/// P4 with GRDB: `ValueObservation` of row 1's points, a write through the same pool, the
/// callback on the main queue.
func grdbP4(iterations: Int) -> [UInt64] {
    let path = makeRowFile("grdbp4")
    let pool = grdbPool(path)
    let arrivals = Arrivals()
    let observation = ValueObservation.tracking { db in
        try Int.fetchOne(db, sql: "SELECT points FROM LatencyRow WHERE id = 1") ?? 0
    }
    let cancellable = observation.start(
        in: pool,
        scheduling: .async(onQueue: .main),
        onError: { preconditionFailure("GRDB P4: \($0)") },
        onChange: { arrivals.arrived($0) })
    _ = arrivals.wait(for: 0)
    var samples: [UInt64] = []
    for i in 1...iterations {
        try! pool.write { db in try db.execute(sql: "UPDATE LatencyRow SET points = ? WHERE id = 1", arguments: [i]) }
        let committed = monotonicNanoseconds()
        guard let fired = arrivals.wait(for: i) else { preconditionFailure("GRDB P4: value \(i) never arrived") }
        samples.append(fired > committed ? fired - committed : 0)   // the signal can beat the return from COMMIT
        usleep(UInt32.random(in: 500...1_500))
    }
    cancellable.cancel()
    return samples
}

/// P6 with GRDB: `ValueObservation` of all 10,000 records (re-fetched after each change), one
/// row changed through the same pool -> the callback on the main queue.
func grdbP6(iterations: Int) -> [UInt64] {
    let path = makeRowFile("grdbp6", rows: p6Rows)
    let pool = grdbPool(path)
    let arrivals = Arrivals()
    let observation = ValueObservation.tracking { db in
        try GRDBLatencyRow.fetchAll(db, sql: "SELECT id, title, points FROM LatencyRow ORDER BY title, id")
    }
    let cancellable = observation.start(
        in: pool,
        scheduling: .async(onQueue: .main),
        onError: { preconditionFailure("GRDB P6: \($0)") },
        onChange: { rows in
            // Write i sets some row's points to i: the result carrying it has max(points) == i.
            precondition(rows.count == p6Rows)
            arrivals.arrived(rows.lazy.map(\.points).max() ?? 0)
        })
    _ = arrivals.wait(for: 0)
    var samples: [UInt64] = []
    for i in 1...iterations {
        // From the start of the write: GRDB starts fetching the new value before `write` returns.
        let started = monotonicNanoseconds()
        try! pool.write { db in
            try db.execute(sql: "UPDATE LatencyRow SET points = ? WHERE id = ?", arguments: [i, i % p6Rows + 1])
        }
        guard let fired = arrivals.wait(for: i) else { preconditionFailure("GRDB P6: result \(i) never arrived") }
        samples.append(fired - started)
    }
    cancellable.cancel()
    return samples
}
