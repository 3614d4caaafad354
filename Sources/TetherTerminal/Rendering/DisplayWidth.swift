/// How many terminal columns text takes, as a `wcwidth`-based terminal (tmux, xterm, VTE, the
/// Linux console) shows it: 2 for East Asian wide and fullwidth characters (Chinese, Japanese,
/// Korean, fullwidth forms, emoji shown as pictures), 0 for combining marks and other
/// zero-width scalars, 1 for everything else.
///
/// Wide characters are those whose Unicode East_Asian_Width is W or F (a compact table of the
/// ranges) plus those with the `Emoji_Presentation` property. Ambiguous-width characters count
/// as 1, as in terminals configured for Western locales. Checked by a test against glibc's
/// `wcwidth` (Debian 12's, Unicode 14.0) over every scalar up to `unicodeVersion`.
///
/// A character or a string is measured by the glyphs it is shown as (`Glyph`), so its width is
/// exactly the columns `Screen.put` fills with it, whatever it holds: a control character or an
/// invisible one counts 1 (it is shown as U+FFFD), never 0.
///
/// ```swift
/// DisplayWidth.of("abc")        // 3
/// DisplayWidth.of("中文")        // 4
/// DisplayWidth.of("e\u{301}")   // 1  (e + combining acute accent)
/// DisplayWidth.of("a\u{200B}")  // 2  (the zero width space is shown as U+FFFD)
/// ```
public enum DisplayWidth {
    /// The newest Unicode version whose characters are shown as themselves: what glibc 2.36
    /// (Debian 12) knows. A terminal that does not know a character draws it at a width of
    /// its own choosing, so anything newer is shown as U+FFFD.
    public static let unicodeVersion: (major: Int, minor: Int) = (14, 0)

