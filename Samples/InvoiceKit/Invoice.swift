import Foundation
import TetherSQLite

/// One invoice: its number, who it is for, a note, its lines, a discount and a tax rate, and
/// the amounts computed from them.
///
/// The amounts are `@Model` computed properties over the lines: `observe(invoice, \.total)`
/// tracks what the getter reads (the lines, each line's quantity and unit price, the discount
/// and the tax) and sends a new total whenever one of them changes, here or in another copy of
/// the app, so the form needs no code of its own to keep them up to date. A change made
/// elsewhere arrives as one transaction: the total never shows half of it.
///
/// ```swift
/// let invoice = Invoice()
/// invoice.lines.append(InvoiceLine(text: "Paper", quantity: 4, unitPrice: Money("2.5")!))
/// invoice.discount = 10          // percent
/// invoice.tax = 20               // percent
/// invoice.total                  // 10.80: 10.00 - 1.00 + 1.80
/// ```
///
/// Stored in the `Invoice` table (`schema/003_invoice.sql`, extended by
/// `schema/005_invoice_lines.sql`). The table keeps the columns of invoices that had a single
/// line (`customer` as text, `quantity`, `unitPrice`): the model no longer reads them, and
/// converting a file moved their values into customers and lines.
@Model
public final class Invoice {
    /// The invoice's number, shown as `#3`; the list is ordered by it. `addInvoice(to:)` gives
    /// each new invoice the next free number.
    public var number = 0
    /// Who the invoice is for, or nil for nobody yet. A customer with invoices cannot be
    /// deleted (`Customer.invoices` denies it).
    @Relationship public var customer: Customer?
    /// A free-form note: any text.
    public var note = ""
    /// The discount in percent of the subtotal (10 means 10 %), or nil for none.
    public var discount: Double? = nil
    /// The tax rate in percent, applied after the discount.
    public var tax = 0.0
    /// The invoice's lines, in the order of their `position`. Deleting the invoice deletes
    /// its lines.
    @Relationship(inverse: \InvoiceLine.invoice, deleteRule: .cascade, orderBy: \InvoiceLine.position)
    public var lines: [InvoiceLine] = []

    /// The sum of the lines' amounts.
    public var subtotal: Money { lines.reduce(Money.zero) { $0 + $1.amount } }
    /// The discount taken off the subtotal, rounded to cents.
    public var discountAmount: Money { subtotal.percent(discount ?? 0) }
    /// The tax on the discounted subtotal, rounded to cents.
    public var taxAmount: Money { (subtotal - discountAmount).percent(tax) }
    /// What the customer pays: the subtotal, less the discount, plus the tax.
    public var total: Money { subtotal - discountAmount + taxAmount }
    /// The customer's name, or "" for none.
    public var customerName: String { customer?.name ?? "" }

    /// A blank invoice: no customer, no lines, no discount, no tax.
    public init() {}
}

extension Invoice: PersistentModel {}

/// One line of an invoice: what was sold, how many, at what unit price.
///
/// ```swift
/// let line = InvoiceLine(text: "Screws", quantity: 3, unitPrice: Money("0.125")!)
/// line.amount        // 0.38: 0.375 rounded to cents
/// invoice.lines.append(line)      // inserted with the invoice, written through
/// ```
///
/// Stored in the `InvoiceLine` table (`schema/005_invoice_lines.sql`).
@Model
public final class InvoiceLine {
    /// The invoice the line belongs to.
    @Relationship public var invoice: Invoice?
    /// Where the line stands in its invoice: lines are ordered by it.
    public var position = 0
    /// What was sold (the line's description).
    public var text = ""
    /// How many units.
    public var quantity = 1
    /// The price of one unit.
    public var unitPrice: Money = 0

    /// quantity × unit price, rounded to cents.
    public var amount: Money { (unitPrice * quantity).roundedToCents() }

    /// A line.
    public init(text: String = "", quantity: Int = 1, unitPrice: Money = 0, position: Int = 0) {
        self.text = text
        self.quantity = quantity
        self.unitPrice = unitPrice
        self.position = position
    }

    /// A blank line: no description, one unit at 0.
    public convenience init() {
        self.init(text: "")
    }
}

extension InvoiceLine: Validating {
    /// A line with a price says what was sold: until it does, its changes are kept back (not
    /// written), and the form shows the rule beside the line. A blank line (price 0) is valid.
    ///
    /// ```swift
    /// let line = InvoiceLine(unitPrice: 12)
    /// line.brokenRules.map(\.description)   // ["text: describe what was sold"]
    /// ```
    public func validate(_ rules: inout ValidationRules<InvoiceLine>) {
        rules.check(\.text, "describe what was sold", unitPrice == .zero || !text.trimmingCharacters(in: .whitespaces).isEmpty)
    }
}

/// Someone invoices are for.
///
/// ```swift
/// let ada = Customer(name: "Ada Lovelace")
/// try store.insert(ada)         // a stored invoice refers to stored customers only
/// invoice.customer = ada
/// ada.invoices                  // [invoice]
/// try store.delete(ada)         // throws StoreError.deleteDenied: she has an invoice
/// ```
///
/// Stored in the `Customer` table (`schema/005_invoice_lines.sql`).
@Model
public final class Customer {
    /// The customer's name: any text, Chinese included.
    public var name = ""
    /// The customer's invoices, by number. A customer who has invoices cannot be deleted:
    /// `delete` throws `StoreError.deleteDenied` naming them, and another program's `DELETE`
    /// fails too.
    @Relationship(inverse: \Invoice.customer, deleteRule: .deny, orderBy: \Invoice.number)
    public var invoices: [Invoice] = []

    /// A customer named `name`.
    public init(name: String) {
        self.name = name
    }

    /// A customer without a name.
    public convenience init() {
        self.init(name: "")
    }
}

extension Customer: PersistentModel {}

/// The invoice the form is editing, as a model of its own, so that the form's computed fields
/// can observe a nested key path that follows the selection: `observe(current, \.invoice?.total)`
/// re-reads the total when the selected invoice changes, and when a property of that invoice
/// changes. Not persisted (it is not a `PersistentModel`).
///
/// ```swift
/// let current = CurrentInvoice()
/// observe(current, \.invoice?.total).subscribe(next: { print($0 as Any) })   // nil
/// current.invoice = invoice                                                 // Optional(10.80)
/// ```
@Model
public final class CurrentInvoice {
    /// The selected invoice, or nil when there is none (an empty list).
    public var invoice: Invoice? = nil

    /// Nothing selected.
    public init() {}
}
