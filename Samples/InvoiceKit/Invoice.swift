import TetherSQLite

/// One invoice: who it is for, a note, one line (quantity × unit price), a discount and a tax
/// rate, and the amounts computed from them.
///
/// The amounts are `@Model` computed properties: `observe(invoice, \.total)` tracks which
/// stored properties the getter reads and sends a new total whenever one of them changes, so
/// the form needs no code of its own to keep them up to date.
///
/// ```swift
/// let invoice = Invoice()
/// invoice.quantity = 4
/// invoice.unitPrice = 2.5
/// invoice.discount = 10          // percent
/// invoice.tax = 20               // percent
/// invoice.total                  // 10.8: 10 - 1 + 1.8
/// ```
///
/// Stored in the `Invoice` table that `schema/003_invoice.sql` describes (a test checks that
/// the table generated from this class is that file).
@Model
public final class Invoice {
    /// The invoice's number, shown as `#3`; the list is ordered by it. `addInvoice(to:)` gives
    /// each new invoice the next free number.
    public var number = 0
    /// Who the invoice is for: any text, Chinese included.
    public var customer = ""
    /// A free-form note: any text.
    public var note = ""
    /// How many units.
    public var quantity = 1
    /// The price of one unit.
    public var unitPrice = 0.0
    /// The discount in percent of the subtotal (10 means 10 %), or nil for none.
    public var discount: Double? = nil
    /// The tax rate in percent, applied after the discount.
    public var tax = 0.0

    /// quantity × unit price.
    public var subtotal: Double { Double(quantity) * unitPrice }
    /// The discount taken off the subtotal.
    public var discountAmount: Double { subtotal * (discount ?? 0) / 100 }
    /// The tax on the discounted subtotal.
    public var taxAmount: Double { (subtotal - discountAmount) * tax / 100 }
    /// What the customer pays: the subtotal, less the discount, plus the tax.
    public var total: Double { subtotal - discountAmount + taxAmount }

    /// A blank invoice: no customer, one unit at 0, no discount, no tax.
    public init() {}
}

extension Invoice: PersistentModel {}

/// The invoice the form is editing, as a model of its own, so that the form's computed fields
/// can observe a nested key path that follows the selection: `observe(current, \.invoice?.total)`
/// re-reads the total when the selected invoice changes, and when a property of that invoice
/// changes. Not persisted (it is not a `PersistentModel`).
///
/// ```swift
/// let current = CurrentInvoice()
/// observe(current, \.invoice?.total).subscribe(next: { print($0 as Any) })   // nil
/// current.invoice = invoice                                                 // Optional(10.8)
/// ```
@Model
public final class CurrentInvoice {
    /// The selected invoice, or nil when there is none (an empty list).
    public var invoice: Invoice? = nil

    /// Nothing selected.
    public init() {}
}
