import Dispatch
import Synchronization
import Testing
import TetherSQLite
@testable import InvoiceKit

@MainActor
@Suite("InvoiceKit: the store's side (list, add, delete, examples)")
struct InvoiceStoreTests {
    /// The numbers of each list the signal sent, and its terminal event.
    final class Lists: Sendable {
        private let storage = Mutex<(lists: [[Int]], failure: String?)>(([], nil))
        var all: [[Int]] { storage.withLock { $0.lists } }
        var failure: String? { storage.withLock { $0.failure } }
        func record(_ numbers: [Int]) { storage.withLock { $0.lists.append(numbers) } }
        func fail(_ error: StoreError) { storage.withLock { $0.failure = "\(error)" } }
    }

    @Test func aNewDatabaseGetsTheExamplesOnce() throws {
        let database = try TemporaryDatabase()
        do {
            let store = try Store(path: database.path, scheduler: TestScheduler())
            #expect(try seedIfNew(store) == true)
            #expect(try seedIfNew(store) == false)
            let invoices = try store.fetch(Invoice.self, orderBy: \.number)
            #expect(invoices.map(\.customer) == ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper"])
            try deleteInvoice(invoices[0], from: store)
            try deleteInvoice(invoices[1], from: store)
            try deleteInvoice(invoices[2], from: store)
        }
        // Reopened, empty: the user deleted them; no examples again.
        let store = try Store(path: database.path, scheduler: TestScheduler())
        #expect(try seedIfNew(store) == false)
        #expect(try store.fetch(Invoice.self).isEmpty)
        #expect(try database.rows("SELECT customer, note FROM Invoice").isEmpty)
    }

    @Test func examplesAreStoredWithTheirText() throws {
        let database = try TemporaryDatabase()
        let store = try Store(path: database.path, scheduler: TestScheduler())
        try seedIfNew(store)
        #expect(try database.rows("SELECT number, customer, note, quantity, unitPrice, discount, tax FROM Invoice WHERE number = 2")
            == [[2, "张伟 (Zhang Wei)", "办公用品：打印纸 20 箱", 20, 32.5, nil, 13.0]])
    }

    @Test func theListSendsTheCurrentInvoicesThenEachChange() throws {
        let database = try TemporaryDatabase()
        let store = try Store(path: database.path, scheduler: TestScheduler())
        try seedIfNew(store)
        let lists = Lists()
        let subscription = invoiceList(store).subscribe(
            next: { invoices in lists.record(invoices.map(\.number)) },
            error: { lists.fail($0) }
        )
        let added = try addInvoice(to: store)
        #expect(added.number == 4)
        #expect(added.persistentID != nil)
        let second = try #require(try store.fetch(Invoice.self, where: "number = 2").first)
        try deleteInvoice(second, from: store)
        let fifth = try addInvoice(to: store)
        #expect(fifth.number == 5, "one more than the largest number")
        #expect(lists.all == [[1, 2, 3], [1, 2, 3, 4], [1, 3, 4], [1, 3, 4, 5]])
        #expect(lists.failure == nil)
        subscription.dispose()
        try addInvoice(to: store)
        #expect(lists.all.count == 4, "nothing after disposal")
    }

    @Test func theListsInvoicesAreTheStoresLiveModels() throws {
        let database = try TemporaryDatabase()
        let store = try Store(path: database.path, scheduler: TestScheduler())
        try seedIfNew(store)
        let first = try #require(try store.fetch(Invoice.self, where: "number = 1").first)
        let seen = Mutex<Bool>(false)
        let subscription = invoiceList(store).subscribe(with: first, next: { first, invoices in
            seen.withLock { $0 = invoices.first === first }
        })
        #expect(seen.withLock { $0 }, "the same object: editing it in the form edits the stored row")
        subscription.dispose()
    }

    @Test func addingToALockedDatabaseIsAnError() throws {
        let database = try TemporaryDatabase()
        do {
            let store = try Store(path: database.path, scheduler: TestScheduler())
            try seedIfNew(store)
        }
        // A database locked by another connection's write transaction: the insert waits for
        // the busy timeout, then fails with SQLITE_BUSY.
        let locker = try Connection(path: database.path)
        try locker.execute("BEGIN IMMEDIATE")
        let store = try Store(path: database.path, scheduler: TestScheduler(), busyTimeout: .milliseconds(10))
        let error = #expect(throws: StoreError.self) { try addInvoice(to: store) }
        #expect(error?.sqliteError?.isBusy == true)
        try locker.execute("ROLLBACK")
    }

    @Test func theLargestNumberGivesAClearErrorAndAddsNothing() throws {
        let database = try TemporaryDatabase()
        let store = try Store(path: database.path, scheduler: TestScheduler())
        try seedIfNew(store)
        let last = try #require(try store.fetch(Invoice.self, where: "number = 3").first)
        last.number = Int.max    // as another program may write it
        try store.flush()
        #expect(throws: InvoiceNumberError.exhausted(largest: Int.max)) { try addInvoice(to: store) }
        #expect(try store.fetch(Invoice.self).count == 3)
    }

    @Test func twoCopiesAddingAtTheSameMomentNeverShareANumber() throws {
        let database = try TemporaryDatabase()
        do {
            let store = try Store(path: database.path, scheduler: TestScheduler())
            try seedIfNew(store)
        }
        let path = database.path
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let store = try Store(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
                for _ in 0..<40 { try addInvoice(to: store) }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let numbers = try database.rows("SELECT number FROM Invoice ORDER BY number").map { $0[0] }
        #expect(numbers.count == 83)
        #expect(Set(numbers.map { "\($0)" }).count == 83, "every number once")
    }
}
