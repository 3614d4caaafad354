import Testing
import TetherTerminal

private func screen(_ rows: [String], width: Int? = nil, cursor: Position? = nil) -> Screen {
    var screen = Screen(size: Size(width: width ?? rows.map { DisplayWidth.of($0) }.max() ?? 0, height: rows.count))
    for (y, row) in rows.enumerated() { screen.put(row, at: Position(x: 0, y: y)) }
    screen.cursor = cursor
    return screen
}

private let clearPrefix = "\u{1b}[?25l\u{1b}[m\u{1b}[H\u{1b}[2J"

@Suite struct FrameRendererTests {
    @Test func firstFrameIsAFullRedraw() {
        var renderer = FrameRenderer()
        let bytes = renderer.render(screen(["ab   ", "     "], cursor: Position(x: 2, y: 0)))
        #expect(bytes == clearPrefix + "ab" + "\u{1b}[?25h")
    }

    @Test func fullRedrawSkipsBlankCellsAndUsesShortMoves() {
        let bytes = FrameRenderer.fullRedraw(screen(["a  b", "    ", "c   "]))
        // "a", two blanks rewritten as-is (cheaper than a move), "b"; row 1 is blank; row 2
        // starts with an absolute move. No cursor: it stays hidden.
        #expect(bytes == clearPrefix + "a  b" + "\u{1b}[3Hc")
    }

    @Test func identicalFramesSendNothing() {
        let frame = screen(["hello", "world"], cursor: Position(x: 1, y: 1))
        #expect(FrameRenderer.update(from: frame, to: frame) == "")
    }

    @Test func onlyTheChangedCellsAreSent() {
        let old = screen(["hello world", "           "])
        let new = screen(["hello World", "   x       "])
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;7HW\u{1b}[2;4Hx")
    }

    @Test func typingACharacterAtTheCursorSendsOnlyThatCharacter() {
        let old = screen(["Name: ab   "], cursor: Position(x: 8, y: 0))
        let new = screen(["Name: abc  "], cursor: Position(x: 9, y: 0))
        // The terminal's cursor is already at column 8: write "c", and the cursor ends at 9.
        #expect(FrameRenderer.update(from: old, to: new) == "c")
    }

    @Test func backspaceMovesLeftAndBlanks() {
        let old = screen(["abc  "], cursor: Position(x: 3, y: 0))
        let new = screen(["ab   "], cursor: Position(x: 2, y: 0))
        // Move left one, write a space (the terminal's cursor is then at 3), move back.
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[D \u{1b}[D")
    }

    @Test func shortGapsAreRewrittenInsteadOfMovedOver() {
        let old = screen(["abcdefgh"])
        let new = screen(["AbCdefgH"])
        // After "A": rewrite "b" (1 byte) rather than move; after "C": move right 4 (4 bytes)
        // rather than rewrite "defg".
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1HAbC\u{1b}[4CH")
    }

    @Test func stylesAreSentWhenTheyChangeAndResetAtTheEnd() {
        let old = screen(["total 10"])
        var new = old
        new.put("12", at: Position(x: 6, y: 0), style: Style(foreground: .green, attributes: .bold))
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;7H\u{1b}[0;1;32m12\u{1b}[m")
    }

    @Test func aStyleChangeAloneIsAChange() {
        let old = screen(["ab"])
        var new = old
        new.restyle(Rect(x: 1, y: 0, width: 1, height: 1), style: .reverse)
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;2H\u{1b}[0;7mb\u{1b}[m")
    }

    @Test func wideCharactersAreWrittenOnceAndAdvanceTwoColumns() {
        let old = screen(["      "])
        let new = screen(["中文x "])
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1H中文x")
    }

    @Test func narrowOverWideRewritesBothHalves() {
        let old = screen(["中文  "])
        let new = screen(["ab文  "])
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1Hab")
    }

    @Test func wideOverNarrow() {
        let old = screen(["abcd"])
        let new = screen(["a中d"])
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;2H中")
    }

    @Test func cursorIsPlacedWhereTheUserTypes() {
        let old = screen(["Qty: 1    ", "Total: 5  "], cursor: Position(x: 6, y: 0))
        let new = screen(["Qty: 12   ", "Total: 60 "], cursor: Position(x: 7, y: 0))
        // "2" at the cursor, then the total, then back to the field.
        #expect(FrameRenderer.update(from: old, to: new) == "2\u{1b}[2;8H60\u{1b}[1;8H")
    }

    @Test func cursorShownAndHidden() {
        let hidden = screen(["ab"])
        let shown = screen(["ab"], cursor: Position(x: 1, y: 0))
        #expect(FrameRenderer.update(from: hidden, to: shown) == "\u{1b}[1;2H\u{1b}[?25h")
        #expect(FrameRenderer.update(from: shown, to: hidden) == "\u{1b}[?25l")
    }

    @Test func cursorOutsideTheScreenIsClamped() {
        let old = screen(["ab"])
        let new = screen(["ab"], cursor: Position(x: 5, y: 3))
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;2H\u{1b}[?25h")
    }

    @Test func writingTheLastColumnForgetsTheCursorPosition() {
        // After writing in the last column the terminal holds a pending wrap, so the next
        // move is absolute even though it looks like "the next row, column 0".
        let old = screen(["abc", "def"])
        let new = screen(["abX", "Yef"])
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;3HX\u{1b}[2HY")
    }

    @Test func nextRowStartUsesCarriageReturnLineFeed() {
        let old = screen(["abc ", "def "])
        let new = screen(["abC ", "Def "])
        #expect(FrameRenderer.update(from: old, to: new) == "\u{1b}[1;3HC\r\nD")
    }

    @Test func resizeForcesAFullRedraw() {
        var renderer = FrameRenderer()
        _ = renderer.render(screen(["abc", "def"]))
        #expect(renderer.render(screen(["abc", "deF"])) == "\u{1b}[2;3HF")
        let resized = renderer.render(screen(["abc ", "deF "]))
        #expect(resized == clearPrefix + "abc\r\ndeF")
        #expect(renderer.previous?.size == Size(width: 4, height: 2))
    }

    @Test func invalidateForcesAFullRedraw() {
        var renderer = FrameRenderer()
        let frame = screen(["ab"])
        _ = renderer.render(frame)
        #expect(renderer.render(frame) == "")
        renderer.invalidate()
        #expect(renderer.render(frame) == clearPrefix + "ab")
    }

    @Test func ansiStyleEncoding() {
        #expect(ANSI.style(.plain) == "\u{1b}[m")
        #expect(ANSI.style(Style(foreground: .red, background: .ansi(12), attributes: [.dim, .underline])) == "\u{1b}[0;2;4;31;104m")
        #expect(ANSI.style(Style(foreground: .indexed(208), background: .rgb(1, 2, 3))) == "\u{1b}[0;38;5;208;48;2;1;2;3m")
        #expect(ANSI.moveTo(Position(x: 0, y: 4)) == "\u{1b}[5H")
        #expect(ANSI.moveTo(Position(x: 9, y: 4)) == "\u{1b}[5;10H")
    }
}
