import Testing
@testable import TetherTerminal

/// Decodes `bytes` in one chunk, then flushes.
private func keys(_ bytes: [UInt8]) -> [Key] {
    var decoder = KeyDecoder()
    return decoder.decode(bytes) + decoder.flush()
}

private func keys(_ text: String) -> [Key] { keys(Array(text.utf8)) }

/// Decodes `bytes` split at every possible pair of cut points, and checks that every split
/// gives `expected` (streaming must not depend on where reads end).
private func expectSameForEverySplit(_ bytes: [UInt8], _ expected: [Key], sourceLocation: SourceLocation = #_sourceLocation) {
    for first in 0...bytes.count {
        for second in first...bytes.count {
            var decoder = KeyDecoder()
            var result = decoder.decode(bytes[0..<first])
            result += decoder.decode(bytes[first..<second])
            result += decoder.decode(bytes[second...])
            result += decoder.flush()
            #expect(result == expected, "split at \(first), \(second)", sourceLocation: sourceLocation)
        }
    }
}

private let esc: UInt8 = 0x1b

@Suite struct KeyDecoderTests {
    @Test func printableASCII() {
        #expect(keys("aZ 9~") == [.character("a"), .character("Z"), .character(" "), .character("9"), .character("~")])
    }

    @Test func multibyteUTF8() {
        #expect(keys("é中文😀") == [.character("é"), .character("中"), .character("文"), .character("😀")])
    }

    @Test func multibyteUTF8SplitAcrossChunks() {
        let bytes = Array("a中😀b".utf8)
        expectSameForEverySplit(bytes, [.character("a"), .character("中"), .character("😀"), .character("b")])
    }

    @Test func chineseSentByteByByte() {
        var decoder = KeyDecoder()
        var result: [Key] = []
        for byte in "客户".utf8 {
            result += decoder.decode([byte])
        }
        #expect(result == [.character("客"), .character("户")])
        #expect(!decoder.hasPendingInput)
    }

    @Test func combiningMarkArrivesAsItsOwnKey() {
        // A combining accent typed after "e" is a key of its own; a String merges the two.
        #expect(keys("e\u{301}") == [.character("e"), .character("\u{301}")])
    }

    @Test func enterTabBackspace() {
        #expect(keys([0x0d, 0x0a, 0x09, 0x7f, 0x08]) == [.enter, .enter, .tab, .backspace, .backspace])
    }

    @Test func controlLetters() {
        #expect(keys([0x01, 0x03, 0x11, 0x1a]) == [.control("a"), .control("c"), .control("q"), .control("z")])
        #expect(keys([0x00, 0x1c, 0x1d, 0x1e, 0x1f]) == [.control("@"), .control("\\"), .control("]"), .control("^"), .control("_")])
    }

    @Test func shiftTab() {
        #expect(keys([esc, 0x5b, 0x5a]) == [.backTab])
    }

    @Test func arrowsInCSIAndSS3Form() {
        #expect(keys("\u{1b}[A\u{1b}[B\u{1b}[C\u{1b}[D") == [.up, .down, .right, .left])
        #expect(keys("\u{1b}OA\u{1b}OB\u{1b}OC\u{1b}OD") == [.up, .down, .right, .left])
    }

    @Test func modifiedArrowsDecodeToThePlainKey() {
        #expect(keys("\u{1b}[1;5A\u{1b}[1;2D") == [.up, .left])
    }

    @Test func homeEndInEveryForm() {
        #expect(keys("\u{1b}[H\u{1b}[F\u{1b}OH\u{1b}OF") == [.home, .end, .home, .end])
        #expect(keys("\u{1b}[1~\u{1b}[4~\u{1b}[7~\u{1b}[8~") == [.home, .end, .home, .end])
    }

    @Test func deleteInsertPageUpPageDown() {
        #expect(keys("\u{1b}[3~\u{1b}[2~\u{1b}[5~\u{1b}[6~") == [.delete, .insert, .pageUp, .pageDown])
    }

    @Test func functionKeys() {
        #expect(keys("\u{1b}OP\u{1b}OS\u{1b}[15~\u{1b}[24~") == [.function(1), .function(4), .function(5), .function(12)])
    }

    @Test func escapeAloneNeedsAFlush() {
        var decoder = KeyDecoder()
        #expect(decoder.decode([esc]) == [])
        #expect(decoder.hasPendingInput)
        #expect(decoder.flush() == [.escape])
        #expect(!decoder.hasPendingInput)
        #expect(decoder.flush() == [])
    }

    @Test func escapeFollowedByAnotherKeyIsEscapeThenThatKey() {
        #expect(keys([esc, esc]) == [.escape, .escape])
        #expect(keys([esc, esc, 0x5b, 0x41]) == [.escape, .up])
        #expect(keys([esc, 0x0d]) == [.escape, .enter])
    }

    @Test func sequencesSplitAcrossChunks() {
        let bytes = Array("\u{1b}[A\u{1b}[3~\u{1b}OB\u{1b}[1;5C\u{1b}[1;2C\u{1b}[Z".utf8)
        expectSameForEverySplit(bytes, [.up, .delete, .down, .controlRight, .right, .backTab])
    }

