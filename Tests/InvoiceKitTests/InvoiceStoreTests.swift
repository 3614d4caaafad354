import Dispatch
import Foundation
import Synchronization
import Testing
import TetherSQLite
@testable import InvoiceKit

/// The file made by the invoice app when each invoice had one quantity and unit price and the
/// customer was text: seven invoices (#1-#3 the examples; #4 "Ada Lovelace" again at 0.125 with
/// 50 % off; #5 no customer, 3 × 1.005; #6 "grace hopper" at 2.675 with 19 % tax; #7 1,000,000 ×
/// 1,000,000,000 with 12.5 % off and 7.25 % tax), and one invoice deleted.
private let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/Fixtures/invoices-before-lines.sqlite"

@MainActor
@Suite("InvoiceKit: the store's side (opening, converting, lists, adding, deleting)")
struct InvoiceStoreTests {
    /// The numbers of each list the signal sent, and its terminal event.
    final class Lists: Sendable {
        private let storage = Mutex<(lists: [[Int]], failure: String?)>(([], nil))
        var all: [[Int]] { storage.withLock { $0.lists } }
        var failure: String? { storage.withLock { $0.failure } }
        func record(_ numbers: [Int]) { storage.withLock { $0.lists.append(numbers) } }
        func fail(_ error: StoreError) { storage.withLock { $0.failure = "\(error)" } }
    }

    // MARK: Opening

