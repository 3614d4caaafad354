import Testing
import TetherTestSupport
import TetherTerminal

@Suite struct TextEditorTests {
    @Test func insertsAtTheCursor() {
        var editor = TextEditor(text: "Ada")
        #expect(editor.cursor == 3)
        #expect(editor.apply(.left) == .moved)
        #expect(editor.apply(.character("m")) == .edited)
        #expect(editor.text == "Adma" && editor.cursor == 3)
    }

    @Test func backspaceAndDelete() {
        var editor = TextEditor(text: "abcd", cursor: 2)
        #expect(editor.apply(.backspace) == .edited)
        #expect(editor.text == "acd" && editor.cursor == 1)
        #expect(editor.apply(.delete) == .edited)
        #expect(editor.text == "ad" && editor.cursor == 1)
        // At the edges they change nothing, but are still editing keys.
        var start = TextEditor(text: "x", cursor: 0)
        #expect(start.apply(.backspace) == .moved)
        var end = TextEditor(text: "x")
        #expect(end.apply(.delete) == .moved)
        #expect(start.text == "x" && end.text == "x")
    }

    @Test func movesStayInsideTheText() {
        var editor = TextEditor(text: "ab")
        editor.apply(.right)
        #expect(editor.cursor == 2)
        editor.apply(.home)
        #expect(editor.cursor == 0)
        editor.apply(.left)
        #expect(editor.cursor == 0)
        editor.apply(.end)
        #expect(editor.cursor == 2)
        editor.apply(.control("a"))
        #expect(editor.cursor == 0)
        editor.apply(.control("e"))
        #expect(editor.cursor == 2)
    }

    @Test func killToStartAndEnd() {
        var editor = TextEditor(text: "hello world", cursor: 5)
        editor.apply(.control("k"))
        #expect(editor.text == "hello" && editor.cursor == 5)
        editor.apply(.left)
        editor.apply(.control("u"))
        #expect(editor.text == "o" && editor.cursor == 0)
    }

    @Test func chineseCharactersAreOneStepEach() {
        var editor = TextEditor()
        for character in "张三丰" { editor.apply(.character(character)) }
        #expect(editor.text == "张三丰" && editor.cursor == 3)
        editor.apply(.left)
        editor.apply(.backspace)
        #expect(editor.text == "张丰" && editor.cursor == 1)
    }

    @Test func combiningMarkJoinsThePreviousCharacter() {
        var editor = TextEditor(text: "cafe")
        editor.apply(.character("\u{301}"))
        #expect(editor.text == "caf\u{e9}")   // canonically equal to e + U+0301
        #expect(editor.text.count == 4 && editor.cursor == 4)
        editor.apply(.backspace)
        #expect(editor.text == "caf")
    }

    @Test func otherKeysAreIgnored() {
        var editor = TextEditor(text: "x")
        #expect(editor.apply(.tab) == .ignored)
        #expect(editor.apply(.up) == .ignored)
        #expect(editor.apply(.enter) == .ignored)
        #expect(editor.apply(.control("c")) == .ignored)
        #expect(editor.text == "x")
    }

    @Test func setTextPutsTheCursorAtTheEnd() {
        var editor = TextEditor(text: "abc", cursor: 1)
        editor.setText("hello")
        #expect(editor.cursor == 5)
        editor.setText("hi", cursor: 9)
        #expect(editor.cursor == 2)
    }

    @Test func windowShowsEverythingWhenItFits() {
        let editor = TextEditor(text: "abc")
        let (shown, column) = editor.window(width: 5)
        #expect(shown == "abc" && column == 3)
    }

    @Test func windowScrollsToKeepTheCursorVisible() {
        let editor = TextEditor(text: "abcdefgh")
        let (shown, column) = editor.window(width: 5)
        // The cursor (after "h") must be in the last column: show "efgh" and the cursor at 4.
        #expect(shown == "efgh" && column == 4)
        let middle = TextEditor(text: "abcdefgh", cursor: 2)
        #expect(middle.window(width: 5).text == "abcdefgh" && middle.window(width: 5).cursorColumn == 2)
    }

