// T1 and T2 (issue 6): a keystroke in a field of a 20-field form, through to the bytes written
// to the terminal, with the terminal replaced by a byte sink (an in-memory buffer).
//
// The form: an order with 12 editable fields (2 text, 10 numbers) and 8 computed fields (four
// line amounts, the subtotal, the discount, the tax, the total), on a 100x30 screen (a title
// row, the 20 fields one per row, the help line at the bottom). The focus is in "Quantity 1".
// One operation is one keystroke. A sample types "2" after the field's "1", then a digit and
// Backspace in turn (1 -> 12 -> 122 -> 12 -> 123 -> 12 -> ... -> 12x after its 1,000 keys), so
// every keystroke changes the quantity and with it 5 of the 8 computed values (line 1, subtotal,
// discount, tax, total).
//
// Versions, in the same run:
// - Tether: a `@Model` (`T1Order`, computed properties for the 8 amounts), TetherTerminal
//   widgets bound to it through two-way channels as the invoice sample binds them
//   (`field.bind(to: channel(order, \.quantity1))`, `ComputedField(..., observe(order, \.total))`),
//   a `Form` that takes the key (`form.handle(key)`), a `Screen` rendered from the widgets, and
//   `FrameRenderer.render` (the diff against the previous frame) written to the sink. Measured
//   with the Observation bridge on (the default) and off.
// - Hand-written, full redraw (HandWrittenTerminal.swift): plain Swift, no Tether: the field
//   texts as strings, `didSet` recomputing the 8 amounts, and every keystroke the whole screen
//   written again as a naive terminal program does (cursor home, every row, erase to the end of
//   each row, the cursor placed).
// - Hand-written, changed fields only: the same program writing only the boxes whose text
//   changed (cursor move, style, the box's text), then the cursor move.
//
// T2 is the bytes each version writes per keystroke: a custom metric ("Bytes written", the
// sample's total; summarize.py divides it by the 1,000 keystrokes of a sample). Two more custom
// metrics say what those bytes draw: "Characters written" (the characters a terminal fed with
// the sample's bytes put into cells, counted by `TerminalReplay` after the measurement) and
// "Cells changed" (the cells that differ between consecutive frames, counted by `verifyT1()`
// for the same keystrokes: the least any version must draw).
//
// Checks (preconditions; a failed one stops the run): before a T1 benchmark's first measurement
// (once per process: `t1Verified`), `verifyT1()` types 1,000 keystrokes into every version and,
// after each one, checks the model's quantity, the 8 computed values, the text the computed
// fields show, and what a terminal fed with everything written so far shows (`TerminalReplay`:
// every cell's character and style, and the cursor) against the frame Tether renders for that
// state: so all versions put the same picture on the terminal. For Tether it also checks that
// the characters written are the changed cells, each once, plus only cells re-sent unchanged.
// It records each version's bytes for the 1,000 keystrokes. After each measured sample, the
// benchmark checks the model's final values, that the sample wrote exactly the bytes the
// verification recorded for that version, and that a terminal fed with the first frame and the
// sample's bytes shows the final frame.
import Benchmark
import TetherTerminal

// MARK: The model

/// The order the form edits: 12 editable properties and 8 computed ones.
@Model
final class T1Order {
    var customer = "Ada Lovelace"
    var reference = "PO-2026-117"
    var quantity1 = 1
    var price1 = 2.5
    var quantity2 = 3
    var price2 = 4.25
    var quantity3 = 2
    var price3 = 10.0
    var quantity4 = 5
    var price4 = 0.75
    var discount = 10.0   // percent
    var tax = 20.0        // percent

    var line1: Double { Double(quantity1) * price1 }
    var line2: Double { Double(quantity2) * price2 }
    var line3: Double { Double(quantity3) * price3 }
    var line4: Double { Double(quantity4) * price4 }
    var subtotal: Double { line1 + line2 + line3 + line4 }
    var discountAmount: Double { subtotal * discount / 100 }
    var taxAmount: Double { (subtotal - discountAmount) * tax / 100 }
    var total: Double { subtotal - discountAmount + taxAmount }
}

