import TetherSQLite
import TetherTerminal

/// The edited invoice's lines in the form: a row of fields per line (`InvoiceLineRow`), kept
/// with its edits for as long as its line stays; the rows scrolled into view; which lines were
/// shown and which were deleted here; and where the focus goes when the line it is in goes
/// away (deleted here: to the line now at its place; by another program: out of the lines).
///
/// ```swift
/// let lines = LineEditor(current: current, needsDisplay: { terminal.setNeedsDisplay() })
/// if case .deletedElsewhere(let number) = lines.show(invoice.lines, focused: form.focusedWidget) {
///     print("line \(number) was deleted by another program")
/// }
/// ```
@MainActor
final class LineEditor {
    /// Where the focus goes when the line it was in is no longer shown.
    enum FocusedLineGone {
        /// Deleted here (Ctrl-K): to `next`, the description of the line now at its place, or
        /// nil when no line is left.
        case deletedHere(next: TextField?)
        /// Deleted by another program: line `number` (counted from 1) is gone, and nothing typed
        /// next may land in the line now at its place.
        case deletedElsewhere(number: Int)
    }

    /// The rows, top to bottom.
    private(set) var rows: [InvoiceLineRow] = []
    /// Told when another program replaced what the user was typing in a line's field, with the
    /// field's name (`Line 2 quantity`). Set by the form that shows the lines.
    var replacedElsewhere: ((any Widget, String) -> Void)?

    private let current: CurrentInvoice
    private let needsDisplay: @Sendable () -> Void
    /// The first line shown when they do not all fit.
    private var firstVisible = 0
    /// The ids of the lines shown for the edited invoice since it was chosen (a line deleted
    /// by another program is no longer among its lines when the change is told).
    private var shownIDs: Set<Int64> = []
    /// The lines deleted here (Ctrl-K), told apart from those another program deleted.
    private var deletedHere = Set<ObjectIdentifier>()
    /// The observations of the rows' lines and of their fields' replacements.
    private let observations = SerialDisposable()

    /// An editor for the lines of `current`'s invoice (its subscriptions run on its thread).
    init(current: CurrentInvoice, needsDisplay: @escaping @Sendable () -> Void) {
        self.current = current
        self.needsDisplay = needsDisplay
    }

    deinit {
        observations.dispose()
    }

    /// The rows' fields that take the focus, top to bottom, left to right.
    var fields: [any Widget] { rows.flatMap(\.fields) }

    /// Another invoice is edited: its lines are shown from the first.
    func invoiceChanged() {
        firstVisible = 0
        shownIDs = []
    }

    /// Whether the line with row id `id` was shown since the invoice was chosen.
    func hasShown(lineID id: Int64) -> Bool {
        shownIDs.contains(id)
    }

    /// Shows `lines`, keeping the rows (and their edits) of the lines still there. When the
    /// line of `focused` is not among them any more, says where the focus goes.
    func show(_ lines: [InvoiceLine], focused: (any Widget)?) -> FocusedLineGone? {
        let old = rows
        rows = lines.map { line in old.first { $0.line === line } ?? InvoiceLineRow(line: line) }
        shownIDs.formUnion(lines.compactMap(\.persistentID))
        observe()
        needsDisplay()
        guard let focused, let index = old.firstIndex(where: { row in row.fields.contains { $0 === focused } }),
              !rows.contains(where: { $0 === old[index] })
        else { return nil }
        if deletedHere.contains(ObjectIdentifier(old[index].line)) {
            return .deletedHere(next: rows.isEmpty ? nil : rows[min(index, rows.count - 1)].text)
        }
        return .deletedElsewhere(number: index + 1)
    }

    /// Redraws when a line changes, and reports a field whose text another program replaced.
    private func observe() {
        let needsDisplay = self.needsDisplay
        let all = CompoundDisposable()
        for (index, row) in rows.enumerated() {
            all.add(Tether.changes(of: row.line).subscribe(next: { _ in needsDisplay() }))
            for (field, name) in zip(row.fields, ["description", "quantity", "unit price"]) {
                all.add(InvoiceApp.replacements(of: field).subscribe(with: current) { [weak self] _, _ in
                    self?.replacedElsewhere?(field, "Line \(index + 1) \(name)")
                })
            }
        }
        observations.inner = all
    }

