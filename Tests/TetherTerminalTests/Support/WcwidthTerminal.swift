import Glibc
import TetherTerminal

/// A terminal of a fixed size that interprets the bytes a `FrameRenderer` sends the way a
/// `wcwidth`-based terminal (tmux, xterm, VTE) does: each scalar takes the columns glibc's
/// `wcwidth` gives it, in the C.UTF-8 locale; a zero-width scalar joins the cell before it. It is
/// the independent judge of the renderer: it fails on anything a real terminal would draw
/// differently from the `Screen` (a scalar `wcwidth` does not know, a control byte that is not
/// one of the renderer's own sequences, text that runs past the end of a row).
struct WcwidthTerminal {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let width: Int
    let height: Int
    /// Per row, per column: the text drawn from that column ("" for the right half of a wide
    /// character and for the cells a zero-width scalar joined).
    private(set) var grid: [[String]]
    private(set) var cursor = Position(x: 0, y: 0)
    /// Whether the cursor is shown.
    private(set) var isCursorVisible = true
    /// Whether the last character was written in the last column (a terminal then wraps
    /// before the next one: the renderer must move the cursor first).
    private var pendingWrap = false

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        grid = Array(repeating: Array(repeating: " ", count: width), count: height)
    }

    /// glibc's `wcwidth`, looked up at run time (Swift's Glibc module does not declare it).
    private static let wcwidth: @convention(c) (Int32) -> Int32 = {
        setlocale(LC_CTYPE, "C.UTF-8")
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth") else { fatalError("no wcwidth in glibc") }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    /// The columns glibc's `wcwidth` gives `scalar` (-1: a character it cannot show).
    static func columns(_ scalar: Unicode.Scalar) -> Int { Int(wcwidth(Int32(bitPattern: scalar.value))) }

    /// Interprets `output`.
    mutating func feed(_ output: String) throws(Failure) {
        let scalars = Array(output.unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            if scalar.value < 0x20 || scalar.value == 0x7f { pendingWrap = false }
            switch scalar.value {
            case 0x1b:
                guard index < scalars.count, scalars[index] == "[" else { throw Failure(description: "ESC not followed by [ at \(index)") }
                index += 1
                var parameters = ""
                while index < scalars.count, (0x30...0x3f).contains(scalars[index].value) {
                    parameters.unicodeScalars.append(scalars[index])
                    index += 1
                }
                guard index < scalars.count, (0x40...0x7e).contains(scalars[index].value) else {
                    throw Failure(description: "unterminated escape sequence ESC [\(parameters)")
                }
                let final = scalars[index]
                index += 1
                try control(final, parameters)
            case 0x0d:
                cursor.x = 0
            case 0x0a:
                guard cursor.y + 1 < height else { throw Failure(description: "line feed on the last row scrolls the screen") }
                cursor.y += 1
            case 0..<0x20, 0x7f..<0xa0:
                throw Failure(description: "control character U+\(String(scalar.value, radix: 16)) in the output")
            default:
                try print(scalar)
            }
        }
    }

    private mutating func control(_ final: Unicode.Scalar, _ parameters: String) throws(Failure) {
        let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        func number(_ at: Int, default value: Int) -> Int { at < numbers.count ? (numbers[at] ?? value) : value }
        switch final {
        case "H":
            let row = number(0, default: 1), column = number(1, default: 1)
            if width == 0 || height == 0, row == 1, column == 1 { return }   // home, in a window of no cells
            guard row >= 1, row <= height, column >= 1, column <= width else {
                throw Failure(description: "cursor moved outside the window: ESC [\(parameters)H in \(width)x\(height)")
            }
            cursor = Position(x: column - 1, y: row - 1)
        case "C":
            let columns = number(0, default: 1)
            guard cursor.x + columns < width else { throw Failure(description: "cursor moved right past the row") }
            cursor.x += columns
        case "D":
            let columns = number(0, default: 1)
            guard cursor.x - columns >= 0 else { throw Failure(description: "cursor moved left past the row") }
            cursor.x -= columns
        case "J":
            guard parameters == "2" else { throw Failure(description: "unexpected erase ESC [\(parameters)J") }
            grid = Array(repeating: Array(repeating: " ", count: width), count: height)
        case "m":
            break
        case "h", "l":
            if parameters == "?25" { isCursorVisible = final == "h" }
        default:
            throw Failure(description: "unexpected sequence ESC [\(parameters)\(final)")
        }
    }

    private mutating func print(_ scalar: Unicode.Scalar) throws(Failure) {
        let columns = Self.columns(scalar)
        let hex = "U+" + String(scalar.value, radix: 16, uppercase: true)
        guard columns >= 0 else { throw Failure(description: "\(hex) is a character wcwidth cannot show") }
        if pendingWrap && columns > 0 { throw Failure(description: "\(hex) written after the last column of row \(cursor.y): the terminal wraps") }
        let y = cursor.y
        if columns == 0 {
            // Joins the character before the cursor.
            // (With a wrap pending, the cursor is still on the last cell written.)
            var x = pendingWrap ? cursor.x : cursor.x - 1
            while x >= 0, grid[y][x].isEmpty { x -= 1 }
            guard x >= 0 else { throw Failure(description: "zero-width \(hex) at the start of row \(y)") }
            grid[y][x].unicodeScalars.append(scalar)
            return
        }
        guard cursor.x + columns <= width else {
            throw Failure(description: "\(hex) at column \(cursor.x) of row \(y) runs past the row's \(width) columns")
        }
        let x = cursor.x
        // Writing over half of a wide character erases its other half.
        if grid[y][x].isEmpty, x > 0 { grid[y][x - 1] = " " }
        let last = x + columns - 1
        if last + 1 < width, grid[y][last + 1].isEmpty { grid[y][last + 1] = " " }
        grid[y][x] = String(scalar)
        if columns == 2 { grid[y][x + 1] = "" }
        cursor.x += columns
        // At the right edge a terminal holds a pending wrap; the renderer always moves the
        // cursor before writing again, which `H` checks.
        if cursor.x == width {
            cursor.x = width - 1
            pendingWrap = true
        }
    }

    /// Checks that the terminal shows `screen`: each cell's text drawn in exactly its columns.
    func check(shows screen: Screen) throws(Failure) {
        for y in 0..<height {
            var x = 0
            while x < width {
                let cell = screen[x, y]
                let cellWidth = cell.isContinuation ? 1 : Int(cell.width)
                let drawn = grid[y][x..<min(width, x + cellWidth)].joined()
                let expected = cell.isContinuation ? "" : String(cell.character)
                guard drawn == expected else {
                    let row = grid[y].joined()
                    let scalars = expected.unicodeScalars.map { String($0.value, radix: 16) }
                    throw Failure(description: "row \(y) column \(x): (cell \(scalars)) the terminal shows \(drawn.debugDescription), the screen has \(expected.debugDescription); row: \(row.debugDescription), screen: \(screen.lines[y].debugDescription)")
                }
                x += cellWidth
            }
        }
        if let expected = screen.cursor, width > 0, height > 0 {
            let clamped = Position(x: min(max(0, expected.x), width - 1), y: min(max(0, expected.y), height - 1))
            guard isCursorVisible, cursor == clamped else {
                throw Failure(description: "the cursor is at \(cursor) (\(isCursorVisible ? "shown" : "hidden")), the screen puts it at \(clamped)")
            }
        } else if isCursorVisible, width > 0, height > 0 {
            throw Failure(description: "the cursor is shown, the screen hides it")
        }
    }
}