// MARK: The layout, shared by every version

enum T1Layout {
    static let size = Size(width: 100, height: 30)
    static let title = "Order (T1: a 20-field form)"
    static let help = "Tab/Shift-Tab move - Enter confirm - Esc revert - Ctrl-C quit"
    /// The computed fields' labels, top to bottom.
    static let computedLabels = ["Line 1", "Line 2", "Line 3", "Line 4", "Subtotal", "Discount", "Tax", "Total"]
    static let textBoxWidth = 30
    static let numberBoxWidth = 14
    /// The fields start on this row (the title is on row 0), one row each.
    static let firstFieldRow = 2
    /// The fields' column (the form's rectangle is inset by 1).
    static let left = 1
    /// The index (among the 20 fields) of the field typed into.
    static let focusedField = 2

    /// The keystrokes of one sample (its scaling factor).
    static let keysPerSample = 1_000

    /// The digit keystroke `i` types, or nil for Backspace: "2" first, then odd keystrokes type
    /// 2...9 in turn and even ones delete that digit again.
    static func digit(_ i: Int) -> Character? {
        if i == 0 { return "2" }
        return i % 2 == 1 ? Character(String(2 + (i / 2) % 8)) : nil
    }

    /// The quantity after keystroke `i` (1 before any).
    static func quantity(after i: Int) -> Int {
        if i == 0 || i % 2 == 0 { return 12 }
        return 120 + Int(String(digit(i)!))!
    }
}

/// The 8 amounts for a quantity in line 1, computed here from the initial values (independent
/// of every version's code).
func t1ExpectedAmounts(quantity1: Int) -> [Double] {
    let lines = [Double(quantity1) * 2.5, 3 * 4.25, 2 * 10.0, 5 * 0.75]
    let subtotal = lines[0] + lines[1] + lines[2] + lines[3]
    let discount = subtotal * 10 / 100
    let tax = (subtotal - discount) * 20 / 100
    return lines + [subtotal, discount, tax, subtotal - discount + tax]
}

// MARK: The byte sink

/// Where the frames go instead of a terminal: an in-memory buffer, reserved beforehand.
final class ByteSink {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends the frame's UTF-8 bytes (what `Terminal.write` hands to `write(2)`).
    @inline(never)
    func write(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    var count: Int { bytes.count }

    func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }
}

// MARK: The Tether version

/// The form built from TetherTerminal widgets bound to a `T1Order`, as the invoice sample
/// builds its form. Create and use it on one thread (the model's).
final class T1TetherForm {
    let order = T1Order()
    let customer = TextField("Customer", width: T1Layout.textBoxWidth)
    let reference = TextField("Reference", width: T1Layout.textBoxWidth)
    let quantities: [NumberField<Int>]
    let prices: [NumberField<Double>]
    let discount = NumberField<Double>.decimal("Discount %", range: 0...100, width: T1Layout.numberBoxWidth)
    let tax = NumberField<Double>.decimal("Tax %", range: 0...100, width: T1Layout.numberBoxWidth)
    let amounts: [ComputedField<Double>]
    let status = StatusLine(help: T1Layout.help)
    let form: Form
    var renderer = FrameRenderer()

