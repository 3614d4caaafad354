import Foundation
import Testing
@testable import TetherSQLite

/// Inserting models reads their values while the rows are written (on the writer queue, while
/// the caller waits): a value that cannot be stored, in any row, fails the whole insert with an
/// error naming the column, and nothing of it is written or logged.
@Suite("Store: a value that cannot be stored fails the whole insert")
struct InsertEncodingTests {
    private func meters(_ count: Int) -> [Meter] {
        (0..<count).map { i in
            let meter = Meter()
            meter.name = "m\(i)"
            meter.reading = UInt64(i)
            return meter
        }
    }

    @Test(arguments: [3, _ChangeTracker.bulkInsertThreshold * 2])
    func aValueOutOfRangeInTheMiddleInsertsNothing(count: Int) throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let kept = try store.insert(Meter())                           // the table, and one row
        let other = try fixture.another()
        let logged = try other.scalar("SELECT max(seq) FROM tether_changes", as: Int64?.self).flatMap { $0 }
        let (feed, _) = record(store.committedChanges)

        let batch = meters(count)
        batch[count / 2].reading = UInt64(Int64.max) + 1
        let error = #expect(throws: StoreError.self) { try store.insert(contentsOf: batch) }
        let description = error.map { "\($0)" } ?? ""
        #expect(description.contains("reading"), "names the column: \(description)")
        #expect(description.contains("\(UInt64(Int64.max) + 1)"), "shows the value: \(description)")
        #expect(batch.allSatisfy { $0.persistentID == nil })
        #expect(try other.scalar("SELECT count(*) FROM Meter", as: Int.self) == 1, "nothing inserted")
        #expect(try other.scalar("SELECT max(seq) FROM tether_changes", as: Int64?.self).flatMap { $0 } == logged,
                "nothing logged")
        #expect(store.writer.sync { $0.triggersEnabled }, "the triggers are on again")
        #expect(feed.events.isEmpty)

        // The models keep their values; fixed, the same models insert.
        #expect(batch[count / 2].reading == UInt64(Int64.max) + 1)
        batch[count / 2].reading = 7
        try store.insert(contentsOf: batch)
        #expect(batch.allSatisfy { $0.persistentID != nil })
        let rows = try other.rows("SELECT name, reading FROM Meter WHERE id <> ? ORDER BY id", [.integer(kept.persistentID!)])
        let expected: [[SQLiteValue]] = batch.map { [.text($0.name), .integer(Int64($0.reading))] }
        #expect(rows.map { $0.values } == expected)
    }
}