    @Test func windowWithWideCharacters() {
        let editor = TextEditor(text: "一二三四五")
        let (shown, column) = editor.window(width: 6)
        #expect(shown == "四五" && column == 4)
        let mid = TextEditor(text: "一二三四五", cursor: 4)
        let window = mid.window(width: 6)
        // Cursor at column 8 before scrolling: drop 一二 -> column 4.
        #expect(window.text == "三四五" && window.cursorColumn == 4)
    }
    @Test func aPasteIsInsertedAsOneLine() {
        var editor = TextEditor(text: "ab", cursor: 1)
        #expect(editor.apply(.paste("X\tY\r\nZ\n\u{7}!")) == .edited)
        #expect(editor.text == "aX Y Z !b")
        #expect(editor.cursor == 8)
    }

    @Test func altBAndFAndCtrlArrowsMoveByWord() {
        var editor = TextEditor(text: "Ada  Byron Lovelace")
        #expect(editor.apply(.alt("b")) == .moved)
        #expect(editor.cursor == 11)
        #expect(editor.apply(.controlLeft) == .moved)
        #expect(editor.cursor == 5)
        #expect(editor.apply(.controlLeft) == .moved)
        #expect(editor.cursor == 0)
        #expect(editor.apply(.alt("f")) == .moved)
        #expect(editor.cursor == 3)
        #expect(editor.apply(.controlRight) == .moved)
        #expect(editor.cursor == 10)
        #expect(editor.apply(.alt("x")) == .ignored, "another Alt key does nothing (it is not Esc then x)")
        #expect(editor.text == "Ada  Byron Lovelace")
    }
}

extension TextEditorTests {
    @Test func aBoxTooNarrowForTheTextMarksWhereItIsCut() {
        // The cursor at the end: the start is hidden, and marked; the cursor after the text.
        let end = TextEditor(text: "12.3456789012").display(width: 10)
        #expect(end.text == "…56789012" && end.cursorColumn == 9)
        // The cursor at the start: the end is hidden, and marked.
        let start = TextEditor(text: "999999999.99", cursor: 0).display(width: 10)
        #expect(start.text == "999999999…" && start.cursorColumn == 0)
        // In the middle: both.
        let middle = TextEditor(text: "abcdefghijklmnop", cursor: 12).display(width: 8)
        #expect(middle.text == "…ghijklm…" || (middle.text.hasPrefix("…") && middle.text.hasSuffix("…")))
        #expect(DisplayWidth.of(middle.text) == 8)
        #expect(Self.character(in: middle.text, atColumn: middle.cursorColumn) == "m")
        // What fits is shown whole, with no mark.
        #expect(TextEditor(text: "12.5").display(width: 10) == ("12.5", 4))
    }

    /// The character drawn at `column` of `text`, or nil past its end.
    static func character(in text: String, atColumn column: Int) -> Character? {
        var x = 0
        for character in text {
            let width = DisplayWidth.of(character)
            if column >= x && column < x + width { return character }
            x += width
        }
        return nil
    }

    @Test(arguments: UInt64(1)...300)
    func theCursorIsInsideTheBoxOnTheCharacterAfterIt(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let pool: [Character] = ["a", "中", "é", "1", ".", "👍"]
        let text = String((0..<random.below(30)).map { _ in pool[random.below(pool.count)] })
        let editor = TextEditor(text: text, cursor: random.below(text.count + 1))
        let width = random.within(3...14)
        let (shown, column) = editor.display(width: width)
        #expect(DisplayWidth.of(shown) <= width, "seed \(seed)")
        #expect(column >= 0 && column < width, "seed \(seed)")
        let under = Self.character(in: shown, atColumn: column)
        if editor.cursor < text.count {
            #expect(under == Array(text)[editor.cursor], "seed \(seed): \(shown.debugDescription) column \(column)")
        } else {
            #expect(under == nil, "seed \(seed): the cursor after the text")
        }
        // Text hidden at an end is marked there: an end without the mark is the text's own end.
        var core = Substring(shown)
        if core.hasPrefix("…") { core = core.dropFirst() }
        if core.hasSuffix("…") { core = core.dropLast() }
        while core.last == " ", !text.hasSuffix(core) { core = core.dropLast() }   // padding before a final mark
        #expect(core.isEmpty || text.contains(core), "seed \(seed): \(shown.debugDescription) is not a part of \(text.debugDescription)")
        if !shown.hasPrefix("…") { #expect(text.hasPrefix(core), "seed \(seed): hidden start, unmarked") }
        if !shown.hasSuffix("…"), !text.hasSuffix(core) {
            // Only a wide character at the cursor, between two marks in a box too narrow for them.
            #expect(width <= 4 && DisplayWidth.of(Array(text)[editor.cursor]) == 2, "seed \(seed): hidden end, unmarked")
        }
    }
}
