/// Why a field's text is not a valid value: a short message shown next to the field.
///
/// ```swift
/// InvalidInput("must be between 0 and 100")
/// ```
public struct InvalidInput: Error, Hashable, Sendable, CustomStringConvertible {
    /// The message, such as "not a whole number".
    public let message: String

    /// Creates an error with its message.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// Parsing and formatting numbers as typed in a form, independent of the user's locale: the
/// decimal separator is always a dot ("12.5", never "12,5"), there are no grouping separators,
/// and what is formatted parses back to the same value.
///
/// ```swift
/// NumberText.parseInteger("42")      // .success(42)
/// NumberText.parseDecimal("12,5")    // .failure("use a dot for decimals, as in 12.5")
/// NumberText.format(12.0)            // "12"
/// NumberText.fixed(2.5, places: 2)   // "2.50"
/// ```
public enum NumberText {
    /// Parses a whole number: optional sign and digits, surrounding spaces allowed.
    public static func parseInteger(_ text: String) -> Result<Int, InvalidInput> {
        let trimmed = trim(text)
        if trimmed.isEmpty { return .failure(InvalidInput("enter a whole number")) }
        if let value = Int(trimmed) { return .success(value) }
        if isDigits(trimmed.drop(while: { $0 == "+" || $0 == "-" })) { return .failure(InvalidInput("number too large")) }
        return .failure(InvalidInput("not a whole number"))
    }

    /// Parses a decimal number: optional sign, digits with an optional dot and fraction, an
    /// optional exponent (`1e3`); surrounding spaces allowed. "inf", "nan" and hexadecimal are
    /// refused, and so is a comma as decimal separator (with a message that says so).
    public static func parseDecimal(_ text: String) -> Result<Double, InvalidInput> {
        let trimmed = trim(text)
        if trimmed.isEmpty { return .failure(InvalidInput("enter a number")) }
        guard isDecimalSyntax(trimmed) else {
            if trimmed.contains(","), isDecimalSyntax(trimmed.replacingComma()) {
                return .failure(InvalidInput("use a dot for decimals, as in 12.5"))
            }
            return .failure(InvalidInput("not a number"))
        }
        guard let value = Double(trimmed), value.isFinite else { return .failure(InvalidInput("number too large")) }
        return .success(value)
    }

    /// The shortest text that parses back to `value`: integral values without a fraction
    /// ("12"), others as Swift prints them ("12.5", "0.1", "1e-07").
    public static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            let integral = Int64(value)
            return integral == 0 && value.sign == .minus ? "0" : String(integral)
        }
        return value.description
    }

    /// `value` with exactly `places` decimals, rounded half away from zero ("2.50", "-0.13").
    ///
    /// ```swift
    /// NumberText.fixed(1234.5, places: 2)   // "1234.50"
    /// ```
    public static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return value.description }
        let places = max(0, min(places, 15))
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e18 else { return value.description }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = String(units / divisor)
        if places > 0 {
            let fraction = String(units % divisor)
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return value < 0 && units != 0 ? "-" + text : text
    }

    private static func trim(_ text: String) -> Substring {
        var trimmed = text[...]
        while trimmed.first == " " { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " { trimmed = trimmed.dropLast() }
        return trimmed
    }

    private static func isDigits(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`
    private static func isDecimalSyntax(_ text: Substring) -> Bool {
        var rest = text[...]
        if let first = rest.first, first == "+" || first == "-" { rest = rest.dropFirst() }
        let integer = rest.prefix(while: { $0.isASCII && $0.isNumber })
        rest = rest.dropFirst(integer.count)
        var fraction: Substring = ""
        if rest.first == "." {
            rest = rest.dropFirst()
            fraction = rest.prefix(while: { $0.isASCII && $0.isNumber })
            rest = rest.dropFirst(fraction.count)
        }
        guard !integer.isEmpty || !fraction.isEmpty else { return false }
        if let e = rest.first, e == "e" || e == "E" {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == "+" || sign == "-" { rest = rest.dropFirst() }
            let exponent = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !exponent.isEmpty else { return false }
            rest = rest.dropFirst(exponent.count)
        }
        return rest.isEmpty
    }
}

extension Substring {
    fileprivate func replacingComma() -> Substring {
        Substring(String(map { $0 == "," ? "." : $0 }))
    }
}