    @Test func aNewDatabaseGetsTheExamplesOnce() throws {
        let database = try TemporaryDatabase()
        do {
            let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
            let invoices = try store.fetch(Invoice.self, orderBy: \.number)
            #expect(invoices.map(\.customerName) == ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper"])
            for invoice in invoices { try deleteInvoice(invoice, from: store) }
        }
        // Reopened, empty: the user deleted them; no examples again.
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        #expect(try store.fetch(Invoice.self).isEmpty)
        #expect(try database.rows("SELECT count(*) FROM InvoiceLine") == [[0]], "the lines went with their invoices")
        #expect(try database.rows("SELECT name FROM tether_migrations WHERE name LIKE '00%invoice%' ORDER BY name")
            == [["003_invoice.sql"], ["005_invoice_lines.sql"], ["006_invoice_number_index.sql"]])
    }

    @Test func examplesAreStoredWithTheirCustomersAndLines() throws {
        let database = try TemporaryDatabase()
        _ = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        #expect(try database.rows("""
            SELECT number, name, note, discount, tax FROM Invoice JOIN Customer ON Customer.id = customer_id WHERE number = 2
            """) == [[2, "张伟 (Zhang Wei)", "办公用品", nil, 13.0]])
        #expect(try database.rows("""
            SELECT number, position, text, InvoiceLine.quantity, InvoiceLine.unitPrice FROM InvoiceLine
            JOIN Invoice ON Invoice.id = invoice_id ORDER BY number, position
            """) == [
                [1, 0, "Punched cards, box of 500", 2, 1250.0], [1, 1, "Brass gears", 12, 4.75],
                [2, 0, "打印纸 20 箱", 20, 32.5],
                [3, 0, "Consulting, days", 3, 800.0], [3, 1, "Travel", 1, 212.4],
            ])
    }

    @Test func aFileWrittenBeforeLinesIsConvertedAndNothingIsLost() throws {
        let database = try TemporaryDatabase()
        try FileManager.default.copyItem(atPath: fixture, toPath: database.path)
        let before = try database.rows("SELECT * FROM Invoice ORDER BY id")
        #expect(before.count == 7)
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let invoices = try store.fetch(Invoice.self, orderBy: \.number)
        #expect(invoices.map(\.number) == [1, 2, 3, 4, 5, 6, 7])
        // Each distinct customer text is one customer; the same text is the same customer.
        #expect(try store.fetch(Customer.self).map(\.name) == ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper", "grace hopper"])
        #expect(invoices.map(\.customerName) == [
            "Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper", "Ada Lovelace", "", "grace hopper", "张伟 (Zhang Wei)",
        ])
        #expect(invoices[0].customer === invoices[3].customer)
        #expect(invoices[4].customer == nil)
        // Each invoice has one line with its quantity and its unit price, bit for bit.
        #expect(invoices.map(\.lines.count) == [1, 1, 1, 1, 1, 1, 1])
        #expect(try database.rows("""
            SELECT count(*) FROM Invoice JOIN InvoiceLine ON invoice_id = Invoice.id
            WHERE InvoiceLine.quantity = Invoice.quantity AND InvoiceLine.unitPrice = Invoice.unitPrice
            """) == [[7]])
        #expect(invoices.map { $0.lines[0].text } == before.map { row in
            guard case .text(let note) = row[3] else { return "?" }
            return note
        }, "described by the note, where the single-line form said what was sold")
        #expect(invoices.allSatisfy { $0.lines[0].brokenRules.isEmpty })
        #expect(invoices.map { $0.lines[0].unitPrice.plainText } == ["1250", "32.5", "800", "0.125", "1.005", "2.675", "1000000000"])
        #expect(invoices.map { "\($0.total)" } == [
            "2700.00", "734.50", "2280.00", "0.06", "3.02", "3.19", "938437500000000.00",
        ])
        // The old columns are untouched.
        #expect(try database.rows("SELECT id, number, customer, note, quantity, unitPrice, discount, tax FROM Invoice ORDER BY id") == before)
        // Opening again converts nothing more.
        let again = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        #expect(try again.fetch(InvoiceLine.self).count == 7)
        #expect(try again.fetch(Customer.self).count == 4)
    }

    @Test func twoCopiesOpeningAnOldFileAtOnceConvertItOnce() throws {
        let database = try TemporaryDatabase()
        try FileManager.default.copyItem(atPath: fixture, toPath: database.path)
        let path = database.path
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                _ = try openInvoiceStore(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try database.rows("SELECT count(*) FROM InvoiceLine") == [[7]])
        #expect(try database.rows("SELECT count(*) FROM Customer") == [[4]])
        #expect(try database.rows("SELECT count(*) FROM tether_migrations WHERE name = '003_invoice.sql'") == [[1]])
    }

    @Test func anotherProgramsInvoiceTableIsRefusedAndLeftAlone() throws {
        let database = try TemporaryDatabase()
        do {
            let connection = try Connection(path: database.path)
            try connection.execute("CREATE TABLE Invoice (id INTEGER PRIMARY KEY, amount REAL); INSERT INTO Invoice (amount) VALUES (12.5)")
        }
        let error = #expect(throws: InvoiceFileError.self) {
            try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("has an Invoice table that is not the invoice app's"))
        #expect(try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == [["Invoice"]])
        #expect(try database.rows("SELECT * FROM Invoice") == [[1, 12.5]])
    }

    @Test func anotherProgramsDatabaseIsLeftAloneUnlessAdopted() throws {
        let database = try TemporaryDatabase()
        do {
            let connection = try Connection(path: database.path)
            try connection.execute("CREATE TABLE Notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO Notes (text) VALUES ('keep me')")
        }
        let error = #expect(throws: InvoiceFileError.self) {
            try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        }
        #expect(error == .otherProgramsTables(path: database.path, tables: ["Notes"]))
        #expect("\(error.map { "\($0)" } ?? "")".hasSuffix("it was left unchanged. To add the invoice tables beside them, run again with --adopt"))
        #expect(try database.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") == [["Notes"]])
        // Adopted: the invoice tables beside the other program's, and no example invoices in it.
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler(), adoptingOtherTables: true)
        #expect(try store.fetch(Invoice.self).isEmpty)
        #expect(try database.rows("SELECT text FROM Notes") == [["keep me"]])
        // Once adopted, it opens without the flag.
        _ = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
    }

    @Test func aConversionThatFailsChangesNothing() throws {
        // A database that cannot be written (another connection holds the write lock) is not
        // half converted: the opening fails and the file is as it was.
        let database = try TemporaryDatabase()
        try FileManager.default.copyItem(atPath: fixture, toPath: database.path)
        let locker = try Connection(path: database.path)
        try locker.execute("BEGIN IMMEDIATE")
        #expect(throws: (any Error).self) {
            try openInvoiceStore(path: database.path, scheduler: TestScheduler(), busyTimeout: .milliseconds(20))
        }
        try locker.execute("ROLLBACK")
        #expect(try database.rows("SELECT name FROM sqlite_master WHERE name IN ('Customer', 'InvoiceLine')") == [])
        #expect(try database.rows("SELECT count(*) FROM tether_migrations WHERE name LIKE '00%invoice%'") == [[0]])
        // Once the lock is gone, it converts.
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        #expect(try store.fetch(InvoiceLine.self).count == 7)
    }

    @Test func aPriceAnotherProgramWroteThatMoneyCannotHoldIsAClearErrorAndNothingIsChanged() throws {
        // 1e308 is a REAL, but no decimal of 38 digits. The invoices read fine (their lines are
        // read when first used); reading the lines fails with an error that names the table,
        // the column and the value (a wrong-typed row is never read as another value), the app
        // says so, and the file is left as it is.
        let database = try TemporaryDatabase()
        _ = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        try Connection(path: database.path).execute("UPDATE InvoiceLine SET unitPrice = 1e308 WHERE text = 'Brass gears'")
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let errors = Lists()
        let subscription = store.errors.subscribe(next: { errors.fail($0) })
        defer { subscription.dispose() }
        let invoices = try store.fetch(Invoice.self)
        #expect(invoices.count == 3)
        #expect(invoices[0].lines.isEmpty, "lines that cannot be read are not made up")
        #expect(errors.failure == "SQLITE_MISMATCH (20): InvoiceLine.unitPrice holds REAL 1e+308, expected Money")
        let app = InvoiceApp(store: store)
        let message = app.status.currentMessage ?? ""
        #expect(message.hasPrefix("Could not read from the database: "), "\(message)")
        #expect(try database.rows("SELECT unitPrice FROM InvoiceLine WHERE text = 'Brass gears'") == [[1e308]])
    }

    // MARK: Lists, adding, deleting

    @Test func theListSendsTheCurrentInvoicesThenEachChange() throws {
        let database = try TemporaryDatabase()
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let lists = Lists()
        let subscription = invoiceList(store).subscribe(
            next: { invoices in lists.record(invoices.map(\.number)) },
            error: { lists.fail($0) }
        )
        let added = try addInvoice(to: store)
        #expect(added.number == 4)
        #expect(added.persistentID != nil)
        #expect(added.lines.count == 1 && added.lines[0].persistentID != nil, "a new invoice has a blank line")
        let second = try #require(try store.fetch(Invoice.self, where: \.number == 2).first)
        try deleteInvoice(second, from: store)
        let fifth = try addInvoice(to: store)
        #expect(fifth.number == 5, "one more than the largest number")
        #expect(lists.all == [[1, 2, 3], [1, 2, 3, 4], [1, 3, 4], [1, 3, 4, 5]])
        #expect(lists.failure == nil)
        subscription.dispose()
        try addInvoice(to: store)
        #expect(lists.all.count == 4, "nothing after disposal")
    }

    @Test func linesAreAddedAtTheEndAndDeleted() throws {
        let database = try TemporaryDatabase()
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let invoice = try #require(try store.fetch(Invoice.self, where: \.number == 1).first)
        let line = addLine(to: invoice)
        line.text = "Ink"
        line.quantity = 3
        line.unitPrice = Money("0.125")!
        try store.flush()
        #expect(try database.rows("SELECT position, text, quantity, unitPrice FROM InvoiceLine WHERE text = 'Ink'") == [[2, "Ink", 3, 0.125]])
        #expect("\(invoice.subtotal)" == "2557.38")
        try deleteLine(invoice.lines[0], from: store)
        #expect(invoice.lines.map(\.text) == ["Brass gears", "Ink"])
        #expect(try database.rows("SELECT text FROM InvoiceLine JOIN Invoice ON Invoice.id = invoice_id WHERE number = 1 ORDER BY position")
            == [["Brass gears"], ["Ink"]])
        // A line not written yet is removed from its invoice.
        let unsaved = addLine(to: invoice)
        try deleteLine(unsaved, from: store)
        #expect(invoice.lines.count == 2)
    }

    @Test func aCustomerWithInvoicesCannotBeDeletedOneWithoutCan() throws {
        let database = try TemporaryDatabase()
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let ada = try #require(try customer(named: " ada LOVELACE ", in: store))
        #expect(ada.name == "Ada Lovelace", "found by name, ignoring case and spaces")
        #expect(ada.invoices.map(\.number) == [1])
        let error = #expect(throws: StoreError.self) { try deleteCustomer(ada, from: store) }
        guard case .deleteDenied? = error else {
            Issue.record("expected deleteDenied, got \(String(describing: error))")
            return
        }
        #expect(try database.rows("SELECT count(*) FROM Customer WHERE name = 'Ada Lovelace'") == [[1]])
        // Another program's DELETE is refused too.
        let other = try Connection(path: database.path)
        #expect(throws: SQLiteError.self) { try other.execute("DELETE FROM Customer WHERE name = 'Ada Lovelace'") }
        // Once her invoice is someone else's, she can go.
        let invoice = ada.invoices[0]
        invoice.customer = try customer(named: "Charles Babbage", in: store)
        try store.flush()
        try deleteCustomer(ada, from: store)
        #expect(try database.rows("SELECT name FROM Customer ORDER BY name") == [["Charles Babbage"], ["Grace Hopper"], ["张伟 (Zhang Wei)"]])
        #expect(try customer(named: "  ", in: store) == nil)
    }

    @Test func aLineAddedByAnotherCopyReachesTheInvoiceAndItsTotal() throws {
        let database = try TemporaryDatabase()
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let invoice = try #require(try store.fetch(Invoice.self, where: \.number == 2).first)
        let totals = Mutex<[String]>([])
        let subscription = observe(invoice, \.total).subscribe(next: { total in totals.withLock { $0.append("\(total)") } })
        // The other copy: a store of its own on the same file.
        let other = try openInvoiceStore(path: database.path, scheduler: TestScheduler(), watchesExternalChanges: false)
        let theirs = try #require(try other.fetch(Invoice.self, where: \.number == 2).first)
        let line = addLine(to: theirs)
        line.text = "墨盒"
        line.quantity = 2
        line.unitPrice = Money("10")!
        theirs.lines[0].quantity = 10
        try other.flush()
        try store.refresh()
        #expect(invoice.lines.map(\.text) == ["打印纸 20 箱", "墨盒"])
        #expect(totals.withLock { $0 } == ["734.50", "389.85"])
        #expect(invoice.total == Money("389.85")!)
        subscription.dispose()
    }

    @Test func addingToALockedDatabaseIsAnError() throws {
        let database = try TemporaryDatabase()
        _ = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        // A database locked by another connection's write transaction: the insert waits for
        // the busy timeout, then fails with SQLITE_BUSY.
        let locker = try Connection(path: database.path)
        try locker.execute("BEGIN IMMEDIATE")
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler(), busyTimeout: .milliseconds(10))
        let error = #expect(throws: StoreError.self) { try addInvoice(to: store) }
        #expect(error?.sqliteError?.isBusy == true)
        try locker.execute("ROLLBACK")
    }

    @Test func theLargestNumberGivesAClearErrorAndAddsNothing() throws {
        let database = try TemporaryDatabase()
        let store = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let last = try #require(try store.fetch(Invoice.self, where: \.number == 3).first)
        last.number = Int.max    // as another program may write it
        try store.flush()
        #expect(throws: InvoiceNumberError.exhausted(largest: Int.max)) { try addInvoice(to: store) }
        #expect(try store.fetch(Invoice.self).count == 3)
    }

    @Test func twoCopiesAddingAtTheSameMomentNeverShareANumber() throws {
        let database = try TemporaryDatabase()
        _ = try openInvoiceStore(path: database.path, scheduler: TestScheduler())
        let path = database.path
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let store = try openInvoiceStore(path: path, scheduler: TestScheduler(), watchesExternalChanges: false)
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
