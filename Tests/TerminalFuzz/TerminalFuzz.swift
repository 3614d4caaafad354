// `terminal-fuzz`: the key decoder, the widgets and the renderer under libFuzzer.
//
// One input is the bytes a terminal sends: its first two bytes choose the window's size, the
// rest is decoded into keys (escape sequences, UTF-8, pastes, garbage), which edit a text field
// and a number field in a form beside a list; after each chunk the form is rendered and diffed.
// A run stops (traps) on any of: a trap inside the toolkit, a byte below 0x20 in the output
// that is not part of the renderer's own sequences (ESC [ ... , CR, LF), a cursor outside the
// window, a row whose cells do not add up to the window's width.
//
// Built by `scripts/fuzz-terminal.sh` with `TETHER_FUZZ=1` (-sanitize=fuzzer, FUZZING); built
// plainly (as `swift build` builds it), it replays inputs: `terminal-fuzz crash-1234...`.

import CTerminalFuzzDriver
import TetherTerminal

#if canImport(Glibc)
import Glibc
#endif

/// Runs one input; traps when an invariant does not hold.
func fuzzOne(_ bytes: [UInt8]) {
    guard bytes.count >= 2 else { return }
    let size = Size(width: Int(bytes[0] % 130), height: Int(bytes[1] % 50))
    var decoder = KeyDecoder()
    var renderer = FrameRenderer()
    let text = TextField("Name", width: Int(bytes[0] % 40))
    let number = NumberField<Double>.decimal("Amount", range: 0...1_000_000, width: 9)
    let list = ListView<String>(title: "List", height: 5) { $0 }
    let status = StatusLine(help: "Tab move · Ctrl-C quit")
    let form = Form([text, number, list])
    var chunks = bytes.dropFirst(2)[...]
    while !chunks.isEmpty {
        let chunk = chunks.prefix(Int(chunks.first ?? 1) % 16 + 1)
        chunks = chunks.dropFirst(chunk.count)
        for key in decoder.decode(chunk) {
            if case .paste(let pasted) = key { list.setItems([pasted] + list.items.prefix(6)) }
            _ = form.handle(key)
            if case .character(let character) = key, character == "!" { status.setMessage(text.text) }
        }
        var screen = Screen(size: size)
        let (body, bar) = screen.bounds.dividedRows(at: max(0, size.height - 1))
        form.render(into: &screen, in: body)
        status.render(into: &screen, in: bar, context: RenderContext())
        check(screen, renderer.render(screen))
    }
    for key in decoder.flush() { _ = form.handle(key) }
}

/// Traps unless `output` (the bytes for `screen`) holds only the renderer's own controls, the
/// cursor is inside the window, and every row's cells add up to its width.
func check(_ screen: Screen, _ output: String) {
    let scalars = Array(output.unicodeScalars)
    var index = 0
    while index < scalars.count {
        let value = scalars[index].value
        index += 1
        if value == 0x1b {
            precondition(index < scalars.count && scalars[index] == "[", "ESC not followed by [")
            index += 1
            while index < scalars.count, (0x30...0x3f).contains(scalars[index].value) { index += 1 }
            precondition(index < scalars.count && (0x40...0x7e).contains(scalars[index].value), "an unterminated sequence")
            index += 1
        } else {
            precondition(value >= 0x20 && !(0x7f..<0xa0).contains(value) || value == 0x0d || value == 0x0a,
                         "control character U+\(String(value, radix: 16)) in the output")
        }
    }
    if let cursor = screen.cursor { precondition(screen.bounds.contains(cursor), "the cursor \(cursor) is outside \(screen.size)") }
    for y in 0..<screen.size.height {
        var columns = 0
        var x = 0
        while x < screen.size.width {
            let cell = screen[x, y]
            precondition(!cell.isContinuation, "a continuation cell without its wide character at (\(x), \(y))")
            columns += Int(cell.width)
            x += Int(cell.width)
        }
        precondition(columns == screen.size.width, "row \(y) has \(columns) columns, not \(screen.size.width)")
    }
}

/// Runs the inputs libFuzzer makes (built with `TETHER_FUZZ=1`), or replays the inputs named on
/// the command line (files libFuzzer wrote).
@main
struct TerminalFuzz {
    static func main() {
        #if FUZZING
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            guard let data else { return 0 }
            fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        })
        #else
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else {
                print("terminal-fuzz: cannot read \(path)")
                exit(1)
            }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer.prefix(count) }
            fclose(file)
            fuzzOne(bytes)
            print("\(path): no failure")
        }
        #endif
    }
}
