import Synchronization
import Testing
import TetherSQLite
import TetherTerminal
@testable import InvoiceKit

/// Records the values a signal sends.
private final class Values<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    var all: [Value] { storage.withLock { $0 } }
    func record(_ signal: Signal<Value, Never>) -> any Disposable {
        signal.subscribe(next: { value in self.storage.withLock { $0.append(value) } })
    }
}

@Suite("Invoice: computed amounts")
struct InvoiceTests {
    @Test func amountsFromQuantityPriceDiscountAndTax() {
        let invoice = Invoice()
        #expect(invoice.subtotal == 0)
        #expect(invoice.total == 0)
        invoice.quantity = 4
        invoice.unitPrice = 2.5
        invoice.discount = 10
        invoice.tax = 20
        #expect(invoice.subtotal == 10)
        #expect(close(invoice.discountAmount, 1))
        #expect(close(invoice.taxAmount, 1.8), "the tax is on the discounted subtotal")
        #expect(close(invoice.total, 10.8))
    }

    @Test func noDiscountIsZeroDiscount() {
        let invoice = Invoice()
        invoice.quantity = 3
        invoice.unitPrice = 100
        invoice.tax = 10
        #expect(invoice.discount == nil)
        #expect(invoice.discountAmount == 0)
        #expect(close(invoice.total, 330))
    }

    @Test func theTotalIsObservedThroughItsDependencies() {
        let invoice = Invoice()
        invoice.unitPrice = 10
        let totals = Values<Double>()
        let subscription = totals.record(observe(invoice, \.total))
        invoice.quantity = 2
        invoice.discount = 50
        invoice.note = "not a dependency"
        invoice.tax = 100
        invoice.transaction {
            $0.quantity = 4
            $0.unitPrice = 5
        }
        #expect(totals.all == [10, 20, 10, 20], "one value per change of a dependency; an equal total is not sent again")
        subscription.dispose()
    }

    @Test func theCurrentInvoicesAmountsFollowTheSelectionAndItsEdits() {
        let current = CurrentInvoice()
        let a = Invoice()
        a.unitPrice = 2
        let b = Invoice()
        b.unitPrice = 7
        let totals = Values<Double?>()
        let subscription = totals.record(observe(current, \.invoice?.total))
        current.invoice = a
        a.quantity = 3
        current.invoice = b
        a.quantity = 5                  // no longer selected: not observed
        b.quantity = 2
        current.invoice = nil
        #expect(totals.all == [nil, 2, 6, 7, 14, nil])
        subscription.dispose()
    }

    @Test func examplesIncludeAChineseCustomerAndAreNumberedFromOne() {
        let examples = exampleInvoices()
        #expect(examples.map(\.number) == [1, 2, 3])
        #expect(examples.map(\.customer) == ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper"])
        #expect(examples[1].note == "办公用品：打印纸 20 箱")
        #expect(examples.map { NumberText.fixed($0.total, places: 2) } == ["2700.00", "734.50", "2280.00"])
    }
}