    init() {
        let width = T1Layout.numberBoxWidth
        quantities = (1...4).map { NumberField<Int>.integer("Quantity \($0)", range: 0...1_000_000, width: width) }
        prices = (1...4).map { NumberField<Double>.decimal("Unit price \($0)", range: 0...1_000_000_000, width: width) }
        customer.bind(to: channel(order, \.customer))
        reference.bind(to: channel(order, \.reference))
        quantities[0].bind(to: channel(order, \.quantity1))
        prices[0].bind(to: channel(order, \.price1))
        quantities[1].bind(to: channel(order, \.quantity2))
        prices[1].bind(to: channel(order, \.price2))
        quantities[2].bind(to: channel(order, \.quantity3))
        prices[2].bind(to: channel(order, \.price3))
        quantities[3].bind(to: channel(order, \.quantity4))
        prices[3].bind(to: channel(order, \.price4))
        discount.bind(to: channel(order, \.discount))
        tax.bind(to: channel(order, \.tax))
        let money: @Sendable (Double) -> String = { NumberText.fixed($0, places: 2) }
        let labels = T1Layout.computedLabels
        amounts = [
            ComputedField(labels[0], observe(order, \.line1), width: width, alignment: .trailing, format: money),
            ComputedField(labels[1], observe(order, \.line2), width: width, alignment: .trailing, format: money),
            ComputedField(labels[2], observe(order, \.line3), width: width, alignment: .trailing, format: money),
            ComputedField(labels[3], observe(order, \.line4), width: width, alignment: .trailing, format: money),
            ComputedField(labels[4], observe(order, \.subtotal), width: width, alignment: .trailing, format: money),
            ComputedField(labels[5], observe(order, \.discountAmount), width: width, alignment: .trailing, format: money),
            ComputedField(labels[6], observe(order, \.taxAmount), width: width, alignment: .trailing, format: money),
            ComputedField(labels[7], observe(order, \.total), width: width, alignment: .trailing, format: money),
        ]
        var editable: [any Widget] = [customer, reference]
        for line in 0..<4 { editable += [quantities[line], prices[line]] }
        editable += [discount, tax]
        form = Form(editable + amounts)
        form.focus(quantities[0])
    }

    /// The frame: the title, the 20 fields, the help line. Pure: it only reads the widgets.
    func render() -> Screen {
        var screen = Screen(size: T1Layout.size)
        let (body, bar) = screen.bounds.dividedRows(at: T1Layout.size.height - 1)
        screen.put(T1Layout.title, at: Position(x: T1Layout.left, y: 0), style: form.theme.title, limit: body.maxX)
        form.render(into: &screen, in: body.inset(top: T1Layout.firstFieldRow, left: T1Layout.left))
        status.render(into: &screen, in: bar, context: RenderContext(theme: form.theme))
        return screen
    }

    /// Draws the first frame (in full).
    func start(_ sink: ByteSink) {
        sink.write(renderer.render(render()))
    }

    /// One keystroke: the focused field takes the key (the model and the computed fields
    /// follow through their bindings), the frame is rendered and its diff written.
    func keystroke(_ key: Key, to sink: ByteSink) {
        _ = form.handle(key)
        let bytes = renderer.render(render())
        if !bytes.isEmpty { sink.write(bytes) }
    }

    /// The model's 8 amounts.
    var modelAmounts: [Double] {
        [order.line1, order.line2, order.line3, order.line4, order.subtotal, order.discountAmount, order.taxAmount, order.total]
    }
}

/// Keystroke `i` as a TetherTerminal key.
func t1Key(_ i: Int) -> Key {
    T1Layout.digit(i).map { Key.character($0) } ?? .backspace
}

/// Keystroke `i` as the hand-written program's key.
func t1HandKey(_ i: Int) -> HandKey {
    T1Layout.digit(i).map { HandKey.character($0) } ?? .backspace
}

/// A sample's keystrokes, made before the measurement (so no version times making its keys).
let t1Keys = (0..<T1Layout.keysPerSample).map(t1Key)
let t1HandKeys = (0..<T1Layout.keysPerSample).map(t1HandKey)

// MARK: Checks

/// What `verifyT1()` recorded: the bytes each version wrote for `T1Layout.keysPerSample`
/// keystrokes (each sample types the same keys from the same state, so it must write exactly as
/// many), and the frame after them.
struct T1Verified: Sendable {
    var tether = 0
    var handFull = 0
    var handChanged = 0
    /// The cells that differ between consecutive frames, summed over the keystrokes.
    var cellsChanged = 0
    var finalFrame = Screen(size: T1Layout.size)
}

