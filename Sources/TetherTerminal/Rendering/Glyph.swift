/// What a terminal is sent for one cell of text, and the columns it takes (1 or 2): the one
/// place where any Unicode text becomes something a terminal draws exactly as counted.
///
/// Every character (grapheme cluster) is shown as one or more glyphs. Measuring
/// (`DisplayWidth.of`), cutting (`DisplayWidth.truncated`) and drawing (`Screen.put`) all go
/// through `Glyph.forEach(of:_:)`, so what is measured is what is drawn, whatever the text:
///
/// - Printable characters are shown as they are, at the width a `wcwidth`-based terminal
///   (tmux, xterm, VTE, the Linux console) gives them: the sum of their scalars' widths
///   (`DisplayWidth.of(_: Unicode.Scalar)`). A cluster wider than 2 columns (an Indic syllable
///   of three letters) is split into one glyph per spacing letter, each with its marks.
/// - What terminals disagree about is left out of what is sent (never out of the text itself):
///   zero-width format characters inside a cluster (the joiner of an emoji sequence, which
///   then shows as its parts side by side, bidirectional marks, tags), emoji skin-tone
///   modifiers after a base, and the emoji/text variation selectors (U+FE0E, U+FE0F).
/// - A character with nothing a terminal would draw is shown as U+FFFD in one column: control
///   characters (C0, C1, DEL, line breaks), line and paragraph separators, unassigned code
///   points and noncharacters, characters newer than `DisplayWidth.unicodeVersion`, and
///   invisible format characters on their own (U+200B zero width space, U+200E, U+2060,
///   U+FEFF). So an invisible character in a name is seen, and can be deleted.
/// - Combining marks with no letter before them are shown on a no-break space.
///
/// No glyph ever holds a byte below 0x20, and every glyph is a single `Character`.
///
/// ```swift
/// Glyph.glyphs(of: "中")                    // [中 (2)]
/// Glyph.glyphs(of: "\u{200B}")             // [� (1)]
/// Glyph.glyphs(of: "👍🏽")                   // [👍 (2)]
/// Glyph.glyphs(of: "👨‍👩‍👧")                  // [👨 (2), 👩 (2), 👧 (2)]
/// ```
public struct Glyph: Hashable, Sendable, CustomStringConvertible {
    /// What is sent to the terminal.
    public let character: Character
    /// The columns it takes: 1 or 2.
    public let width: Int

    /// The glyph shown for a character a terminal cannot draw: U+FFFD, one column.
    public static let replacement = Glyph(unchecked: "\u{FFFD}", width: 1)

    private init(unchecked character: Character, width: Int) {
        self.character = character
        self.width = width
    }

    /// `中 (2)`.
    public var description: String { "\(character) (\(width))" }

    /// The glyphs `character` is shown as, left to right (never empty).
    ///
    /// ```swift
    /// Glyph.glyphs(of: "e\u{301}")   // [é (1)]
    /// ```
    public static func glyphs(of character: Character) -> [Glyph] {
        var result: [Glyph] = []
        forEach(of: character) { result.append($0) }
        return result
    }

    /// Calls `body` with each glyph `character` is shown as, left to right (at least one).
    /// What `Screen.put` and `DisplayWidth` use; it allocates nothing for a character shown as
    /// one glyph.
    ///
    /// ```swift
    /// var columns = 0
    /// Glyph.forEach(of: "क्षि") { columns += $0.width }
    /// ```
    @inline(__always)
    public static func forEach(of character: Character, _ body: (Glyph) -> Void) {
        if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7f {
            body(Glyph(unchecked: character, width: 1))
            return
        }
        slowPath(of: character, body)
    }

    private static func slowPath(of character: Character, _ body: (Glyph) -> Void) {
        let scalars = character.unicodeScalars
        if scalars.contains(where: { !isShowable($0) }) {
            body(.replacement)
            return
        }
        if scalars.count == 1, let scalar = scalars.first {
            let width = DisplayWidth.of(scalar)
            if width > 0 {
                body(Glyph(unchecked: character, width: width))
            } else if isMark(scalar) {
                body(onNoBreakSpace(String(scalar)))
            } else {
                body(.replacement)   // an invisible format character on its own
            }
            return
        }
        // Several scalars: drop what terminals disagree about, then cut into units of one
        // spacing scalar and the zero-width scalars after it.
        var units: [(text: String, width: Int)] = []
        var previous: Unicode.Scalar?
        for scalar in scalars {
            defer { previous = scalar }
            if isDropped(scalar, after: previous) { continue }
            let width = DisplayWidth.of(scalar)
            if width > 0 || units.isEmpty {
                units.append((String(scalar), width))
            } else {
                units[units.count - 1].text.unicodeScalars.append(scalar)
            }
        }
        guard !units.isEmpty else {
            body(.replacement)   // nothing visible at all
            return
        }
        if units[0].width == 0 {
            // Zero-width scalars before any spacing one (marks the cluster starts with): a glyph
            // of their own, on a no-break space, so that no glyph starts with a scalar a
            // terminal would join to the cell before it.
            let leading = units.removeFirst()
            if let scalar = leading.text.unicodeScalars.first, isMark(scalar) {
                body(onNoBreakSpace(leading.text))
            } else if units.isEmpty {
                body(.replacement)
            }
            if units.isEmpty { return }
        }
        let total = units.reduce(0) { $0 + $1.width }
        if total <= 2 {
            // One glyph, when what is left is one character.
            let text = units.map(\.text).joined()
            if let single = single(text) {
                body(Glyph(unchecked: single, width: total))
                return
            }
        }
        for unit in units {
            if let single = single(unit.text) {
                body(Glyph(unchecked: single, width: unit.width))
            } else if let first = unit.text.unicodeScalars.first {
                // The marks do not join this scalar on their own: the scalar alone.
                body(Glyph(unchecked: Character(first), width: unit.width))
            }
        }
    }

    /// `text` as one character, if it is one.
    private static func single(_ text: String) -> Character? {
        var iterator = text.makeIterator()
        guard let first = iterator.next(), iterator.next() == nil else { return nil }
        return first
    }

    /// Combining marks shown on a no-break space (one column), or U+FFFD if they do not join it.
    private static func onNoBreakSpace(_ marks: String) -> Glyph {
        single("\u{00A0}" + marks).map { Glyph(unchecked: $0, width: 1) } ?? .replacement
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: return true
        default: return false
        }
    }

    /// Whether a terminal can draw the scalar at a width everyone agrees on.
    private static func isShowable(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x7f { return value >= 0x20 }
        if value < 0xa0 { return false }   // DEL and the C1 controls
        if value < 0x300 { return true }
        let properties = scalar.properties
        if properties.isNoncharacterCodePoint { return false }
        switch properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned: return false
        default: break
        }
        guard let age = properties.age else { return false }
        let newest = DisplayWidth.unicodeVersion
        return age.major < newest.major || (age.major == newest.major && age.minor <= newest.minor)
    }

    /// Whether the scalar is left out of what is sent for a cluster of several scalars.
    private static func isDropped(_ scalar: Unicode.Scalar, after previous: Unicode.Scalar?) -> Bool {
        let value = scalar.value
        if value == 0xfe0e || value == 0xfe0f { return true }              // text/emoji presentation
        if (0x1f3fb...0x1f3ff).contains(value), previous != nil { return true }   // skin tones
        return scalar.properties.generalCategory == .format && DisplayWidth.of(scalar) == 0
    }
}
