// The hand-written peers of T1/T2: the same 20-field order form as a terminal program written
// without Tether or TetherTerminal, with plain Swift (no locks, no signals, no widgets):
//
// - the 12 editable fields' texts are strings (`texts`), the cursor is always at the end of the
//   text (the benchmark only types and deletes at the end);
// - a key edits the focused field's text; the text is parsed (`Int(_:)` for the quantities,
//   `Double(_:)` for the others) and, if valid and different, stored in the model's property,
//   whose `didSet` recomputes the 8 amounts; invalid text leaves the model alone (no error is
//   drawn: the benchmark types only valid text);
// - `keystrokeFullRedraw` then writes the whole screen as a naive terminal program does (the
//   way the well-known "kilo" editor does): hide the cursor, cursor home, every row followed by
//   "erase to the end of the line" (EL) and CR LF, the cursor placed, the cursor shown. It writes
//   the same styles Tether's form shows (underlined boxes, the focused box reversed, its label
//   bold, the amounts bold, the help line reversed), so the terminal shows the same picture;
// - `keystrokeChangedFields` formats the 20 boxes, compares them with what it wrote last, and for
//   each box that changed writes a cursor move, the style and the whole box (padded to its
//   width); then the cursor move. (Tether's renderer sends only the changed cells, so this
//   version writes more bytes than Tether; it is the least work a hand-written program does to
//   keep the terminal right, not the least bytes.)
//
// Frames are built as `String`s and handed to the same `ByteSink` as Tether's. The object is
// made by an `@inline(never)` function, as the other hand-written baselines are.

/// A key, as the hand-written program decodes it.
enum HandKey: Sendable {
    case character(Character)
    case backspace
}

/// The same text `NumberText.fixed(value, places: 2)` gives (rounded half away from zero).
func handFixed2(_ value: Double) -> String {
    let units = UInt64((abs(value) * 100).rounded(.toNearestOrAwayFromZero))
    let cents = units % 100
    let text = String(units / 100) + (cents < 10 ? ".0" : ".") + String(cents)
    return value < 0 && units != 0 ? "-" + text : text
}

final class HandOrderForm {
    static let width = 100
    static let height = 30
    static let title = "Order (T1: a 20-field form)"
    static let help = "Tab/Shift-Tab move - Enter confirm - Esc revert - Ctrl-C quit"
    static let labels = ["Customer", "Reference", "Quantity 1", "Unit price 1", "Quantity 2", "Unit price 2",
                         "Quantity 3", "Unit price 3", "Quantity 4", "Unit price 4", "Discount %", "Tax %",
                         "Line 1", "Line 2", "Line 3", "Line 4", "Subtotal", "Discount", "Tax", "Total"]
    static let labelWidth = 12
    /// Row of the first field; column of the labels and of the boxes.
    static let firstRow = 2
    static let labelColumn = 1
    static let boxColumn = 1 + 12 + 1
    static let textBoxWidth = 30
    static let numberBoxWidth = 14

    // The model: what the fields hold when their text is valid.
    var customer = "Ada Lovelace"
    var reference = "PO-2026-117"
    var quantities = [1, 3, 2, 5] {
        didSet { recompute() }
    }
    var prices = [2.5, 4.25, 10.0, 0.75] {
        didSet { recompute() }
    }
    var discount = 10.0 {
        didSet { recompute() }
    }
    var tax = 20.0 {
        didSet { recompute() }
    }
    /// Line 1-4, subtotal, discount, tax, total.
    private(set) var amounts = [Double](repeating: 0, count: 8)

    /// The editable fields' texts as typed, top to bottom.
    private(set) var texts = ["Ada Lovelace", "PO-2026-117", "1", "2.5", "3", "4.25", "2", "10", "5", "0.75", "10", "20"]
    /// The editable field with the focus (Quantity 1).
    let focused = 2
    /// What `keystrokeChangedFields` wrote last in each of the 20 boxes.
    private var shown = [String](repeating: "", count: 20)

    init() {
        recompute()
    }

    private func recompute() {
        for line in 0..<4 { amounts[line] = Double(quantities[line]) * prices[line] }
        amounts[4] = amounts[0] + amounts[1] + amounts[2] + amounts[3]
        amounts[5] = amounts[4] * discount / 100
        amounts[6] = (amounts[4] - amounts[5]) * tax / 100
        amounts[7] = amounts[4] - amounts[5] + amounts[6]
    }

