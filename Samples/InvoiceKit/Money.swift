import Foundation
import TetherSQLite

/// An amount of money, exact: a decimal number (Foundation's `Decimal`, 38 significant
/// digits), so adding prices never picks up binary rounding (0.1 + 0.2 is 0.3). An invoice
/// rounds only where a paper invoice would: each line's amount, the discount and the tax, to
/// cents, half away from zero (1.005 becomes 1.01, 2.675 becomes 2.68). The totals are sums of
/// rounded amounts, so the printed lines always add up.
///
/// ```swift
/// let price = Money("0.125")!
/// (price * 3).roundedToCents()          // 0.38 (0.375, half up)
/// Money(100).percent(12.5)             // 12.50
/// "\(Money("1250")!)"                   // "1250.00"
/// ```
///
/// Stored as REAL. What a user can type (at most 15 significant digits, see `init(_:)`) is
/// stored exactly: the shortest decimal that names the stored double is the number typed, and
/// reading takes that decimal back. A value with more digits is refused when written
/// (`SQLiteError.mismatch`), never rounded. REAL keeps SQL's comparisons, `ORDER BY` and `sum`
/// working on the column, and the column of a file written before lines existed (a REAL unit
/// price) converts without a change of a single bit.
public struct Money: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The amount.
    public let value: Decimal

    /// Zero.
    public static let zero = Money(0)

    /// The most significant digits a stored amount may have (what a double holds exactly).
    public static let maximumStoredDigits = 15

    /// The amount `value`.
    public init(_ value: Decimal) {
        self.value = value
    }

    /// A whole amount: `let price: Money = 20`.
    public init(integerLiteral value: Int) {
        self.value = Decimal(value)
    }

    /// Parses decimal text as people type it: digits with an optional `.` and fraction, an
    /// optional leading `-`; spaces around it are ignored. No exponents, no thousands
    /// separators, nothing after the number. Nil for anything else.
    ///
    /// ```swift
    /// Money("12.50")     // 12.50
    /// Money("1e3")       // nil
    /// Money("12,50")     // nil
    /// ```
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var digits = trimmed.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        let parts = digits.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.contains(where: { !$0.isEmpty }),
              parts.allSatisfy({ $0.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        self.value = value
    }

    /// The amount a double names by its shortest decimal form (`0.1` for the double nearest
    /// 0.1), or nil for infinities and NaN. How a REAL column and a `Double` percentage become
    /// exact decimals.
    ///
    /// ```swift
    /// Money(exactly: 32.5)   // 32.50
    /// ```
    public init?(exactly double: Double) {
        guard double.isFinite, let value = Decimal(string: "\(double)", locale: Locale(identifier: "en_US_POSIX")) else {
            return nil
        }
        self.value = value
    }

    /// The amount rounded to cents, half away from zero.
    ///
    /// ```swift
    /// Money("2.675")!.roundedToCents()   // 2.68
    /// ```
    public func roundedToCents() -> Money {
        var source = value
        var result = Decimal()
        NSDecimalRound(&result, &source, 2, .plain)
        return Money(result)
    }

    /// `rate` percent of the amount, rounded to cents.
    ///
    /// ```swift
    /// Money(80).percent(12.5)   // 10.00
    /// ```
    public func percent(_ rate: Double) -> Money {
        guard rate != 0, let rate = Money(exactly: rate) else { return .zero }
        return Money(value * rate.value / 100).roundedToCents()
    }

    /// The sum.
    public static func + (lhs: Money, rhs: Money) -> Money { Money(lhs.value + rhs.value) }
    /// The difference.
    public static func - (lhs: Money, rhs: Money) -> Money { Money(lhs.value - rhs.value) }
    /// `count` times the amount (a line's quantity × its unit price).
    public static func * (lhs: Money, count: Int) -> Money { Money(lhs.value * Decimal(count)) }
    /// Orders amounts by value.
    public static func < (lhs: Money, rhs: Money) -> Bool { lhs.value < rhs.value }

    /// The amount with at least two decimals, as many as it has beyond that, no grouping:
    /// `1250.00`, `0.125`, `-3.50`.
    public var description: String {
        var text = "\(value)"
        if text.hasPrefix("-0."), value == 0 { text = "0" }
        guard !text.contains("e"), !text.contains("E") else { return text }
        let fraction = text.firstIndex(of: ".").map { text.distance(from: $0, to: text.endIndex) - 1 } ?? -1
        if fraction < 0 { return text + ".00" }
        return text + String(repeating: "0", count: max(0, 2 - fraction))
    }

    /// The amount as typed, without padding: `1250`, `4.75`, `0.125` (what a field shows).
    public var plainText: String {
        let text = "\(value)"
        return text.hasPrefix("-0") && value == 0 ? "0" : text
    }

    /// How many significant digits the amount has (`1250.00` has 3, `0.125` has 3).
    var significantDigits: Int {
        let digits = "\(value)".filter(\.isNumber).drop { $0 == "0" }
        return max(1, digits.reversed().drop { $0 == "0" }.count)
    }
}

extension Money: SQLiteConvertible {
    /// Amounts are stored as REAL (see the type's documentation).
    public static var sqliteColumnType: SQLiteColumnType { .real }

    /// Reads a REAL or an INTEGER as the decimal it names; anything else is a mismatch.
    public init(sqliteValue value: SQLiteValue) throws(SQLiteError) {
        switch value {
        case .integer(let integer):
            self.init(Decimal(integer))
        case .real(let double):
            guard let money = Money(exactly: double) else { throw .mismatch(expected: "Money", found: value.summary) }
            self = money
        default:
            throw .mismatch(expected: "Money", found: value.summary)
        }
    }

    /// The amount as REAL; an amount a double cannot hold exactly (more than 15 significant
    /// digits) is a mismatch, not rounded.
    public func sqliteValue() throws(SQLiteError) -> SQLiteValue {
        guard significantDigits <= Self.maximumStoredDigits,
              let double = Double("\(value)"), Money(exactly: double) == self
        else {
            throw .mismatch(expected: "an amount of at most \(Self.maximumStoredDigits) significant digits", found: "\(self)")
        }
        return .real(double)
    }
}