/// Verified once per process, when a T1 benchmark first runs (before its first measurement):
/// processes that run other benchmarks do not pay for it.
let t1Verified = verifyT1()

/// Checks that the Tether form shows `quantity` and its amounts: the model, the computed
/// fields' text, the quantity field's text.
func checkTetherState(_ app: T1TetherForm, quantity: Int, _ what: String) {
    let expected = t1ExpectedAmounts(quantity1: quantity)
    precondition(app.order.quantity1 == quantity, "T1 check failed (\(what)): the model's quantity is \(app.order.quantity1), expected \(quantity)")
    precondition(app.quantities[0].text == String(quantity), "T1 check failed (\(what)): the field shows \(app.quantities[0].text)")
    precondition(app.modelAmounts == expected, "T1 check failed (\(what)): the model's amounts are \(app.modelAmounts), expected \(expected)")
    let shown = app.amounts.map(\.text)
    let formatted = expected.map { NumberText.fixed($0, places: 2) }
    precondition(shown == formatted, "T1 check failed (\(what)): the computed fields show \(shown), expected \(formatted)")
}

/// Checks that the hand-written program holds `quantity` and its amounts.
func checkHandState(_ hand: HandOrderForm, quantity: Int, _ what: String) {
    let expected = t1ExpectedAmounts(quantity1: quantity)
    precondition(hand.quantities[0] == quantity && hand.texts[T1Layout.focusedField] == String(quantity),
                 "T1 check failed (\(what)): quantity \(hand.quantities[0]), text \(hand.texts[T1Layout.focusedField]), expected \(quantity)")
    precondition(hand.amounts == expected, "T1 check failed (\(what)): amounts \(hand.amounts), expected \(expected)")
}

func checkReplay(_ terminal: TerminalReplay, shows screen: Screen, _ what: String) {
    precondition(terminal.shows(screen), "T1 check failed (\(what)): \(terminal.difference(from: screen))")
}

