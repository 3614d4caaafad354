/// The editing state of a one-line text field, as a pure value: the text and the cursor,
/// counted in characters (grapheme clusters), so a Chinese character or an accented letter is
/// one step.
///
/// Keys: printable characters insert at the cursor; Backspace and Delete remove the character
/// before and after it; Left/Right, Home/End (and Ctrl-A/Ctrl-E) move; Ctrl-U deletes to the
/// start and Ctrl-K to the end.
///
/// ```swift
/// var editor = TextEditor(text: "Ada")
/// editor.apply(.left)              // .moved
/// editor.apply(.character("m"))    // .edited: "Adma", cursor 3
/// ```
public struct TextEditor: Hashable, Sendable {
    /// What a key did.
    public enum Outcome: Hashable, Sendable {
        /// The text changed.
        case edited
        /// The key was an editing key but the text did not change (a move, or Backspace at the
        /// start).
        case moved
        /// The key is not an editing key.
        case ignored
    }

    /// The text.
    public private(set) var text: String
    /// The cursor, in characters from the start: 0...text.count.
    public private(set) var cursor: Int

    /// Creates an editor with the cursor at the end of `text` (or at `cursor`, clamped).
    public init(text: String = "", cursor: Int? = nil) {
        self.text = text
        self.cursor = min(max(0, cursor ?? text.count), text.count)
    }

    /// Applies an editing key.
    @discardableResult
    public mutating func apply(_ key: Key) -> Outcome {
        switch key {
        case .character(let character): return insert(character)
        case .backspace: return deleteBackward()
        case .delete: return deleteForward()
        case .left: return move(to: cursor - 1)
        case .right: return move(to: cursor + 1)
        case .home, .control("a"): return move(to: 0)
        case .end, .control("e"): return move(to: text.count)
        case .control("u"): return replace(String(text.dropFirst(cursor)), cursor: 0)
        case .control("k"): return replace(String(text.prefix(cursor)), cursor: cursor)
        case .alt("b"), .controlLeft: return move(to: wordStart(before: cursor))
        case .alt("f"), .controlRight: return move(to: wordEnd(after: cursor))
        case .paste(let pasted): return insert(text: pasted)
        default: return .ignored
        }
    }

