import Foundation
import Testing
import TetherSQLite   // the public API only

/// On a `TestScheduler`, a turn's commit runs on the writer queue and its outcome comes back
/// later: `settle()` waits for it and applies it, so what a test sees after `advance()` does
/// not depend on timing.
@Suite("Letting the store settle")
struct SettlingTests {
    @Test func afterATurnAndSettleTheCommitIsDoneAndCounted() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let bill = try store.insert(Bill())
        try store.flush()
        for number in 1...20 {
            bill.number = number
            fixture.scheduler.advance()
            store.settle()
            #expect(store.pendingRowCount == 0, "round \(number)")
            #expect(try fixture.another().rows("SELECT number FROM Bill").first?.values == [.integer(Int64(number))])
        }
    }

    @Test func aFailedCommitIsOnErrorsAfterSettleAndStillPending() throws {
        let fixture = try StoreFixture(busyTimeout: .milliseconds(20))
        let store = fixture.store!
        let bill = try store.insert(Bill())
        try store.flush()
        let (errors, observing) = record(store.errors)
        let other = try fixture.another()
        try other.execute("BEGIN IMMEDIATE")
        bill.number = 7
        fixture.scheduler.advance()
        store.settle()
        #expect(errors.values.count == 1, "the busy commit's error, already: \(errors.values)")
        #expect(store.pendingRowCount == 1, "kept for a retry")
        try other.execute("COMMIT")
        try store.flush()
        #expect(store.pendingRowCount == 0)
        observing.dispose()
    }

    @Test func settlingAClosedOrIdleStoreDoesNothing() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        store.settle()
        #expect(store.pendingRowCount == 0)
        try store.close()
        store.settle()
    }
}
