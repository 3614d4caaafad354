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

/// Parsing and formatting numbers as typed in a form, independent of the user's locale: one
/// grammar and one set of messages for every number field.
///
/// The grammar: optional spaces, an optional sign, digits with an optional dot and fraction
/// (`12`, `12.5`, `12.`, `.5`, `-3`), optional spaces. Nothing else: no exponent (`1e3`), no
/// grouping (`1,000`), no comma for the decimal separator, no `inf`, `nan` or hexadecimal. What
/// is formatted parses back to the same value.
///
/// The messages, the same in every field:
/// - `enter a number` (`enter a whole number` in a field for whole numbers): nothing typed;
/// - `use a dot for decimals, as in 12.5`: a comma where the dot goes (`12,5`);
/// - `not a number`: anything else that is not of the grammar (`abc`, `1e3`, `1,000.5`);
/// - `not a whole number`, in a field for whole numbers, for all of these but the empty text,
///   and for a fraction (`4.5`; `4.0` names 4);
/// - `number too large`: of the grammar, but beyond what the field holds.
///
/// ```swift
/// NumberText.parseInteger("42")      // .success(42)
/// NumberText.parseDecimal("12,5")    // .failure("use a dot for decimals, as in 12.5")
/// NumberText.parseDecimal("1e3")     // .failure("not a number")
/// NumberText.format(12.0)            // "12"
/// NumberText.fixed(2.5, places: 2)   // "2.50"
/// ```
public enum NumberText {
    /// What is wrong with `text` by the grammar, or nil if it is a number of it (a whole number
    /// when `wholeNumber`). For a field that parses numbers of its own (an exact decimal type),
    /// so that its messages are those of every other field.
    ///
    /// ```swift
    /// NumberText.syntaxError(in: "1,5")                      // "use a dot for decimals, as in 12.5"
    /// NumberText.syntaxError(in: "2.5", wholeNumber: true)   // "not a whole number"
    /// NumberText.syntaxError(in: "12.50")                    // nil
    /// ```
    public static func syntaxError(in text: String, wholeNumber: Bool = false) -> InvalidInput? {
        let trimmed = trim(text)
        if trimmed.isEmpty { return InvalidInput(wholeNumber ? "enter a whole number" : "enter a number") }
        guard let hasFraction = decimalSyntax(trimmed) else {
            if wholeNumber { return InvalidInput("not a whole number") }
            if trimmed.contains(","), decimalSyntax(trimmed.replacingComma()) != nil {
                return InvalidInput("use a dot for decimals, as in 12.5")
            }
            return InvalidInput("not a number")
        }
        if wholeNumber, hasFraction { return InvalidInput("not a whole number") }
        return nil
    }

    /// Parses a whole number of the grammar (`12`, `-3`, `+4`; also `12.` and `12.0`, which
    /// name one).
    public static func parseInteger(_ text: String) -> Result<Int, InvalidInput> {
        if let error = syntaxError(in: text, wholeNumber: true) {
            // "12.0" names a whole number: only a fraction that is not zero is refused.
            guard decimalSyntax(trim(text)) == true, let value = wholeValue(of: trim(text)) else { return .failure(error) }
            return value
        }
        return wholeValue(of: trim(text)) ?? .failure(InvalidInput("not a whole number"))
    }

    /// The whole number `text` (of the grammar) names, if it names one.
    private static func wholeValue(of text: Substring) -> Result<Int, InvalidInput>? {
        var integer = text
        if let dot = text.firstIndex(of: ".") {
            guard text[text.index(after: dot)...].allSatisfy({ $0 == "0" }) else { return nil }
            integer = text[..<dot]
        }
        if integer.isEmpty || integer == "+" || integer == "-" { return .success(0) }
        if let value = Int(integer) { return .success(value) }
        return .failure(InvalidInput("number too large"))
    }

    /// Parses a decimal number of the grammar (`12.5`, `.5`, `-3`).
    public static func parseDecimal(_ text: String) -> Result<Double, InvalidInput> {
        if let error = syntaxError(in: text) { return .failure(error) }
        guard let value = Double(trim(text)), value.isFinite else { return .failure(InvalidInput("number too large")) }
        return .success(value)
    }

    /// The shortest text of the grammar that parses back to `value`: integral values without a
    /// fraction ("12"), others with the digits Swift prints, never with an exponent ("12.5",
    /// "0.1", "0.0000001").
    public static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 {
            let integral = Int64(value)
            return integral == 0 && value.sign == .minus ? "0" : String(integral)
        }
        return withoutExponent(value.description)
    }

    /// `1e-07` as `0.0000001`, `1.5e+20` as `150000000000000000000`: the same digits, the dot
    /// moved.
    private static func withoutExponent(_ text: String) -> String {
        guard let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }), let exponent = Int(text[text.index(after: e)...]) else { return text }
        var mantissa = text[..<e]
        let negative = mantissa.first == "-"
        if negative { mantissa = mantissa.dropFirst() }
        let dot = mantissa.firstIndex(of: ".")
        let integerDigits = dot.map { mantissa[..<$0] } ?? mantissa
        let fractionDigits = dot.map { mantissa[mantissa.index(after: $0)...] } ?? ""
        let digits = String(integerDigits) + fractionDigits
        let point = integerDigits.count + exponent   // where the dot goes among `digits`
        var plain: String
        if point <= 0 {
            plain = "0." + String(repeating: "0", count: -point) + digits
        } else if point >= digits.count {
            plain = digits + String(repeating: "0", count: point - digits.count)
        } else {
            plain = String(digits.prefix(point)) + "." + digits.dropFirst(point)
        }
        if plain.contains(".") {
            while plain.hasSuffix("0") { plain.removeLast() }
            if plain.hasSuffix(".") { plain.removeLast() }
        }
        while plain.hasPrefix("0"), plain.count > 1, !plain.hasPrefix("0.") { plain.removeFirst() }
        return negative ? "-" + plain : plain
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

    /// `[+-]? (digits [. digits?] | . digits)`: nil if `text` is not of it, else whether it has
    /// a fraction (digits after the dot).
    private static func decimalSyntax(_ text: Substring) -> Bool? {
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
        guard !integer.isEmpty || !fraction.isEmpty, rest.isEmpty else { return nil }
        return !fraction.isEmpty
    }
}

extension Substring {
    fileprivate func replacingComma() -> Substring {
        Substring(String(map { $0 == "," ? "." : $0 }))
    }
}