    /// Inserts pasted text at the cursor, as one line: line breaks and tabs become spaces, and
    /// other control characters are left out (a paste is text, never keys).
    ///
    /// ```swift
    /// var editor = TextEditor(text: "")
    /// editor.insert(text: "Ada\tLovelace\n")   // text == "Ada Lovelace "
    /// ```
    @discardableResult
    public mutating func insert(text pasted: String) -> Outcome {
        var line = ""
        for character in pasted {
            switch character {
            case "\r\n", "\n", "\r", "\t": line.append(" ")   // "\r\n" is one Character
            default:
                if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control }) { line.append(character) }
            }
        }
        let before = String(text.prefix(cursor)) + line
        return replace(before + text.dropFirst(cursor), cursor: before.count)
    }

    /// Where the word before `position` starts (spaces before it skipped).
    private func wordStart(before position: Int) -> Int {
        let characters = Array(text)
        var index = position
        while index > 0, characters[index - 1].isWhitespace { index -= 1 }
        while index > 0, !characters[index - 1].isWhitespace { index -= 1 }
        return index
    }

    /// Where the word after `position` ends (spaces before it skipped).
    private func wordEnd(after position: Int) -> Int {
        let characters = Array(text)
        var index = position
        while index < characters.count, characters[index].isWhitespace { index += 1 }
        while index < characters.count, !characters[index].isWhitespace { index += 1 }
        return index
    }

    /// Inserts a character at the cursor and moves the cursor after it. A combining mark joins
    /// the character before it.
    @discardableResult
    public mutating func insert(_ character: Character) -> Outcome {
        let before = String(text.prefix(cursor)) + String(character)
        let after = text.dropFirst(cursor)
        return replace(before + after, cursor: before.count)
    }

    /// Replaces the whole text, with the cursor at its end (or at `cursor`, clamped).
    ///
    /// ```swift
    /// editor.setText("Grace")
    /// ```
    public mutating func setText(_ newText: String, cursor newCursor: Int? = nil) {
        text = newText
        cursor = min(max(0, newCursor ?? newText.count), newText.count)
    }

    private mutating func deleteBackward() -> Outcome {
        guard cursor > 0 else { return .moved }
        return replace(String(text.prefix(cursor - 1)) + text.dropFirst(cursor), cursor: cursor - 1)
    }

    private mutating func deleteForward() -> Outcome {
        guard cursor < text.count else { return .moved }
        return replace(String(text.prefix(cursor)) + text.dropFirst(cursor + 1), cursor: cursor)
    }

    private mutating func move(to position: Int) -> Outcome {
        cursor = min(max(0, position), text.count)
        return .moved
    }

    private mutating func replace(_ newText: String, cursor newCursor: Int) -> Outcome {
        let changed = newText != text
        text = newText
        cursor = min(max(0, newCursor), newText.count)
        return changed ? .edited : .moved
    }

    /// What a box `width` columns wide shows of the text while it is edited, and the cursor's
    /// column in the box: the text, scrolled only as far as needed to keep the cursor visible,
    /// with "…" in the first column when text before it is hidden and in the last column when
    /// text after it is, so a cut never passes for the whole value (`12.3456789012` in a
    /// 10-column box reads `…56789012`, never `456789012`). A box narrower than 3 columns shows
    /// what `window(width:)` does; one too narrow for a wide character between two marks leaves
    /// the end unmarked.
    ///
    /// ```swift
    /// TextEditor(text: "12.3456789012").display(width: 10)             // ("…56789012", 9)
    /// TextEditor(text: "999999999.99", cursor: 0).display(width: 10)   // ("999999999…", 0)
    /// ```
    public func display(width: Int) -> (text: String, cursorColumn: Int) {
        // Whole, when it fits with the cursor's cell (after the text, at its end).
        guard width >= 3, DisplayWidth.of(text) + (cursor == text.count ? 1 : 0) > width else {
            let (shown, column) = window(width: width)
            return (String(shown), column)
        }
        let characters = Array(text)
        let widths = characters.map { DisplayWidth.of($0) }
        /// The characters shown from `start` (up to `end`), whether text after them is hidden,
        /// and the cursor's column; `marksEnd`: the last column is kept for "…" when it is.
        func layout(from start: Int, marksEnd: Bool) -> (cursorColumn: Int, end: Int, cutAfter: Bool) {
            let lead = start > 0 ? 1 : 0
            var used = lead
            var end = start
            while end < characters.count, used + widths[end] <= width {
                used += widths[end]
                end += 1
            }
            if marksEnd, end < characters.count {
                // The last column holds "…": give back characters until it is free.
                while end > start, used > width - 1 {
                    end -= 1
                    used -= widths[end]
                }
            }
            let column = lead + widths[start..<min(cursor, characters.count)].reduce(0, +)
            return (column, end, end < characters.count)
        }
        /// Whether the cursor's cell, or the character after the cursor, is not shown whole.
        func hidesCursor(_ shape: (cursorColumn: Int, end: Int, cutAfter: Bool), marksEnd: Bool) -> Bool {
            shape.cursorColumn > (shape.cutAfter && marksEnd ? width - 2 : width - 1)
                || (cursor < characters.count ? shape.end <= cursor : shape.end < cursor)
        }
        // The first character shown: the smallest start that keeps the cursor in the box. A wide
        // character between the two marks of a box too narrow for the three: the end unmarked.
        for marksEnd in [true, false] {
            var start = 0
            var shape = layout(from: start, marksEnd: marksEnd)
            while start < cursor, hidesCursor(shape, marksEnd: marksEnd) {
                start += 1
                shape = layout(from: start, marksEnd: marksEnd)
            }
            guard !hidesCursor(shape, marksEnd: marksEnd) else { continue }
            var shown = start > 0 ? "…" : ""
            shown += String(characters[start..<shape.end])
            if shape.cutAfter, marksEnd {
                shown += String(repeating: " ", count: max(0, width - 1 - DisplayWidth.of(shown))) + "…"
            }
            return (shown, shape.cursorColumn)
        }
        let (shown, column) = window(width: width)
        return (DisplayWidth.truncated(shown, to: width), column)
    }

    /// The part of the text to show in a box `width` columns wide so that the cursor is
    /// visible, and the cursor's column inside the box. The text scrolls left only when the
    /// cursor would fall outside the box.
    ///
    /// ```swift
    /// let (shown, column) = TextEditor(text: "一二三四五").window(width: 6)
    /// // shown == "四五", column == 4
    /// ```
    public func window(width: Int) -> (text: Substring, cursorColumn: Int) {
        let beforeCursor = text.prefix(cursor)
        var column = DisplayWidth.of(beforeCursor)
        guard width > 0, column >= width else { return (text[...], column) }
        // Drop characters from the front until the cursor fits in the last column.
        var start = text.startIndex
        while column > width - 1, start < beforeCursor.endIndex {
            column -= DisplayWidth.of(text[start])
            start = text.index(after: start)
        }
        return (text[start...], column)
    }
}