/// Types the keys of one sample into every version and checks each keystroke (see the file's
/// comment); returns each version's bytes for the sample.
func verifyT1() -> T1Verified {
    var expected = T1Verified()
    let app = T1TetherForm()
    let hand = makeHandOrderForm()
    let handChanged = makeHandOrderForm()
    let sinks = (tether: ByteSink(capacity: 1 << 16), full: ByteSink(capacity: 1 << 16), changed: ByteSink(capacity: 1 << 16))
    var terminals = (tether: TerminalReplay(size: T1Layout.size), full: TerminalReplay(size: T1Layout.size),
                     changed: TerminalReplay(size: T1Layout.size))

    // The first frame, in full.
    app.start(sinks.tether)
    hand.start(sinks.full)
    handChanged.start(sinks.changed)
    var frame = app.render()
    precondition(frame.lines[T1Layout.firstFieldRow + T1Layout.focusedField].hasPrefix(" Quantity 1   1"),
                 "T1 check failed: the focused row is \(frame.lines[T1Layout.firstFieldRow + T1Layout.focusedField])")
    precondition(frame.cursor == Position(x: 15, y: T1Layout.firstFieldRow + T1Layout.focusedField),
                 "T1 check failed: the cursor is at \(frame.cursor.map { "\($0)" } ?? "nil")")
    checkTetherState(app, quantity: 1, "first frame")
    checkHandState(hand, quantity: 1, "first frame")
    terminals.tether.feed(sinks.tether.bytes)
    terminals.full.feed(sinks.full.bytes)
    terminals.changed.feed(sinks.changed.bytes)
    for sink in [sinks.tether, sinks.full, sinks.changed] { sink.removeAll() }
    checkReplay(terminals.tether, shows: frame, "Tether, first frame")
    checkReplay(terminals.full, shows: frame, "hand-written full redraw, first frame")
    checkReplay(terminals.changed, shows: frame, "hand-written changed fields, first frame")

    for i in 0..<T1Layout.keysPerSample {
        let what = "keystroke \(i)"
        let quantity = T1Layout.quantity(after: i)
        let before = (sinks.tether.count, sinks.full.count, sinks.changed.count)
        app.keystroke(t1Keys[i], to: sinks.tether)
        hand.keystrokeFullRedraw(t1HandKeys[i], to: sinks.full)
        handChanged.keystrokeChangedFields(t1HandKeys[i], to: sinks.changed)
        checkTetherState(app, quantity: quantity, "Tether, " + what)
        checkHandState(hand, quantity: quantity, "hand-written full redraw, " + what)
        checkHandState(handChanged, quantity: quantity, "hand-written changed fields, " + what)
        let previous = frame
        frame = app.render()
        let changed = zip(previous.cells, frame.cells).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
        expected.cellsChanged += changed
        let written = (terminals.tether.charactersWritten, terminals.tether.unchangedRewrites)
        terminals.tether.feed(sinks.tether.bytes[before.0...])
        // Tether writes every changed cell once, and otherwise only unchanged cells re-sent (in
        // place of a longer cursor move).
        precondition(terminals.tether.charactersWritten - written.0 - (terminals.tether.unchangedRewrites - written.1) == changed,
                     "T1 check failed (Tether, \(what)): \(terminals.tether.charactersWritten - written.0) characters written, "
                     + "\(terminals.tether.unchangedRewrites - written.1) of them unchanged, for \(changed) changed cells")
        terminals.full.feed(sinks.full.bytes[before.1...])
        terminals.changed.feed(sinks.changed.bytes[before.2...])
        checkReplay(terminals.tether, shows: frame, "Tether, " + what)
        checkReplay(terminals.full, shows: frame, "hand-written full redraw, " + what)
        checkReplay(terminals.changed, shows: frame, "hand-written changed fields, " + what)
        precondition(sinks.tether.count > before.0 && sinks.full.count > before.1 && sinks.changed.count > before.2,
                     "T1 check failed (\(what)): a version wrote nothing")
    }
    expected.tether = sinks.tether.count
    expected.handFull = sinks.full.count
    expected.handChanged = sinks.changed.count
    expected.finalFrame = frame
    return expected
}

/// After a measured sample: the final state, the sample's bytes (exactly as many as the
/// verification's), and a terminal fed with the first frame and the sample's bytes shows the
/// final frame.
/// Returns the characters the sample's bytes wrote into cells.
func checkTetherSample(_ app: T1TetherForm, first: [UInt8], sink: ByteSink, expectedBytes: Int, _ what: String) -> Int {
    checkTetherState(app, quantity: T1Layout.quantity(after: T1Layout.keysPerSample - 1), what)
    return checkSampleBytes(first: first, sink: sink, expectedBytes: expectedBytes, frame: app.render(), what)
}

/// Returns the characters the sample's bytes wrote into cells.
func checkHandSample(_ hand: HandOrderForm, first: [UInt8], sink: ByteSink, expectedBytes: Int, frame: Screen, _ what: String) -> Int {
    checkHandState(hand, quantity: T1Layout.quantity(after: T1Layout.keysPerSample - 1), what)
    return checkSampleBytes(first: first, sink: sink, expectedBytes: expectedBytes, frame: frame, what)
}

func checkSampleBytes(first: [UInt8], sink: ByteSink, expectedBytes: Int, frame: Screen, _ what: String) -> Int {
    precondition(sink.count == expectedBytes, "T1 check failed (\(what)): \(sink.count) bytes written, expected \(expectedBytes)")
    var terminal = TerminalReplay(size: T1Layout.size)
    terminal.feed(first)
    let before = terminal.charactersWritten
    terminal.feed(sink.bytes)
    checkReplay(terminal, shows: frame, what)
    return terminal.charactersWritten - before
}

