import Testing
import TetherTerminal

@Suite struct GlyphTests {
    /// The glyphs of each character of `text`, as "text:width" for each.
    private func glyphs(_ text: String) -> [String] {
        text.flatMap { Glyph.glyphs(of: $0) }.map { "\($0.character):\($0.width)" }
    }

    @Test func invisibleCharactersOnTheirOwnAreShownAsTheReplacementCharacter() {
        for invisible in ["\u{200B}", "\u{200E}", "\u{200F}", "\u{2060}", "\u{FEFF}", "\u{061C}", "\u{E0067}"] {
            #expect(glyphs(invisible) == ["\u{FFFD}:1"], "\(invisible.unicodeScalars.first!.value)")
        }
    }

    @Test func controlsSeparatorsUnassignedAndNoncharactersAreShownAsTheReplacementCharacter() {
        for character in ["\u{7}", "\u{1b}", "\r\n", "\u{7f}", "\u{85}", "\u{9b}", "\u{2028}", "\u{2029}", "\u{0378}", "\u{FFFE}", "\u{10FFFF}"] {
            #expect(glyphs(character) == ["\u{FFFD}:1"], "\(character.unicodeScalars.map(\.value))")
        }
        // Newer than the terminal's Unicode (glibc 2.36 knows 14.0): its width is anyone's guess.
        #expect(glyphs("\u{1FAE8}") == ["\u{FFFD}:1"])
    }

    @Test func whatTerminalsDisagreeAboutIsLeftOutOfWhatIsSent() {
        #expect(glyphs("👍🏽") == ["👍:2"])                                  // skin tone
        #expect(glyphs("❤\u{FE0F}") == ["❤:1"])                            // emoji presentation selector
        #expect(glyphs("👨\u{200D}👩\u{200D}👧") == ["👨:2", "👩:2", "👧:2"])  // a ZWJ sequence: its parts
        #expect(glyphs("🏴\u{E0067}\u{E0062}\u{E007F}") == ["🏴:2"])          // tags
        #expect(glyphs("#\u{FE0F}\u{20E3}") == ["#\u{20E3}:1"])             // keycap
    }

    @Test func clustersAreAsWideAsWcwidthTerminalsDrawThem() {
        #expect(glyphs("कि") == ["कि:2"])                  // a spacing vowel sign: 1 + 1
        #expect(glyphs("क्षि") == ["क्:1", "ष:1", "\u{093F}:1"])   // 1 + 0 + 1 + 1: wider than 2, split
        #expect(glyphs("क्ष्म") == ["क्:1", "ष्:1", "म:1"])   // three letters: one glyph each
        #expect(glyphs("กำ") == ["กำ:2"])
        #expect(glyphs("\u{1100}\u{1161}\u{11A8}") == ["\u{1100}\u{1161}\u{11A8}:2"])
        #expect(glyphs("🇺🇸") == ["🇺🇸:2"])
        #expect(glyphs("e\u{301}") == ["e\u{301}:1"])
    }

    @Test func marksWithNothingBeforeThemAreShownOnANoBreakSpace() {
        #expect(glyphs("\u{301}") == ["\u{A0}\u{301}:1"])
        #expect(glyphs("\u{20DD}") == ["\u{A0}\u{20DD}:1"])
        // A Hangul vowel on its own joins nothing a no-break space can carry.
        #expect(glyphs("\u{1161}") == ["\u{FFFD}:1"])
    }

    @Test func widthIsWhatTheGlyphsTake() {
        #expect(DisplayWidth.of("Grace\u{200B}Hopper") == 12)
        #expect(DisplayWidth.of("a\u{7}b") == 3)
        #expect(DisplayWidth.of("👨\u{200D}👩\u{200D}👧") == 6)
        var screen = Screen(size: Size(width: 14, height: 1))
        #expect(screen.put("Grace\u{200B}Hopper", at: Position(x: 0, y: 0)) == 12)
        #expect(screen.lines == ["Grace\u{FFFD}Hopper  "])
    }
}
