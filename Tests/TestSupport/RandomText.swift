
/// Random text from every corner of Unicode, for fuzzing: scalars of every general category
/// (controls, format characters, marks alone, line and paragraph separators, private use,
/// unassigned code points, noncharacters, the neighbours of the surrogates, the last scalar),
/// and the sequences terminals disagree about (emoji joined by ZWJ, skin tones, flags and tag
/// flags, keycaps, variation selectors, Indic conjuncts, Hangul jamo, right-to-left text with
/// bidirectional controls), escape sequences as text, CR LF.
public enum RandomText {
    /// Scalars by general category, found once by walking every scalar.
    private static let pools: [[Unicode.Scalar]] = {
        var byCategory: [String: [Unicode.Scalar]] = [:]
        for value in UInt32(0)...0x10ffff {
            guard let scalar = Unicode.Scalar(value) else { continue }
            byCategory["\(scalar.properties.generalCategory)", default: []].append(scalar)
        }
        return byCategory.keys.sorted().compactMap { byCategory[$0] }
    }()

    /// Pieces that are not single random scalars.
    public static let sequences: [String] = [
        "👨\u{200D}👩\u{200D}👧", "🧑\u{200D}💻", "👍🏽", "☝🏽", "🏽", "🇺🇸", "🇨🇳🇯", "🇦",
        "🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}", "#\u{FE0F}\u{20E3}", "❤\u{FE0F}", "⚠\u{FE0E}",
        "क्षि", "क्ष्म", "कि", "กำ", "\u{1100}\u{1161}\u{11A8}", "\u{1161}", "가\u{11A8}",
        "שָׁלוֹם", "\u{200F}عربى\u{200E}", "\u{202E}abc\u{202C}", "\u{2066}x\u{2069}", "\u{061C}",
        "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}", "\u{00AD}", "\u{0600}\u{0661}",
        "e\u{301}", "\u{301}", "\u{20DD}", "\u{0488}", "a\u{200D}", "\u{1b}[31m", "\u{1b}[2J", "\u{1b}]0;x\u{7}",
        "\r\n", "\n", "\t", "\u{7f}", "\u{85}", "\u{9b}", "\u{2028}", "\u{2029}", "\u{D7FF}", "\u{E000}",
        "\u{FFFD}", "\u{FFFE}", "\u{FFFF}", "\u{10FFFF}", "\u{10FFFD}", "\u{1FAE8}", "\u{3248}", "\u{1171E}",
        "中文", "張伟", "Ａ", "\u{3000}", "ab", " ", "0", "12.5", "-", "1e3",
    ]

    /// A random piece: a scalar of a random category, or a sequence.
    public static func piece(_ random: inout SeededRandom) -> String {
        if random.chance(30) { return sequences[random.below(sequences.count)] }
        if random.chance(20) { return String(Character(Unicode.Scalar(UInt8(random.within(0x20...0x7e))))) }
        let pool = pools[random.below(pools.count)]
        return String(pool[random.below(pool.count)])
    }

    /// Random text of up to `maximum` pieces (often short, sometimes long).
    public static func text(_ random: inout SeededRandom, maximum: Int = 40) -> String {
        let count = random.chance(10) ? random.below(maximum * 5 + 1) : random.below(maximum + 1)
        var text = ""
        for _ in 0..<count { text += piece(&random) }
        return text
    }
}
