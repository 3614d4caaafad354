import Foundation
import TetherSQLite
import TetherTerminal

/// The widgets of one invoice line in the form: its description, quantity and unit price,
/// bound to the line through two-way channels, and its amount, a `ComputedField` observing the
/// line's computed `amount`.
///
/// ```swift
/// let row = InvoiceLineRow(line: invoice.lines[0])
/// row.quantity.handle(.character("4"))      // the line's quantity, the amount and the total follow
/// ```
@MainActor
public final class InvoiceLineRow {
    /// The line shown.
    public let line: InvoiceLine
    /// What was sold.
    public let text = TextField(nil, width: InvoiceLineRow.textWidth)
    /// How many units.
    public let quantity = NumberField<Int>.integer(nil, range: 0...1_000_000, width: InvoiceLineRow.quantityWidth)
    /// The price of one unit.
    public let unitPrice = NumberField<Money>(
        nil, width: InvoiceLineRow.moneyWidth, parse: InvoiceLineRow.parseUnitPrice, format: \.plainText)
    /// quantity × unit price.
    public let amount: ComputedField<Money>

    /// Columns of the description when the form is wide enough.
    public nonisolated static let textWidth = 28
    /// Columns of the quantity.
    public nonisolated static let quantityWidth = 9
    /// Columns of a unit price.
    public nonisolated static let moneyWidth = 14
    /// Columns of an amount: the largest a line can have (1,000,000 × 1,000,000,000) fits.
    public nonisolated static let amountWidth = 19

    /// The row for `line`, bound to it.
    public init(line: InvoiceLine) {
        self.line = line
        amount = ComputedField(nil, observe(line, \.amount), width: Self.amountWidth, alignment: .trailing) { "\($0)" }
        text.bind(to: channel(line, \.text))
        quantity.bind(to: channel(line, \.quantity))
        unitPrice.bind(to: channel(line, \.unitPrice))
    }

    /// The row's fields that take the focus, left to right.
    public var fields: [any Widget] { [text, quantity, unitPrice] }

    /// What is wrong with the row, or nil: text in a number field that is not a valid number
    /// (the line keeps its last valid value), else the first rule the line breaks (its changes
    /// are kept back until it holds), named by its field.
    ///
    /// ```swift
    /// row.unitPrice.handle(.character("5"))   // a price on a line without a description
    /// row.error                               // "description: describe what was sold"
    /// ```
    public var error: String? {
        if let error = quantity.error { return "quantity: \(error)" }
        if let error = unitPrice.error { return "unit price: \(error)" }
        if let broken = line.brokenRules.first {
            return "\(Self.fieldName(broken.property)): \(broken.rule)"
        }
        return nil
    }

    /// The name the form gives a line's property: `text` is the "description".
    ///
    /// ```swift
    /// InvoiceLineRow.fieldName("unitPrice")   // "unit price"
    /// ```
    public nonisolated static func fieldName(_ property: String?) -> String {
        switch property {
        case "text": "description"
        case "unitPrice": "unit price"
        default: property ?? "line"
        }
    }

    /// Parses a unit price: a decimal of `NumberText`'s grammar, with its messages (`12.50`,
    /// `0.125`), from 0 to 1,000,000,000, of at most 15 significant digits (what is stored
    /// exactly).
    ///
    /// ```swift
    /// InvoiceLineRow.parseUnitPrice("12.5")   // .success(12.50)
    /// InvoiceLineRow.parseUnitPrice("1e3")    // .failure("not a number")
    /// InvoiceLineRow.parseUnitPrice("1,5")    // .failure("use a dot for decimals, as in 12.5")
    /// ```
    public nonisolated static func parseUnitPrice(_ text: String) -> Result<Money, InvalidInput> {
        if let error = NumberText.syntaxError(in: text) { return .failure(error) }
        guard let money = Money(text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "+", with: "")) else {
            return .failure(InvalidInput("not a number"))
        }
        guard money >= .zero, money <= Money(1_000_000_000) else {
            return .failure(InvalidInput("must be between 0 and 1000000000"))
        }
        guard money.significantDigits <= Money.maximumStoredDigits else {
            return .failure(InvalidInput("at most \(Money.maximumStoredDigits) digits"))
        }
        return .success(money)
    }
}
