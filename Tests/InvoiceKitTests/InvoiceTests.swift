import Foundation
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

private func money(_ text: String) -> Money { Money(text)! }

private func line(_ quantity: Int, _ unitPrice: String) -> InvoiceLine {
    InvoiceLine(quantity: quantity, unitPrice: money(unitPrice))
}

@Suite("Invoice: lines, money and computed amounts")
struct InvoiceTests {
    @Test func amountsFromLinesDiscountAndTax() {
        let invoice = Invoice()
        #expect(invoice.subtotal == .zero)
        #expect(invoice.total == .zero)
        invoice.lines = [line(4, "2.5"), line(1, "0.5")]
        invoice.discount = 10
        invoice.tax = 20
        #expect(invoice.subtotal == money("10.5"))
        #expect(invoice.discountAmount == money("1.05"))
        #expect(invoice.taxAmount == money("1.89"), "the tax is on the discounted subtotal")
        #expect(invoice.total == money("11.34"))
    }

    @Test func moneyIsExactAndRoundsHalfAwayFromZeroOnlyWhereAnInvoiceRounds() {
        #expect(money("0.1") + money("0.2") == money("0.3"))
        #expect(money("1.005").roundedToCents() == money("1.01"))
        #expect(money("2.675").roundedToCents() == money("2.68"))
        #expect(money("-2.675").roundedToCents() == money("-2.68"))
        #expect(money("100").percent(12.5) == money("12.5"))
        #expect("\(money("1250"))" == "1250.00")
        #expect("\(money("0.125"))" == "0.125")
        #expect(money("0.125").plainText == "0.125")
        #expect(money("1250.00").plainText == "1250")
        for bad in ["", "-", ".", "1e3", "12,50", "1.2.3", "0x10", "12 5", "++1", "１２"] {
            #expect(Money(bad) == nil, "\(bad)")
        }
        #expect(Money(" 12.50 ") == money("12.5"))
    }

    @Test func theLinesAddUp() {
        // 0.125 with 50 % off: each printed amount is rounded once, and the printed amounts
        // add up (0.13 - 0.07 = 0.06).
        let invoice = Invoice()
        invoice.lines = [line(1, "0.125")]
        invoice.discount = 50
        #expect(["\(invoice.subtotal)", "\(invoice.discountAmount)", "\(invoice.total)"] == ["0.13", "0.07", "0.06"])
        invoice.lines = [line(1, "1.005"), line(1, "2.675")]
        invoice.discount = nil
        #expect(invoice.lines.map { "\($0.amount)" } == ["1.01", "2.68"])
        #expect(invoice.subtotal == money("3.69"))
    }

    @Test func theLargestAmountsAreExact() {
        let invoice = Invoice()
        invoice.lines = [line(1_000_000, "1000000000"), line(1_000_000, "999999999.99")]
        invoice.discount = 12.5
        invoice.tax = 7.25
        #expect("\(invoice.subtotal)" == "1999999999990000.00")
        #expect("\(invoice.discountAmount)" == "249999999998750.00")
        #expect("\(invoice.total)" == "1876874999990615.63")
    }

    @Test func moneyIsStoredAsTheRealItNamesAndMoreDigitsThanADoubleHoldsAreRefused() throws {
        #expect(try money("32.5").sqliteValue() == .real(32.5))
        #expect(try Money(sqliteValue: .real(0.1)) == money("0.1"))
        #expect(try Money(sqliteValue: .integer(7)) == money("7"))
        #expect(throws: SQLiteError.self) { try Money(sqliteValue: .text("12")) }
        #expect(throws: SQLiteError.self) { try Money(sqliteValue: .real(.infinity)) }
        #expect(throws: SQLiteError.self) { try money("1234567890.1234567").sqliteValue() }
        #expect(try money("123456789.123456").sqliteValue() == .real(123456789.123456), "15 digits")
        #expect(InvoiceLineRow.parseUnitPrice("123456789.1234567") == .failure(InvalidInput("at most 15 digits")))
        #expect(InvoiceLineRow.parseUnitPrice("1000000000.01") == .failure(InvalidInput("must be between 0 and 1000000000")))
        #expect(InvoiceLineRow.parseUnitPrice("-1") == .failure(InvalidInput("must be between 0 and 1000000000")))
        #expect(InvoiceLineRow.parseUnitPrice("1e3") == .failure(InvalidInput("not a number")))
        #expect(InvoiceLineRow.parseUnitPrice("0.125") == .success(money("0.125")))
    }

    @Test func theTotalIsObservedThroughTheLines() {
        let invoice = Invoice()
        let first = line(1, "10")
        invoice.lines = [first]
        let totals = Values<Money>()
        let subscription = totals.record(observe(invoice, \.total))
        first.quantity = 2                          // a line's quantity
        let second = line(1, "5")
        invoice.lines.append(second)                // a line added
        second.unitPrice = money("7.5")             // the new line's price
        invoice.note = "not a dependency"
        invoice.discount = 50
        invoice.lines.removeAll { $0 === first }    // a line removed
        first.quantity = 9                          // no longer a line of the invoice
        #expect(totals.all.map { "\($0)" } == ["10.00", "20.00", "25.00", "27.50", "13.75", "3.75"])
        subscription.dispose()
    }

    @Test func theCurrentInvoicesAmountsFollowTheSelectionAndItsEdits() {
        let current = CurrentInvoice()
        let a = Invoice()
        a.lines = [line(1, "2")]
        let b = Invoice()
        b.lines = [line(1, "7")]
        let totals = Values<Money?>()
        let subscription = totals.record(observe(current, \.invoice?.total))
        current.invoice = a
        a.lines[0].quantity = 3
        current.invoice = b
        a.lines[0].quantity = 5                     // no longer selected: not observed
        b.lines[0].quantity = 2
        current.invoice = nil
        #expect(totals.all == [nil, money("2"), money("6"), money("7"), money("14"), nil])
        subscription.dispose()
    }

    @Test func examplesHaveCustomersAndLinesAndAreNumberedFromOne() {
        let examples = exampleInvoices()
        #expect(examples.map(\.number) == [1, 2, 3])
        #expect(examples.map(\.customerName) == ["Ada Lovelace", "张伟 (Zhang Wei)", "Grace Hopper"])
        #expect(examples[1].lines.map(\.text) == ["打印纸 20 箱"])
        #expect(examples.map { $0.lines.map(\.position) } == [[0, 1], [0], [0, 1]])
        #expect(examples.map { "\($0.total)" } == ["2761.56", "734.50", "2481.78"])
    }

    @Test func customerChoicesPutTheSameNameFirstThenPrefixesThenTheRest() {
        let customers = ["Grace Hopper", "Ada Lovelace", "Adam", "grace", "Lada"].map { Customer(name: $0) }
        let titles = { (typed: String) in CustomerChoice.choices(for: typed, among: customers).map(\.title) }
        #expect(titles("ada") == ["Ada Lovelace", "Adam", "Lada", "New customer \"ada\"", "(no customer)"])
        #expect(titles(" Grace ") == ["grace", "Grace Hopper", "(no customer)"], "an equal name: no new customer")
        #expect(titles("") == ["Grace Hopper", "Ada Lovelace", "Adam", "grace", "Lada", "(no customer)"])
        #expect(titles("zz") == ["New customer \"zz\"", "(no customer)"])
    }
}