// MARK: Benchmarks

/// T2: the bytes a sample wrote (divided by the sample's keystrokes in summarize.py).
let bytesWritten = BenchmarkMetric.custom("Bytes written", polarity: .prefersSmaller, useScalingFactor: true)
/// The characters those bytes put into cells.
let charactersWritten = BenchmarkMetric.custom("Characters written", polarity: .prefersSmaller, useScalingFactor: true)
/// The cells that changed on screen during the sample (the same for every version).
let cellsChanged = BenchmarkMetric.custom("Cells changed", polarity: .prefersSmaller, useScalingFactor: true)

func registerT1() {
    precondition(T1Layout.keysPerSample == 1_000, "a sample's keystrokes are the scaling factor")
    let config = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, bytesWritten, charactersWritten, cellsChanged],
        // Microseconds: a sample takes tens of milliseconds, which in nanoseconds would be
        // printed with three significant digits.
        timeUnits: .microseconds,
        units: [.mallocCountTotal: .count, bytesWritten: .count, charactersWritten: .count, cellsChanged: .count],
        scalingFactor: .kilo,
        maxDuration: .seconds(3)
    )
    let name = "T1 keystroke, 20-field form"

    for bridge in [true, false] {
        Benchmark("\(name) — \(tetherLabel(bridge: bridge))", configuration: config) { benchmark in
            let expected = t1Verified
            withObservationBridge(bridge) {
                let app = T1TetherForm()
                let first = ByteSink(capacity: 1 << 14)
                app.start(first)
                let sink = ByteSink(capacity: 2 * expected.tether)
                let keys = t1Keys
                benchmark.startMeasurement()
                for i in benchmark.scaledIterations { app.keystroke(keys[i], to: sink) }
                benchmark.stopMeasurement()
                let characters = checkTetherSample(app, first: first.bytes, sink: sink, expectedBytes: expected.tether,
                                                   "Tether, bridge \(bridge), a measured sample")
                benchmark.measurement(bytesWritten, sink.count)
                benchmark.measurement(charactersWritten, characters)
                benchmark.measurement(cellsChanged, expected.cellsChanged)
            }
        }
    }
    Benchmark("\(name) — Hand (full redraw)", configuration: config) { benchmark in
        let expected = t1Verified
        let hand = makeHandOrderForm()
        let first = ByteSink(capacity: 1 << 14)
        hand.start(first)
        let sink = ByteSink(capacity: 2 * expected.handFull)
        let keys = t1HandKeys
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { hand.keystrokeFullRedraw(keys[i], to: sink) }
        benchmark.stopMeasurement()
        let characters = checkHandSample(hand, first: first.bytes, sink: sink, expectedBytes: expected.handFull,
                                         frame: expected.finalFrame, "hand-written full redraw, a measured sample")
        benchmark.measurement(bytesWritten, sink.count)
        benchmark.measurement(charactersWritten, characters)
        benchmark.measurement(cellsChanged, expected.cellsChanged)
    }
    Benchmark("\(name) — Hand (changed fields)", configuration: config) { benchmark in
        let expected = t1Verified
        let hand = makeHandOrderForm()
        let first = ByteSink(capacity: 1 << 14)
        hand.start(first)
        let sink = ByteSink(capacity: 2 * expected.handChanged)
        let keys = t1HandKeys
        benchmark.startMeasurement()
        for i in benchmark.scaledIterations { hand.keystrokeChangedFields(keys[i], to: sink) }
        benchmark.stopMeasurement()
        let characters = checkHandSample(hand, first: first.bytes, sink: sink, expectedBytes: expected.handChanged,
                                         frame: expected.finalFrame, "hand-written changed fields, a measured sample")
        benchmark.measurement(bytesWritten, sink.count)
        benchmark.measurement(charactersWritten, characters)
        benchmark.measurement(cellsChanged, expected.cellsChanged)
    }
}
