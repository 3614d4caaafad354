/// Turns frames into the bytes that update a terminal: the whole screen for the first frame
/// (or after a resize or `invalidate()`), then only the cells that changed.
///
/// The output is minimal-ish: for each changed cell it picks the shortest way to get there
/// (stay, rewrite a few unchanged cells, move right, carriage return, or an absolute move), it
/// sends a style change only when the style differs from the last one sent, and it ends with
/// the cursor where the frame's `cursor` says (shown), or hidden if the frame has none. The
/// terminal is left with the default style after every frame.
///
/// `FrameRenderer` is a pure value: it writes nothing itself, which is what makes it testable.
///
/// ```swift
/// var renderer = FrameRenderer()
/// terminal.write(renderer.render(firstScreen))   // clears and draws everything
/// terminal.write(renderer.render(nextScreen))    // only the changed cells
/// ```
public struct FrameRenderer: Sendable {
    /// The last frame rendered: what the terminal shows now. nil before the first frame and
    /// after `invalidate()`.
    public private(set) var previous: Screen?

    /// Creates a renderer whose first frame is drawn in full.
    public init() {}

    /// Forgets the previous frame, so that the next one is drawn in full (after the terminal
    /// was resized, or its contents were disturbed).
    public mutating func invalidate() {
        previous = nil
    }

    /// Returns the bytes that change the terminal from the previous frame to `screen`, and
    /// remembers `screen`. A frame of another size than the previous one is drawn in full.
    ///
    /// ```swift
    /// let bytes = renderer.render(screen)
    /// ```
    public mutating func render(_ screen: Screen) -> String {
        defer { previous = screen }
        if let previous, previous.size == screen.size {
            return Self.update(from: previous, to: screen)
        }
        return Self.fullRedraw(screen)
    }

    /// The bytes that draw `screen` on a terminal in an unknown state: hide the cursor, reset
    /// the style, clear, draw every non-blank cell, then place the cursor.
    ///
    /// ```swift
    /// terminal.write(FrameRenderer.fullRedraw(screen))
    /// ```
    public static func fullRedraw(_ screen: Screen) -> String {
        var output = _FrameOutput(width: screen.size.width)
        output.text = ANSI.hideCursor + ANSI.resetStyle + "\u{1b}[H" + ANSI.clearScreen
        output.cursor = Position(x: 0, y: 0)
        let blank = Screen(size: screen.size)
        output.drawChanges(from: blank, to: screen)
        output.finish(screen, cursorWasVisible: false)
        return output.text
    }

    /// The bytes that change a terminal showing `old` into `new` (the same size): only the
    /// changed cells are written. Returns "" when nothing changed.
    ///
    /// ```swift
    /// let bytes = FrameRenderer.update(from: before, to: after)
    /// ```
    public static func update(from old: Screen, to new: Screen) -> String {
        precondition(old.size == new.size, "update(from:to:) needs frames of the same size; use fullRedraw after a resize")
        var output = _FrameOutput(width: new.size.width)
        // After the previous frame the cursor was left at its `cursor`.
        output.cursor = old.cursor.map { _FrameOutput.clamped($0, to: old.size) }
        output.drawChanges(from: old, to: new)
        output.finish(new, cursorWasVisible: old.cursor != nil)
        return output.text
    }
}

/// The bytes of one frame being built, and what the terminal's cursor and pen are now.
struct _FrameOutput {
    var text = ""
    /// Where the terminal's cursor is, or nil if unknown (for example after writing in the
    /// last column, where terminals hold a pending wrap).
    var cursor: Position?
    /// The style the terminal writes with now.
    var pen = Style.plain
    let width: Int

    init(width: Int) {
        self.width = width
    }

    static func clamped(_ position: Position, to size: Size) -> Position {
        Position(x: min(max(0, position.x), max(0, size.width - 1)), y: min(max(0, position.y), max(0, size.height - 1)))
    }

    mutating func drawChanges(from old: Screen, to new: Screen) {
        let width = new.size.width
        for y in 0..<new.size.height {
            let row = y * width
            var x = 0
            while x < width {
                let cell = new.cells[row + x]
                if cell.isContinuation {
                    // Drawn with the wide character on its left.
                    x += 1
                    continue
                }
                var changed = cell != old.cells[row + x]
                if !changed, cell.width == 2, x + 1 < width, new.cells[row + x + 1] != old.cells[row + x + 1] {
                    changed = true
                }
                if changed {
                    move(to: Position(x: x, y: y), in: new)
                    write(cell)
                }
                x += cell.width == 2 ? 2 : 1
            }
        }
    }

    mutating func finish(_ screen: Screen, cursorWasVisible: Bool) {
        if pen != .plain {
            text += ANSI.resetStyle
            pen = .plain
        }
        if let target = screen.cursor.map({ Self.clamped($0, to: screen.size) }), screen.size.width > 0, screen.size.height > 0 {
            move(to: target, in: screen)
            if !cursorWasVisible { text += ANSI.showCursor }
        } else if cursorWasVisible {
            text += ANSI.hideCursor
        }
    }

    mutating func write(_ cell: Cell) {
        if cell.style != pen {
            text += ANSI.style(cell.style)
            pen = cell.style
        }
        text.append(cell.character)
        if let current = cursor {
            let next = current.x + Int(cell.width == 2 ? 2 : 1)
            // At the right edge the terminal holds a pending wrap: the position is unreliable.
            cursor = next < width ? Position(x: next, y: current.y) : nil
        }
    }

    /// Moves the cursor to `target` the cheapest way. `screen` is the frame being drawn; the
    /// cells left of `target` on the same row already show it.
    mutating func move(to target: Position, in screen: Screen) {
        if cursor == target { return }
        var best = ANSI.moveTo(target)
        if let current = cursor, current.y == target.y {
            if target.x > current.x {
                let right = ANSI.moveRight(target.x - current.x)
                if right.utf8.count < best.utf8.count { best = right }
                if let rewrite = rewriteGap(from: current.x, to: target.x, y: target.y, in: screen),
                   rewrite.utf8.count < best.utf8.count {
                    best = rewrite
                }
            } else {
                let left = target.x == 0 ? "\r" : ANSI.moveLeft(current.x - target.x)
                if left.utf8.count < best.utf8.count { best = left }
            }
        } else if let current = cursor, target.y == current.y + 1, target.x == 0 {
            best = "\r\n"
        }
        text += best
        cursor = target
    }

    /// The text of the cells between two columns, if writing it again is a way to move right:
    /// only single-width cells already in the current style.
    private func rewriteGap(from start: Int, to end: Int, y: Int, in screen: Screen) -> String? {
        guard end - start <= 8 else { return nil }
        var gap = ""
        let row = y * width
        for x in start..<end {
            let cell = screen.cells[row + x]
            guard cell.width == 1, cell.style == pen else { return nil }
            gap.append(cell.character)
        }
        return gap
    }
}
