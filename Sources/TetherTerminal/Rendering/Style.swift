/// A terminal color: the terminal's default, one of the 16 ANSI colors, one of the 256 indexed
/// colors, or a 24-bit color.
///
/// ```swift
/// let warning = Style(foreground: .red, attributes: .bold)
/// ```
public enum Color: Hashable, Sendable {
    /// The terminal's default foreground or background.
    case `default`
    /// An ANSI color, 0...15 (0-7 normal, 8-15 bright); see the named constants.
    case ansi(UInt8)
    /// A color of the 256-color palette.
    case indexed(UInt8)
    /// A 24-bit color.
    case rgb(UInt8, UInt8, UInt8)

    /// ANSI black.
    public static let black = Color.ansi(0)
    /// ANSI red.
    public static let red = Color.ansi(1)
    /// ANSI green.
    public static let green = Color.ansi(2)
    /// ANSI yellow.
    public static let yellow = Color.ansi(3)
    /// ANSI blue.
    public static let blue = Color.ansi(4)
    /// ANSI magenta.
    public static let magenta = Color.ansi(5)
    /// ANSI cyan.
    public static let cyan = Color.ansi(6)
    /// ANSI white (light gray on most terminals).
    public static let white = Color.ansi(7)
    /// ANSI bright black (dark gray).
    public static let gray = Color.ansi(8)
}

/// Text attributes of a cell.
///
/// ```swift
/// let emphasis: Attributes = [.bold, .underline]
/// ```
public struct Attributes: OptionSet, Hashable, Sendable {
    /// The bits.
    public let rawValue: UInt8
    /// Creates attributes from their bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bold (SGR 1).
    public static let bold = Attributes(rawValue: 1 << 0)
    /// Dim, faint (SGR 2).
    public static let dim = Attributes(rawValue: 1 << 1)
    /// Italic (SGR 3).
    public static let italic = Attributes(rawValue: 1 << 2)
    /// Underline (SGR 4).
    public static let underline = Attributes(rawValue: 1 << 3)
    /// Reverse video (SGR 7).
    public static let reverse = Attributes(rawValue: 1 << 4)
}

/// How a cell looks: colors and attributes.
///
/// ```swift
/// screen.put("Total", at: Position(x: 0, y: 3), style: Style(attributes: .bold))
/// ```
public struct Style: Hashable, Sendable {
    /// The text color.
    public var foreground: Color
    /// The background color.
    public var background: Color
    /// Bold, dim, underline, reverse...
    public var attributes: Attributes

    /// Creates a style; every part defaults to the terminal's default.
    public init(foreground: Color = .default, background: Color = .default, attributes: Attributes = []) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }

    /// The terminal's default look.
    public static let plain = Style()
    /// Bold text.
    public static let bold = Style(attributes: .bold)
    /// Dim text.
    public static let dim = Style(attributes: .dim)
    /// Underlined text.
    public static let underline = Style(attributes: .underline)
    /// Reverse video.
    public static let reverse = Style(attributes: .reverse)

    /// This style with `attributes` added.
    ///
    /// ```swift
    /// let focused = theme.field.adding(.reverse)
    /// ```
    public func adding(_ attributes: Attributes) -> Style {
        var copy = self
        copy.attributes.formUnion(attributes)
        return copy
    }
}
