// T1/T2's checker: a small model of an xterm-compatible terminal that the bytes each version
// writes are fed into, so a check can compare what the terminal would show (every cell's
// character and style, and the cursor) with the frame the form should show.
//
// It understands what the versions of T1 send and nothing more: printable characters (wide
// characters by `DisplayWidth`), CR, LF, and the CSI sequences CUP (H), CUF (C), CUB (D), SGR (m:
// reset, bold, dim, italic, underline, reverse, the 16 colors, 256 colors, 24-bit colors and
// their resets), ED 2 (J), EL 0 (K), and cursor show/hide (?25h/?25l). Anything else stops the
// run (a precondition): a checker that skipped what it did not know could pass a wrong frame.
// Writing into the last column leaves the cursor there with a pending wrap, as xterm does.
import TetherTerminal

struct TerminalReplay {
    let size: Size
    /// Every cell's character and style; a wide character's right half holds a continuation
    /// cell (width 0), as in `Screen`.
    private(set) var cells: [Cell]
    private(set) var cursor = Position(x: 0, y: 0)
    private(set) var cursorVisible = true
    /// How many characters were written into cells (a wide character counts once).
    private(set) var charactersWritten = 0
    /// How many of them wrote a cell that already showed exactly that (character and style).
    private(set) var unchangedRewrites = 0
    private var pendingWrap = false
    private var pen = Style.plain

    init(size: Size) {
        self.size = size
        cells = Array(repeating: .blank, count: size.width * size.height)
    }

    /// Interprets `bytes` (UTF-8 text with escape sequences).
    mutating func feed<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let text = String(decoding: bytes, as: UTF8.self)
        var iterator = text.makeIterator()
        while let character = iterator.next() {
            switch character {
            case "\u{1b}":
                precondition(iterator.next() == "[", "replay: an escape that is not CSI")
                var parameters = ""
                while let next = iterator.next() {
                    if let ascii = next.asciiValue, ascii >= 0x40, ascii <= 0x7e {
                        control(parameters, final: next)
                        break
                    }
                    parameters.append(next)
                }
            case "\r\n":
                carriageReturn()
                lineFeed()
            case "\r":
                carriageReturn()
            case "\n":
                lineFeed()
            default:
                precondition(character.asciiValue.map { $0 >= 0x20 && $0 < 0x7f } ?? true,
                             "replay: an unexpected control character \(character.unicodeScalars.map(\.value))")
                put(character)
            }
        }
    }

    /// Whether the terminal shows `screen`: every cell (character and style) and the cursor
    /// (hidden for a screen without one).
    func shows(_ screen: Screen) -> Bool {
        precondition(screen.size == size)
        guard cells == screen.cells else { return false }
        if let expected = screen.cursor { return cursorVisible && cursor == expected && !pendingWrap }
        return !cursorVisible
    }

    /// The first difference from `screen`, for a failed check's message.
    func difference(from screen: Screen) -> String {
        for index in cells.indices where cells[index] != screen.cells[index] {
            let position = Position(x: index % size.width, y: index / size.width)
            return "cell \(position): terminal shows \(cells[index]), the frame has \(screen.cells[index])"
        }
        return "cursor: terminal \(cursorVisible ? "\(cursor)" : "hidden"), frame \(screen.cursor.map { "\($0)" } ?? "hidden")"
    }

    private mutating func carriageReturn() {
        cursor.x = 0
        pendingWrap = false
    }

    private mutating func lineFeed() {
        precondition(cursor.y + 1 < size.height, "replay: a line feed on the last row would scroll")
        cursor.y += 1
        pendingWrap = false
    }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            carriageReturn()
            lineFeed()
        }
        let width = DisplayWidth.of(character)
        precondition(width == 1 || width == 2, "replay: a character of width \(width)")
        precondition(cursor.x + width <= size.width, "replay: a wide character in the last column")
        let row = cursor.y * size.width
        charactersWritten += 1
        let cell = Cell(character, style: pen, width: UInt8(width))
        if cells[row + cursor.x] == cell { unchangedRewrites += 1 }
        cells[row + cursor.x] = cell
        if width == 2 { cells[row + cursor.x + 1] = Cell(" ", style: pen, width: 0) }
        if cursor.x + width >= size.width {
            cursor.x = size.width - 1
            pendingWrap = true
        } else {
            cursor.x += width
        }
    }

    private mutating func control(_ parameters: String, final: Character) {
        let numbers = { (defaultValue: Int) -> [Int] in
            parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? defaultValue }
        }
        switch final {
        case "H":
            let values = numbers(1)
            let row = values.count > 0 ? values[0] : 1
            let column = values.count > 1 ? values[1] : 1
            precondition(row >= 1 && row <= size.height && column >= 1 && column <= size.width, "replay: CUP outside the screen")
            cursor = Position(x: column - 1, y: row - 1)
            pendingWrap = false
        case "C":
            cursor.x = min(size.width - 1, cursor.x + (numbers(1).first ?? 1))
            pendingWrap = false
        case "D":
            cursor.x = max(0, cursor.x - (numbers(1).first ?? 1))
            pendingWrap = false
        case "J":
            precondition(parameters == "2", "replay: only ED 2 is known")
            cells = Array(repeating: Cell(" ", style: Style(background: pen.background)), count: cells.count)
        case "K":
            precondition(parameters.isEmpty || parameters == "0", "replay: only EL 0 is known")
            let row = cursor.y * size.width
            for x in cursor.x..<size.width { cells[row + x] = Cell(" ", style: Style(background: pen.background)) }
        case "m":
            sgr(parameters.isEmpty ? [0] : numbers(0))
        case "h", "l":
            precondition(parameters == "?25", "replay: only ?25h/?25l are known")
            cursorVisible = final == "h"
        default:
            preconditionFailure("replay: an unknown sequence CSI \(parameters)\(final)")
        }
    }

    private mutating func sgr(_ codes: [Int]) {
        var index = 0
        while index < codes.count {
            let code = codes[index]
            index += 1
            switch code {
            case 0: pen = .plain
            case 1: pen.attributes.insert(.bold)
            case 2: pen.attributes.insert(.dim)
            case 3: pen.attributes.insert(.italic)
            case 4: pen.attributes.insert(.underline)
            case 7: pen.attributes.insert(.reverse)
            case 30...37: pen.foreground = .ansi(UInt8(code - 30))
            case 39: pen.foreground = .default
            case 40...47: pen.background = .ansi(UInt8(code - 40))
            case 49: pen.background = .default
            case 90...97: pen.foreground = .ansi(UInt8(code - 90 + 8))
            case 100...107: pen.background = .ansi(UInt8(code - 100 + 8))
            case 38, 48:
                precondition(index < codes.count, "replay: SGR \(code) without a color")
                let color: Color
                if codes[index] == 5, index + 1 < codes.count {
                    color = .indexed(UInt8(codes[index + 1]))
                    index += 2
                } else if codes[index] == 2, index + 3 < codes.count {
                    color = .rgb(UInt8(codes[index + 1]), UInt8(codes[index + 2]), UInt8(codes[index + 3]))
                    index += 4
                } else {
                    preconditionFailure("replay: SGR \(code) with an unknown color")
                }
                if code == 38 { pen.foreground = color } else { pen.background = color }
            default:
                preconditionFailure("replay: an unknown SGR code \(code)")
            }
        }
    }
}
