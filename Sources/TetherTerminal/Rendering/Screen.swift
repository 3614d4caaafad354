/// One cell of a `Screen`: a character and its style.
///
/// A wide character (2 columns) is stored in its left cell with `width == 2`; the cell to its
/// right is a *continuation* cell (`width == 0`) that shows nothing of its own.
public struct Cell: Hashable, Sendable {
    /// The character shown (a space for an empty cell; a space in a continuation cell).
    public var character: Character
    /// How it looks.
    public var style: Style
    /// Columns taken: 1, 2 for a wide character, 0 for the right half of a wide character.
    public var width: UInt8

    /// Creates a cell.
    public init(_ character: Character = " ", style: Style = .plain, width: UInt8 = 1) {
        self.character = character
        self.style = style
        self.width = width
    }

    /// An empty cell in the default style.
    public static let blank = Cell()

    /// Whether this is the right half of a wide character.
    public var isContinuation: Bool { width == 0 }
}

/// A frame: a grid of cells of a fixed size, and where the cursor goes.
///
/// Rendering is pure: an app builds a `Screen` from its state on every change (widgets draw
/// into regions of it), and `FrameRenderer` turns the difference from the previous frame into
/// the bytes to send.
///
/// Text is placed by display width (`DisplayWidth`): a Chinese character takes two cells, a
/// combining accent joins the character before it, and text is clipped at the right edge of the
/// screen (or of a limit) without ever splitting a wide character: a space takes its place.
///
/// ```swift
/// var screen = Screen(size: Size(width: 20, height: 2))
/// screen.put("客户: Ada", at: Position(x: 0, y: 0), style: .bold)
/// screen.cursor = Position(x: 9, y: 0)
/// screen.lines[0]   // "客户: Ada           "
/// ```
public struct Screen: Hashable, Sendable {
    /// The size in cells.
    public let size: Size
    /// The cells, row by row.
    public private(set) var cells: [Cell]
    /// Where the terminal's cursor is shown at the end of the frame, or nil to hide it.
    public var cursor: Position?

    /// Creates a screen of `size` filled with `fill`, with a hidden cursor.
    public init(size: Size, fill: Cell = .blank) {
        self.size = size
        // Only a fill shown as one one-column glyph (never a control character).
        let glyph = Self.singleGlyph(of: fill.character)
        let cell = fill.width == 1 && glyph?.width == 1 ? Cell(glyph?.character ?? " ", style: fill.style) : Cell(" ", style: fill.style)
        self.cells = Array(repeating: cell, count: size.width * size.height)
        self.cursor = nil
    }

    /// The whole screen as a rectangle.
    public var bounds: Rect { Rect(size: size) }