    /// The columns a Unicode scalar takes on its own, as `wcwidth` counts them: 0, 1 or 2.
    /// Control characters count 0 here (a `Screen` never writes them; it shows U+FFFD, and a
    /// character's or a string's width counts that).
    ///
    /// ```swift
    /// DisplayWidth.of("中" as Unicode.Scalar)   // 2
    /// ```
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7f { return value >= 0x20 ? 1 : 0 }
        if value < 0xa0 { return 0 }
        if value < 0x300 { return 1 }  // Latin-1 and Latin Extended: fast path.
        if isZeroWidth(scalar) { return 0 }
        if isWide(value) { return 2 }
        // Regional indicators are narrow on their own; a pair (a flag) is 1 + 1.
        if value >= 0x1f000 && !(0x1f1e6...0x1f1ff).contains(value) && scalar.properties.isEmojiPresentation { return 2 }
        return 1
    }

    /// The columns a character (a grapheme cluster) takes: the sum of the widths of the glyphs
    /// it is shown as (`Glyph`), at least 1.
    ///
    /// ```swift
    /// DisplayWidth.of("中" as Character)       // 2
    /// DisplayWidth.of("\u{200B}" as Character) // 1 (shown as U+FFFD)
    /// ```
    public static func of(_ character: Character) -> Int {
        var width = 0
        Glyph.forEach(of: character) { width += $0.width }
        return width
    }

    /// The columns a string takes: the sum of its characters' widths.
    ///
    /// ```swift
    /// DisplayWidth.of("Total 合计")   // 10
    /// ```
    public static func of<S: StringProtocol>(_ string: S) -> Int {
        var total = 0
        for character in string {
            if let ascii = character.asciiValue, ascii >= 0x20, ascii < 0x7f {
                total += 1
            } else {
                total += of(character)
            }
        }
        return total
    }

    /// `string` if it fits in `width` columns; otherwise its start, cut where it no longer
    /// fits, with "…" in the last column (never half of a wide character).
    ///
    /// ```swift
    /// DisplayWidth.truncated("Rutherford-Montgomery", to: 10)   // "Rutherfor…"
    /// DisplayWidth.truncated("张伟王", to: 4)                    // "张…"
    /// ```
    public static func truncated<S: StringProtocol>(_ string: S, to width: Int) -> String {
        guard width > 0 else { return "" }
        guard of(string) > width else { return String(string) }
        var result = ""
        var used = 0
        for character in string {
            let columns = of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…"
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        // Hangul Jamo medial vowels and final consonants combine with the initial consonant.
        if (0x1160...0x11ff).contains(value) || (0xd7b0...0xd7ff).contains(value) { return true }
        if value == 0x200b { return true }  // zero width space
        if value == 0x1171e { return true }  // Ahom medial ra: a combining mark to glibc
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark: return true
        case .format: return !isVisibleFormat(value)
        default: return false
        }
    }

    /// Format characters that terminals show: the soft hyphen and the prepended concatenation
    /// marks (Arabic number signs and the like).
    private static func isVisibleFormat(_ value: UInt32) -> Bool {
        switch value {
        case 0x00ad, 0x0600...0x0605, 0x06dd, 0x070f, 0x0890...0x0891, 0x08e2, 0x110bd, 0x110cd: return true
        default: return false
        }
    }

    /// Scalars whose East_Asian_Width is W or F, excluding the emoji that the
    /// `Emoji_Presentation` check covers (Unicode 15.1 EastAsianWidth.txt, merged ranges).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115f,  // Hangul Jamo initial consonants
        0x231a...0x231b, 0x2329...0x232a, 0x23e9...0x23ec, 0x23f0...0x23f0, 0x23f3...0x23f3,
        0x25fd...0x25fe, 0x2614...0x2615, 0x2648...0x2653, 0x267f...0x267f, 0x2693...0x2693,
        0x26a1...0x26a1, 0x26aa...0x26ab, 0x26bd...0x26be, 0x26c4...0x26c5, 0x26ce...0x26ce,
        0x26d4...0x26d4, 0x26ea...0x26ea, 0x26f2...0x26f3, 0x26f5...0x26f5, 0x26fa...0x26fa,
        0x26fd...0x26fd, 0x2705...0x2705, 0x270a...0x270b, 0x2728...0x2728, 0x274c...0x274c,
        0x274e...0x274e, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797, 0x27b0...0x27b0,
        0x27bf...0x27bf, 0x2b1b...0x2b1c, 0x2b50...0x2b50, 0x2b55...0x2b55,
        0x2e80...0x2e99, 0x2e9b...0x2ef3, 0x2f00...0x2fd5, 0x2ff0...0x303e,  // CJK radicals, symbols
        0x3041...0x3096, 0x3099...0x30ff,  // Hiragana, Katakana
        0x3105...0x312f, 0x3131...0x318e, 0x3190...0x31e3, 0x31ef...0x321e,
        0x3220...0xa48c,  // enclosed CJK (U+3248...U+324F, ambiguous, are wide to glibc and tmux), CJK extension A, Yijing hexagrams, CJK unified ideographs, Yi
        0xa490...0xa4c6,
        0xa960...0xa97c,  // Hangul Jamo extended A
        0xac00...0xd7a3,  // Hangul syllables
        0xf900...0xfaff,  // CJK compatibility ideographs
        0xfe10...0xfe19, 0xfe30...0xfe52, 0xfe54...0xfe66, 0xfe68...0xfe6b,  // vertical, small forms
        0xff01...0xff60, 0xffe0...0xffe6,  // fullwidth forms
        0x16fe0...0x16fe4, 0x16ff0...0x16ff1, 0x17000...0x187f7, 0x18800...0x18cd5,
        0x18d00...0x18d08, 0x1aff0...0x1affe, 0x1b000...0x1b122, 0x1b132...0x1b132,
        0x1b150...0x1b152, 0x1b155...0x1b155, 0x1b164...0x1b167, 0x1b170...0x1b2fb,
        0x1f004...0x1f004, 0x1f0cf...0x1f0cf, 0x1f18e...0x1f18e, 0x1f191...0x1f19a,
        0x1f200...0x1f202, 0x1f210...0x1f23b, 0x1f240...0x1f248, 0x1f250...0x1f251,
        0x1f260...0x1f265,
        0x20000...0x2fffd, 0x30000...0x3fffd,  // CJK extensions B and beyond
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        // Binary search over the sorted ranges.
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lowerBound {
                high = middle - 1
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