    @Test func altKeysAndWordMovesAreTheirOwnKeys() {
        // Escape then a printable character: an Alt chord (what M-b sends), not Esc and "b".
        #expect(keys([esc, 0x62]) == [.alt("b")])
        #expect(keys("\u{1b}f") == [.alt("f")])
        // Ctrl and Alt with Left/Right move by word; Shift does not.
        #expect(keys("\u{1b}[1;5D\u{1b}[1;3D\u{1b}[1;5C\u{1b}[1;3C\u{1b}[1;2D") == [.controlLeft, .controlLeft, .controlRight, .controlRight, .left])
        // Esc pressed alone, then a key after a pause, stays Esc then the key.
        var decoder = KeyDecoder()
        #expect(decoder.decode([esc]) == [])
        #expect(decoder.flush() == [.escape])
        #expect(decoder.decode([0x62]) == [.character("b")])
    }

    @Test func aBracketedPasteIsTextNeverKeys() {
        let paste = "Ada\tLovelace\r\nq\u{1b}[A 张伟"
        let bytes = Array(("x\u{1b}[200~" + paste + "\u{1b}[201~y").utf8)
        expectSameForEverySplit(bytes, [.character("x"), .paste(paste), .character("y")])
        // A paste arriving in several reads, with pauses: flushing in between keeps it whole.
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1b}[200~abc".utf8)) == [])
        #expect(decoder.isPasting && !decoder.hasPendingInput)
        #expect(decoder.flush() == [])
        #expect(decoder.decode(Array("def\u{1b}[20".utf8)) == [])
        #expect(decoder.flush() == [])
        #expect(decoder.decode(Array("1~z".utf8)) == [.paste("abcdef"), .character("z")])
        #expect(!decoder.isPasting)
    }

    @Test func unknownSequenceBecomesUnknownAndFollowingKeysSurvive() {
        #expect(keys("\u{1b}[99x" + "ab") == [.unknown(Array("\u{1b}[99x".utf8)), .character("a"), .character("b")])
        #expect(keys("\u{1b}[42~q") == [.unknown(Array("\u{1b}[42~".utf8)), .character("q")])
        #expect(keys("\u{1b}Ox\u{1b}[A") == [.unknown(Array("\u{1b}Ox".utf8)), .up])
        // Private-mode reports (never asked for) are unknown too.
        #expect(keys("\u{1b}[?1;2c") == [.unknown(Array("\u{1b}[?1;2c".utf8))])
    }

    @Test func sequenceInterruptedByAnotherSequence() {
        // A truncated CSI followed by a complete one: the first is unknown, the second decodes.
        #expect(keys("\u{1b}[1;\u{1b}[B") == [.unknown(Array("\u{1b}[1;".utf8)), .down])
        #expect(keys("\u{1b}O\u{1b}[A") == [.unknown(Array("\u{1b}O".utf8)), .up])
    }

    @Test func sequenceInterruptedByAControlByteOrText() {
        #expect(keys("\u{1b}[1\r") == [.unknown(Array("\u{1b}[1".utf8)), .enter])
        #expect(keys(Array("\u{1b}[".utf8) + Array("中".utf8)) == [.unknown([esc, 0x5b]), .character("中")])
    }

    @Test func truncatedSequenceAtFlushIsUnknown() {
        var decoder = KeyDecoder()
        #expect(decoder.decode(Array("\u{1b}[1;5".utf8)) == [])
        #expect(decoder.flush() == [.unknown(Array("\u{1b}[1;5".utf8))])
        // The decoder is usable afterwards.
        #expect(decoder.decode(Array("\u{1b}[A".utf8)) == [.up])
    }

    @Test func overlongSequenceIsCutAndDecodingContinues() {
        let long = "\u{1b}[" + String(repeating: "1", count: 100) + "A"
        let result = keys(long + "z")
        #expect(result.first == .unknown([esc, 0x5b] + Array(repeating: 0x31, count: 30)))
        #expect(result.last == .character("z"))
        // Every other byte of the overlong sequence came out as a character, nothing lost.
        #expect(result.count == 1 + 70 + 1 + 1)
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        let replacement = Key.character("\u{FFFD}")
        // A stray continuation byte, an impossible byte, an overlong lead.
        #expect(keys([0x80, 0x61]) == [replacement, .character("a")])
        #expect(keys([0xff, 0xc0, 0x62]) == [replacement, replacement, .character("b")])
        // A lead byte followed by a non-continuation: one replacement, then the byte.
        #expect(keys([0xe4, 0xb8, 0x41]) == [replacement, .character("A")])
        // A surrogate (ED A0 80) is not valid UTF-8.
        #expect(keys([0xed, 0xa0, 0x80]) == [replacement, replacement, replacement])
        // A truncated character at flush.
        #expect(keys([0xe4, 0xb8]) == [replacement])
        // A lead byte interrupted by an escape sequence.
        #expect(keys([0xe4, esc, 0x5b, 0x41]) == [replacement, .up])
    }

    @Test func c1ControlsAreUnknown() {
        #expect(keys([0xc2, 0x9b, 0x41]) == [.unknown([0xc2, 0x9b]), .character("A")])
    }

    @Test func mixedStreamSplitEverywhere() {
        let bytes = Array("x\u{1b}[D中\r".utf8) + [0x7f, 0x03]
        expectSameForEverySplit(bytes, [.character("x"), .left, .character("中"), .enter, .backspace, .control("c")])
    }

    @Test func keyDescriptions() {
        #expect(Key.control("c").description == "Ctrl-C")
        #expect(Key.backTab.description == "Shift-Tab")
        #expect(Key.unknown([0x1b, 0x5b, 0x39]).description == "Unknown(1b 5b 39)")
        #expect(Key.character("中").description == "\"中\"")
    }
}
