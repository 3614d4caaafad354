/// A key the user pressed, decoded from the bytes a terminal sends (see `KeyDecoder`).
///
/// Modifier combinations the toolkit does not distinguish (Ctrl-Up, Shift-Home) decode to the
/// plain key (Ctrl-Left and Ctrl-Right, which move by word, and Alt-letter keys are their own); Ctrl-letter keys that share a byte with another key (Ctrl-H is Backspace, Ctrl-I
/// is Tab, Ctrl-J and Ctrl-M are Enter) decode to that key.
///
/// ```swift
/// switch key {
/// case .control("c"): quit()
/// case .character(let c): field.insert(c)
/// case .left: field.moveLeft()
/// default: break
/// }
/// ```
public enum Key: Hashable, Sendable {
    /// A printable character (a space, a letter, a Chinese character, an emoji...). Invalid
    /// UTF-8 input arrives as U+FFFD, the replacement character.
    case character(Character)
    /// Enter (carriage return or line feed, and keypad Enter).
    case enter
    /// Tab.
    case tab
    /// Shift-Tab (`ESC [ Z`).
    case backTab
    /// Backspace (0x7f or 0x08).
    case backspace
    /// Delete (forward delete, `ESC [ 3 ~`).
    case delete
    /// Insert (`ESC [ 2 ~`).
    case insert
    /// Escape pressed on its own (see `KeyDecoder.flush()`).
    case escape
    /// Arrow up.
    case up
    /// Arrow down.
    case down
    /// Arrow left.
    case left
    /// Arrow right.
    case right
    /// Home.
    case home
    /// End.
    case end
    /// Page Up.
    case pageUp
    /// Page Down.
    case pageDown
    /// A function key, F1 to F12.
    case function(Int)
    /// A control key: `.control("c")` is Ctrl-C. Letters are lowercase; Ctrl-Space is
    /// `.control("@")`, and 0x1c...0x1f are `.control("\\")`, `"]"`, `"^"`, `"_"`.
    case control(Character)
    /// An Alt (Meta) key: `.alt("b")` is Alt-B, sent by terminals as Escape then the key.
    case alt(Character)
    /// Ctrl-Left (or Alt-Left): a text field moves the cursor a word left.
    case controlLeft
    /// Ctrl-Right (or Alt-Right): a text field moves the cursor a word right.
    case controlRight
    /// Text pasted into the terminal (bracketed paste, which `Terminal` turns on): text, never
    /// keys, so a pasted Tab or newline does not move the focus.
    case paste(String)
    /// An escape sequence the decoder does not know, or a malformed or truncated one, with its
    /// bytes. It never swallows the keys that follow it.
    case unknown([UInt8])
}

extension Key: CustomStringConvertible {
    /// A short readable name, such as `Ctrl-C`, `Shift-Tab`, `"a"` or `Unknown(1b 5b 39 39 78)`.
    public var description: String {
        switch self {
        case .character(let c): return "\"\(c)\""
        case .enter: return "Enter"
        case .tab: return "Tab"
        case .backTab: return "Shift-Tab"
        case .backspace: return "Backspace"
        case .delete: return "Delete"
        case .insert: return "Insert"
        case .escape: return "Esc"
        case .up: return "Up"
        case .down: return "Down"
        case .left: return "Left"
        case .right: return "Right"
        case .home: return "Home"
        case .end: return "End"
        case .pageUp: return "PageUp"
        case .pageDown: return "PageDown"
        case .function(let n): return "F\(n)"
        case .control(let c): return "Ctrl-\(c.uppercased())"
        case .alt(let c): return "Alt-\(c.uppercased())"
        case .controlLeft: return "Ctrl-Left"
        case .controlRight: return "Ctrl-Right"
        case .paste(let text): return "Paste(\(text.count) characters)"
        case .unknown(let bytes):
            return "Unknown(" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined(separator: " ") + ")"
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
