import Testing
import TetherTerminal

@Suite struct DisplayWidthTests {
    @Test func truncatedKeepsTheStartAndMarksTheCut() {
        #expect(DisplayWidth.truncated("Rutherford-Montgomery", to: 10) == "Rutherfor…")
        #expect(DisplayWidth.truncated("short", to: 10) == "short")
        #expect(DisplayWidth.truncated("exactly10!", to: 10) == "exactly10!")
        #expect(DisplayWidth.truncated("张伟王", to: 4) == "张…", "never half of a wide character")
        #expect(DisplayWidth.truncated("张伟王", to: 5) == "张伟…")
        #expect(DisplayWidth.truncated("abc", to: 0) == "")
        #expect(DisplayWidth.truncated("abc", to: 1) == "…")
    }

    @Test func asciiIsOneColumnEach() {
        #expect(DisplayWidth.of("Invoice 42") == 10)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func eastAsianWideAndFullwidthAreTwoColumns() {
        #expect(DisplayWidth.of("中文") == 4)
        #expect(DisplayWidth.of("かな") == 4)        // Hiragana
        #expect(DisplayWidth.of("カナ") == 4)        // Katakana
        #expect(DisplayWidth.of("한국어") == 6)       // Hangul syllables
        #expect(DisplayWidth.of("ＡＢ") == 4)        // fullwidth Latin
        #expect(DisplayWidth.of("\u{3000}") == 2)   // ideographic space
        #expect(DisplayWidth.of("。") == 2)          // ideographic full stop
        #expect(DisplayWidth.of("\u{20000}") == 2)  // CJK extension B
    }

    @Test func emojiPresentationIsTwoColumns() {
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)          // with a skin tone modifier: one cluster
        #expect(DisplayWidth.of("⌚") == 2)
        #expect(DisplayWidth.of("🇨🇳") == 2)          // a flag: two regional indicators
        #expect(DisplayWidth.of("\u{1F1E8}" as Unicode.Scalar) == 1)  // one on its own
    }

    @Test func visibleFormatCharactersTakeAColumn() {
        #expect(DisplayWidth.of("\u{00AD}" as Unicode.Scalar) == 1)  // soft hyphen
        #expect(DisplayWidth.of("\u{0600}" as Unicode.Scalar) == 1)  // Arabic number sign
        #expect(DisplayWidth.of("\u{2060}" as Unicode.Scalar) == 0)  // word joiner
    }

    @Test func combiningMarksAndJoinersAddNothing() {
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("\u{301}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{200D}" as Unicode.Scalar) == 0)  // zero width joiner
        #expect(DisplayWidth.of("\u{200B}" as Unicode.Scalar) == 0)  // zero width space
        #expect(DisplayWidth.of("\u{1161}" as Unicode.Scalar) == 0)  // Hangul medial vowel
        #expect(DisplayWidth.of("\u{1100}\u{1161}") == 2)            // conjoining Jamo: one syllable
    }

    @Test func narrowNonASCII() {
        #expect(DisplayWidth.of("café") == 4)
        #expect(DisplayWidth.of("Ωπ") == 2)
        #expect(DisplayWidth.of("·") == 1)           // ambiguous width counts 1
        #expect(DisplayWidth.of("\u{FFFD}") == 1)
    }

    @Test func controlCharactersTakeNoColumnsAsScalarsButOneShownInText() {
        #expect(DisplayWidth.of("\u{7}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{9b}" as Unicode.Scalar) == 0)
        // In text they are shown as U+FFFD, and measured so.
        #expect(DisplayWidth.of("a\u{7}b\u{9b}") == 4)
        #expect(DisplayWidth.of("\u{1b}[31m") == 5)
    }

    @Test func everyScalarIsAsWideAsGlibcsWcwidthSays() {
        // Every scalar a terminal knows (Unicode up to `DisplayWidth.unicodeVersion`), but the
        // controls, which are never sent.
        var disagreements: [String] = []
        for value in UInt32(0xa0)...0x10ffff {
            guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age,
                  age.major < 14 || (age.major == 14 && age.minor == 0) else { continue }
            let glibc = WcwidthTerminal.columns(scalar)
            guard glibc >= 0 else {
                // glibc cannot show it: it is never sent.
                if Glyph.glyphs(of: Character(scalar)) != [.replacement] { disagreements.append("sent: " + String(value, radix: 16)) }
                continue
            }
            if DisplayWidth.of(scalar) != glibc { disagreements.append(String(value, radix: 16)) }
        }
        #expect(disagreements == [])
    }

    @Test func mixedText() {
        #expect(DisplayWidth.of("Total 合计") == 10)
    }
}
