import Testing
import TetherTerminal

@Suite struct ScreenTests {
    @Test func newScreenIsBlankWithHiddenCursor() {
        let screen = Screen(size: Size(width: 3, height: 2))
        #expect(screen.lines == ["   ", "   "])
        #expect(screen.cursor == nil)
        #expect(screen[2, 1] == .blank)
    }

    @Test func putPlacesTextAndReturnsTheNextColumn() {
        var screen = Screen(size: Size(width: 8, height: 1))
        let end = screen.put("abc", at: Position(x: 2, y: 0), style: .bold)
        #expect(end == 5)
        #expect(screen.lines == ["  abc   "])
        #expect(screen[2, 0] == Cell("a", style: .bold))
        #expect(screen[5, 0] == .blank)
    }

    @Test func wideCharactersTakeTwoCells() {
        var screen = Screen(size: Size(width: 6, height: 1))
        let end = screen.put("中a文", at: Position(x: 0, y: 0))
        #expect(end == 5)
        #expect(screen[0, 0] == Cell("中", width: 2))
        #expect(screen[1, 0].isContinuation)
        #expect(screen[2, 0] == Cell("a"))
        #expect(screen[3, 0] == Cell("文", width: 2))
        #expect(screen[4, 0].isContinuation)
        #expect(screen.lines == ["中a文 "])
        #expect(DisplayWidth.of(screen.lines[0]) == 6)
    }

    @Test func clippingAtTheRightEdgeNeverSplitsAWideCharacter() {
        var screen = Screen(size: Size(width: 5, height: 1))
        let end = screen.put("ab中文", at: Position(x: 0, y: 0), style: .underline)
        // 文 would need columns 4 and 5: a space takes column 4.
        #expect(end == 5)
        #expect(screen.lines == ["ab中 "])
        #expect(screen[4, 0] == Cell(" ", style: .underline))
    }

    @Test func clippingAtALimit() {
        var screen = Screen(size: Size(width: 8, height: 1))
        let end = screen.put("中文字", at: Position(x: 1, y: 0), limit: 4)
        #expect(end == 4)
        #expect(screen.lines == [" 中     "])
        #expect(screen[3, 0] == .blank)
        #expect(screen[4, 0] == .blank)
    }

    @Test func textOutsideTheScreenIsIgnored() {
        var screen = Screen(size: Size(width: 3, height: 1))
        screen.put("xyz", at: Position(x: 0, y: 5))
        screen.put("abcdef", at: Position(x: 1, y: 0))
        #expect(screen.lines == [" ab"])
    }

    @Test func negativeStartClipsOnTheLeft() {
        var screen = Screen(size: Size(width: 4, height: 1))
        screen.put("中ab", at: Position(x: -1, y: 0))
        // The right half of 中 falls in column 0: a space.
        #expect(screen.lines == [" ab "])
    }

    @Test func writingOverHalfAWideCharacterBlanksTheOtherHalf() {
        var screen = Screen(size: Size(width: 6, height: 1))
        screen.put("中文", at: Position(x: 0, y: 0))
        screen.put("x", at: Position(x: 1, y: 0))   // right half of 中
        screen.put("y", at: Position(x: 2, y: 0))   // left half of 文
        #expect(screen.lines == [" xy   "])
        #expect(screen[3, 0] == .blank)
        #expect(!screen[3, 0].isContinuation)
    }

    @Test func wideOverWide() {
        var screen = Screen(size: Size(width: 6, height: 1))
        screen.put("中文", at: Position(x: 0, y: 0))
        screen.put("字", at: Position(x: 1, y: 0))
        #expect(screen.lines == [" 字   "])
        #expect(screen[1, 0] == Cell("字", width: 2))
        #expect(screen[3, 0] == .blank)
    }

    @Test func controlCharactersAreShownAsReplacement() {
        var screen = Screen(size: Size(width: 4, height: 1))
        screen.put("a\u{1b}\tb", at: Position(x: 0, y: 0))
        #expect(screen.lines == ["a\u{FFFD}\u{FFFD}b"])
    }

    @Test func combiningMarksStayWithTheirCharacter() {
        var screen = Screen(size: Size(width: 4, height: 1))
        let end = screen.put("e\u{301}x", at: Position(x: 0, y: 0))
        #expect(end == 2)
        #expect(screen[0, 0].character == "e\u{301}")
        #expect(screen[1, 0].character == "x")
    }

    @Test func fillAndRestyle() {
        var screen = Screen(size: Size(width: 4, height: 2))
        screen.fill(Rect(x: 1, y: 1, width: 10, height: 1), with: "-", style: .dim)
        #expect(screen.lines == ["    ", " ---"])
        screen.put("ab", at: Position(x: 0, y: 0))
        screen.restyle(Rect(x: 0, y: 0, width: 1, height: 1), style: .reverse)
        #expect(screen[0, 0] == Cell("a", style: .reverse))
        #expect(screen[1, 0] == Cell("b"))
    }

    @Test func fillWithAWideCharacter() {
        var screen = Screen(size: Size(width: 5, height: 1))
        screen.fill(screen.bounds, with: "中")
        #expect(screen.lines == ["中中 "])
    }

    @Test func rectDivisions() {
        let rect = Rect(x: 0, y: 0, width: 80, height: 24)
        let (left, right) = rect.dividedColumns(at: 30)
        #expect(left == Rect(x: 0, y: 0, width: 30, height: 24))
        #expect(right == Rect(x: 30, y: 0, width: 50, height: 24))
        let (body, status) = rect.dividedRows(at: 23)
        #expect(body.height == 23 && status == Rect(x: 0, y: 23, width: 80, height: 1))
        #expect(rect.inset(top: 1, left: 2, bottom: 1, right: 2) == Rect(x: 2, y: 1, width: 76, height: 22))
        #expect(rect.intersection(Rect(x: 70, y: 20, width: 20, height: 20)) == Rect(x: 70, y: 20, width: 10, height: 4))
    }
}