    /// Edits the focused field's text and, if it is valid, the model.
    private func apply(_ key: HandKey) {
        switch key {
        case .character(let character): texts[focused].append(character)
        case .backspace: if !texts[focused].isEmpty { texts[focused].removeLast() }
        }
        let text = texts[focused]
        switch focused {
        case 0: customer = text
        case 1: reference = text
        case 2, 4, 6, 8:
            if let value = Int(text), (0...1_000_000).contains(value), value != quantities[focused / 2 - 1] {
                quantities[focused / 2 - 1] = value
            }
        case 3, 5, 7, 9:
            if let value = Double(text), value >= 0, value <= 1e9, value != prices[focused / 2 - 1] {
                prices[focused / 2 - 1] = value
            }
        case 10:
            if let value = Double(text), (0...100).contains(value), value != discount { discount = value }
        default:
            if let value = Double(text), (0...100).contains(value), value != tax { tax = value }
        }
    }

    /// What box `index` (0-19) shows: an editable field's text or an amount.
    private func boxText(_ index: Int) -> String {
        index < 12 ? texts[index] : handFixed2(amounts[index - 12])
    }

    /// The escape sequences and text of box `index`, starting with the cursor anywhere left of
    /// it on its row and the style reset; ends with the style reset.
    private func appendBox(_ index: Int, _ text: String, to out: inout String) {
        if index < 12 {
            let width = index < 2 ? Self.textBoxWidth : Self.numberBoxWidth
            out += index == focused ? "\u{1b}[7m" : "\u{1b}[4m"
            out += text
            out += String(repeating: " ", count: width - text.count)
            out += "\u{1b}[m"
        } else {
            out += String(repeating: " ", count: Self.numberBoxWidth - text.count)
            out += "\u{1b}[1m"
            out += text
            out += "\u{1b}[m"
        }
    }

    private func cursorMove(row: Int, column: Int) -> String {
        "\u{1b}[\(row + 1);\(column + 1)H"
    }

    private var cursor: (row: Int, column: Int) {
        (Self.firstRow + focused, Self.boxColumn + texts[focused].count)
    }

    /// The whole screen: cursor home, every row and "erase to the end of the line".
    private func fullFrame() -> String {
        var out = "\u{1b}[?25l\u{1b}[H"
        out += " \u{1b}[1m" + Self.title + "\u{1b}[m\u{1b}[K\r\n"
        out += "\u{1b}[K\r\n"
        for index in 0..<20 {
            let label = Self.labels[index]
            out += " "
            out += index == focused ? "\u{1b}[1m" + label + "\u{1b}[m" : label
            out += String(repeating: " ", count: Self.labelWidth - label.count + 1)
            appendBox(index, boxText(index), to: &out)
            out += "\u{1b}[K\r\n"
        }
        for _ in (Self.firstRow + 20)..<(Self.height - 1) {
            out += "\u{1b}[K\r\n"
        }
        // The help line fills the last row (no EL after it: the cursor waits in the last column).
        out += "\u{1b}[7m" + Self.help + String(repeating: " ", count: Self.width - Self.help.count) + "\u{1b}[m"
        out += cursorMove(row: cursor.row, column: cursor.column)
        out += "\u{1b}[?25h"
        return out
    }

    /// Draws the first frame in full.
    func start(_ sink: ByteSink) {
        for index in 0..<20 { shown[index] = boxText(index) }
        sink.write(fullFrame())
    }

    /// A keystroke, then the whole screen written again.
    func keystrokeFullRedraw(_ key: HandKey, to sink: ByteSink) {
        apply(key)
        sink.write(fullFrame())
    }

    /// A keystroke, then only the boxes whose text changed written again.
    func keystrokeChangedFields(_ key: HandKey, to sink: ByteSink) {
        apply(key)
        var out = ""
        for index in 0..<20 {
            let text = boxText(index)
            guard text != shown[index] else { continue }
            shown[index] = text
            out += cursorMove(row: Self.firstRow + index, column: Self.boxColumn)
            appendBox(index, text, to: &out)
        }
        out += cursorMove(row: cursor.row, column: cursor.column)
        sink.write(out)
    }
}

@inline(never)
func makeHandOrderForm() -> HandOrderForm {
    HandOrderForm()
}