    /// The row of `line`, if it is shown.
    func row(of line: InvoiceLine) -> InvoiceLineRow? {
        rows.first { $0.line === line }
    }

    /// The index of the row whose field has the focus of `form`, if any.
    func focusedRow(in form: Form) -> Int? {
        rows.firstIndex { row in row.fields.contains { form.isFocused($0) } }
    }

    /// `line` is being deleted here: when the focus is in it, it goes to the line at its place.
    func deleting(_ line: InvoiceLine) {
        deletedHere.insert(ObjectIdentifier(line))
    }

    /// The number fields whose text is not valid, named with their text:
    /// `line 2 quantity "4x"`.
    var invalidFields: [String] {
        rows.enumerated().flatMap { index, row in
            [("quantity", row.quantity.error, row.quantity.text), ("unit price", row.unitPrice.error, row.unitPrice.text)]
                .filter { $0.1 != nil }
                .map { "line \(index + 1) \($0.0) \"\($0.2)\"" }
        }
    }

    /// Draws the lines in `rect`, leaving `below` rows under them: a header, as many rows as
    /// fit (scrolled to show the focused one), where they are when they do not all fit, and
    /// the first row's error. Returns the row after them.
    func render(into screen: inout Screen, in rect: Rect, leaving below: Int, form: Form) -> Int {
        let theme = form.theme
        var y = rect.y
        let shown = max(1, rect.maxY - y - 2 - below)
        // Narrower columns in a narrower window (80 columns); an amount that no longer fits
        // shows as #### (never as another number).
        let wide = rect.width >= 70
        let quantityWidth = wide ? InvoiceLineRow.quantityWidth : 7
        let priceWidth = wide ? InvoiceLineRow.moneyWidth : 12
        let amountWidth = wide ? InvoiceLineRow.amountWidth : 14
        let textWidth = max(8, min(InvoiceLineRow.textWidth, rect.width - 3 - quantityWidth - priceWidth - amountWidth))
        let columns = [textWidth, quantityWidth, priceWidth, amountWidth]
        var x = rect.x
        for (title, width) in zip(["Description", "Qty", "Unit price", "Amount"], columns) {
            let text = title == "Amount" ? String(repeating: " ", count: max(0, width - title.count)) + title : title
            screen.put(text, at: Position(x: x, y: y), style: theme.label, limit: min(rect.maxX, x + width))
            x += width + 1
        }
        y += 1
        if let focused = focusedRow(in: form) {
            if focused < firstVisible { firstVisible = focused }
            if focused >= firstVisible + shown { firstVisible = focused - shown + 1 }
        }
        firstVisible = max(0, min(firstVisible, rows.count - shown))
        if rows.isEmpty {
            screen.put("(no lines: Ctrl-L adds one)", at: Position(x: rect.x, y: y), style: theme.placeholder, limit: rect.maxX)
        }
        for row in rows.dropFirst(firstVisible).prefix(shown) {
            var x = rect.x
            for (widget, width) in zip([row.text, row.quantity, row.unitPrice, row.amount] as [any Widget], columns) {
                widget.render(into: &screen, in: Rect(x: x, y: y, width: min(width, max(0, rect.maxX - x)), height: 1), context: form.context(for: widget))
                x += width + 1
            }
            y += 1
        }
        y = max(y, rect.y + 1 + min(shown, max(1, rows.count)))
        if rows.count > shown {
            let place = "lines \(firstVisible + 1)-\(min(rows.count, firstVisible + shown)) of \(rows.count)"
            screen.put(place, at: Position(x: rect.x, y: y), style: theme.placeholder, limit: rect.maxX)
        }
        if let (index, error) = rows.enumerated().lazy.compactMap({ index, row in row.error.map { (index, $0) } }).first {
            screen.put("\(theme.errorPrefix)line \(index + 1) \(error)", at: Position(x: rect.x, y: y), style: theme.error, limit: rect.maxX)
        }
        return y + 1
    }
}