    /// The cell at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> Cell {
        precondition(x >= 0 && x < size.width && y >= 0 && y < size.height, "cell (\(x), \(y)) is outside a \(size) screen")
        return cells[y * size.width + x]
    }

    /// The text of each row: every cell's character, wide characters once, so a row's string
    /// has the row's display width. For tests and debugging.
    ///
    /// ```swift
    /// #expect(screen.lines[2] == "Total  12.50        ")
    /// ```
    public var lines: [String] {
        (0..<size.height).map { y in
            var line = ""
            for x in 0..<size.width where !cells[y * size.width + x].isContinuation {
                line.append(cells[y * size.width + x].character)
            }
            return line
        }
    }

    /// Writes `text` from `position`, one glyph after another (see `Glyph`), and returns the
    /// column after the last one written.
    ///
    /// Writing stops at `limit` (a column, exclusive; the screen's width by default). A wide
    /// glyph that does not fit before the limit is replaced by a space. Any text is safe: a
    /// control character or an invisible one is shown as U+FFFD, a character made only of
    /// combining marks on a no-break space, so the columns filled are always
    /// `DisplayWidth.of(text)` (up to the limit). Writing over half of a wide character blanks
    /// its other half.
    ///
    /// ```swift
    /// let end = screen.put("数量", at: Position(x: 0, y: 1))   // end == 4
    /// ```
    @discardableResult
    public mutating func put<S: StringProtocol>(_ text: S, at position: Position, style: Style = .plain, limit: Int? = nil) -> Int {
        let right = min(limit ?? size.width, size.width)
        var x = position.x
        let y = position.y
        guard y >= 0, y < size.height else { return x }
        var stopped = false
        for character in text {
            if x >= right || stopped { break }
            Glyph.forEach(of: character) { glyph in
                guard !stopped else { return }
                if x >= right {
                    stopped = true
                    return
                }
                let width = glyph.width
                if x < 0 {
                    // Clipped on the left (a negative start): skip what falls outside.
                    // A wide glyph cut by the left edge leaves a space in column 0.
                    x += width
                    if x > 0 { for column in 0..<min(x, right) { set(Cell(" ", style: style), x: column, y: y) } }
                    return
                }
                if x + width > right {
                    set(Cell(" ", style: style), x: x, y: y)
                    x += 1
                    stopped = true
                    return
                }
                set(Cell(glyph.character, style: style, width: UInt8(width)), x: x, y: y)
                x += width
            }
        }
        return max(x, position.x)
    }

    /// Fills `rect` (clipped to the screen) with `character` in `style`.
    ///
    /// ```swift
    /// screen.fill(Rect(x: 0, y: 23, width: 80, height: 1), style: .reverse)   // a status bar
    /// ```
    public mutating func fill(_ rect: Rect, with character: Character = " ", style: Style = .plain) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        // The glyph `character` is shown as (a space if it is shown as several).
        let glyph = Self.singleGlyph(of: character)
        let width = glyph?.width ?? 1
        let character = glyph?.character ?? " "
        for y in area.y..<area.maxY {
            if width == 2 {
                var x = area.x
                while x + 1 < area.maxX {
                    set(Cell(character, style: style, width: 2), x: x, y: y)
                    x += 2
                }
                if x < area.maxX { set(Cell(" ", style: style), x: x, y: y) }
            } else {
                let cell = Cell(character, style: style)
                for x in area.x..<area.maxX { set(cell, x: x, y: y) }
            }
        }
    }

    /// Changes the style of the cells in `rect` (clipped to the screen), keeping their text.
    ///
    /// ```swift
    /// screen.restyle(selectedRow, style: .reverse)
    /// ```
    public mutating func restyle(_ rect: Rect, style: Style) {
        let area = rect.intersection(bounds)
        guard !area.isEmpty else { return }
        for y in area.y..<area.maxY {
            for x in area.x..<area.maxX { cells[y * size.width + x].style = style }
        }
    }

    /// The glyph `character` is shown as, or nil if it is shown as several (no allocation).
    private static func singleGlyph(of character: Character) -> Glyph? {
        var only: Glyph?
        var count = 0
        Glyph.forEach(of: character) { glyph in
            count += 1
            only = glyph
        }
        return count == 1 ? only : nil
    }

    /// Sets one cell (width 1 or 2), blanking the other half of any wide character it cuts.
    private mutating func set(_ cell: Cell, x: Int, y: Int) {
        guard x >= 0, y >= 0, y < size.height, x < size.width else { return }
        let row = y * size.width
        let width = cell.width == 2 && x + 1 < size.width ? 2 : 1
        // The cells this write covers: x, and x + 1 for a wide character.
        let first = x
        let last = x + width - 1
        // A continuation at `first` belongs to a wide character starting at first - 1.
        if cells[row + first].isContinuation, first > 0 {
            cells[row + first - 1] = Cell(" ", style: cells[row + first - 1].style)
        }
        // A wide character starting at `last` spills into last + 1.
        if cells[row + last].width == 2, last + 1 < size.width {
            cells[row + last + 1] = Cell(" ", style: cells[row + last + 1].style)
        }
        if width == 2 {
            cells[row + first] = cell
            cells[row + first + 1] = Cell(" ", style: cell.style, width: 0)
        } else if cell.width == 2 {
            // A wide character in the last column cannot be shown.
            cells[row + first] = Cell(" ", style: cell.style)
        } else {
            cells[row + first] = cell
        }
    }
}
