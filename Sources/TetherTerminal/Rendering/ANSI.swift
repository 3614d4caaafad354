/// Every escape sequence the toolkit sends, in one place (ECMA-48 / xterm).
///
/// ```swift
/// ANSI.moveTo(Position(x: 0, y: 0))              // "\u{1b}[1H"
/// ANSI.style(Style(foreground: .red))           // "\u{1b}[0;31m"
/// ```
public enum ANSI {
    /// Switches to the alternate screen buffer, saving the user's screen (xterm 1049).
    public static let enterAlternateScreen = "\u{1b}[?1049h"
    /// Returns to the normal screen buffer, restoring what the user had on screen.
    public static let leaveAlternateScreen = "\u{1b}[?1049l"
    /// Asks the terminal to mark pasted text (xterm 2004, bracketed paste): a paste arrives as
    /// `ESC [ 200 ~` text `ESC [ 201 ~`, which `KeyDecoder` turns into one `Key.paste`.
    public static let enableBracketedPaste = "\u{1b}[?2004h"
    /// Ends bracketed paste.
    public static let disableBracketedPaste = "\u{1b}[?2004l"
    /// Hides the cursor.
    public static let hideCursor = "\u{1b}[?25l"
    /// Shows the cursor.
    public static let showCursor = "\u{1b}[?25h"
    /// Clears the whole screen (the cursor does not move).
    public static let clearScreen = "\u{1b}[2J"
    /// Resets colors and attributes to the terminal's defaults (SGR 0).
    public static let resetStyle = "\u{1b}[m"

    /// Moves the cursor to `position` (CUP; rows and columns are 1-based on the wire).
    public static func moveTo(_ position: Position) -> String {
        position.x == 0 ? "\u{1b}[\(position.y + 1)H" : "\u{1b}[\(position.y + 1);\(position.x + 1)H"
    }

    /// Moves the cursor `columns` to the right (CUF).
    public static func moveRight(_ columns: Int) -> String {
        columns == 1 ? "\u{1b}[C" : "\u{1b}[\(columns)C"
    }

    /// Moves the cursor `columns` to the left (CUB).
    public static func moveLeft(_ columns: Int) -> String {
        columns == 1 ? "\u{1b}[D" : "\u{1b}[\(columns)D"
    }

    /// Sets colors and attributes to exactly `style` (SGR, starting from a reset).
    ///
    /// ```swift
    /// ANSI.style(Style(foreground: .green, attributes: [.bold, .reverse]))   // "\u{1b}[0;1;7;32m"
    /// ```
    public static func style(_ style: Style) -> String {
        if style == .plain { return resetStyle }
        var codes = "0"
        let attributes = style.attributes
        if attributes.contains(.bold) { codes += ";1" }
        if attributes.contains(.dim) { codes += ";2" }
        if attributes.contains(.italic) { codes += ";3" }
        if attributes.contains(.underline) { codes += ";4" }
        if attributes.contains(.reverse) { codes += ";7" }
        appendColor(style.foreground, base: 30, brightBase: 90, extended: 38, to: &codes)
        appendColor(style.background, base: 40, brightBase: 100, extended: 48, to: &codes)
        return "\u{1b}[\(codes)m"
    }

    private static func appendColor(_ color: Color, base: Int, brightBase: Int, extended: Int, to codes: inout String) {
        switch color {
        case .default: break
        case .ansi(let n) where n < 8: codes += ";\(base + Int(n))"
        case .ansi(let n) where n < 16: codes += ";\(brightBase + Int(n) - 8)"
        case .ansi(let n), .indexed(let n): codes += ";\(extended);5;\(n)"
        case .rgb(let r, let g, let b): codes += ";\(extended);2;\(r);\(g);\(b)"
        }
    }
}
