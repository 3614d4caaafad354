import TetherSQLite
import TetherTerminal

/// The invoice form: a list of invoices on the left, the selected invoice's fields on the
/// right, the keys on a help line at the bottom.
///
/// Every field is bound to the selected invoice through a two-way channel
/// (`customer.bind(to: channel(invoice, \.customer))`); the computed amounts are
/// `ComputedField`s observing `@Model` computed properties through the `CurrentInvoice` model
/// (`observe(current, \.invoice?.total)`), so they follow both the selection and every edit
/// without any code of their own. The store writes each change through.
///
/// Keys:
/// - Tab / Shift-Tab and Down / Up move between the list and the fields; in the list, Up/Down
///   (PageUp/PageDown, Home/End) choose the invoice, Enter goes to its first field.
/// - In a field: typing edits the invoice at once; Enter confirms; Esc reverts the field to
///   its value from before the edit. A number field with text that is not a valid number shows
///   an error beside it, keeps the text, and leaves the invoice (and the database) unchanged.
/// - Ctrl-N adds an invoice; Ctrl-D deletes the selected one after asking (y/n).
/// - Ctrl-C quits; so does q while the list has the focus (in a field, q is text).
///
/// The app is pure apart from the store: `render(_:)` turns the state into a `Screen`, and
/// `handle(_:)` takes keys, so tests drive it without a terminal.
///
/// ```swift
/// let app = InvoiceApp(store: store, invoices: invoiceList(store)) { terminal.setNeedsDisplay() }
/// try await terminal.run(render: app.render, handle: app.handle)
/// ```
@MainActor
public final class InvoiceApp {
    /// The help line's text.
    public static let help =
        "Tab/Shift-Tab/↑↓ move · Enter confirm · Esc revert · Ctrl-N new · Ctrl-D delete · Ctrl-C or q (in list) quit"
    /// Columns of the list.
    public static let listWidth = 40

    /// The store the invoices live in.
    public let store: Store
    /// What the title row shows after "Invoices" (the database's path, in the app).
    public let title: String
    /// The invoice being edited.
    public let current = CurrentInvoice()

    /// The invoices, ordered by number.
    public let list: ListView<Invoice>
    /// Who the invoice is for.
    public let customer = TextField("Customer", width: 40)
    /// A note.
    public let note = TextField("Note", width: 50)
    /// How many units.
    public let quantity = NumberField<Int>.integer("Quantity", range: 0...1_000_000, width: 14)
    /// The price of one unit.
    public let unitPrice = NumberField<Double>.decimal("Unit price", range: 0...1_000_000_000, width: 14)
    /// The discount in percent; empty for none.
    public let discount = NumberField<Double?>(
        "Discount %", width: 14, parse: InvoiceApp.parseOptionalPercent, format: { $0.map(NumberText.format) ?? "" })
    /// The tax rate in percent.
    public let tax = NumberField<Double>.decimal("Tax %", range: 0...100, width: 14)
    /// quantity × unit price.
    public let subtotal: ComputedField<Double?>
    /// The discount's amount.
    public let discountAmount: ComputedField<Double?>
    /// The tax's amount.
    public let taxAmount: ComputedField<Double?>
    /// The total.
    public let total: ComputedField<Double?>
    /// The bottom line: a message (a question, an error) and the help.
    public let status = StatusLine(help: InvoiceApp.help)
    /// The focus: the list first, then the fields.
    public let form: Form
    /// The widgets of the right-hand column, top to bottom.
    public let fieldWidgets: [any Widget]

    private let needsDisplay: @Sendable () -> Void
    /// What the fields are bound to while no invoice is selected (never stored, never shown).
    private let blank = Invoice()
    /// The invoice Ctrl-D asked about; the next key answers.
    private var pendingDelete: Invoice?
    /// An invoice this app added that the list has not shown yet.
    private var added: Invoice?
    private let listSubscription = SerialDisposable()
    private let selectedChanges = SerialDisposable()
    private let errorSubscription = SerialDisposable()

    /// Creates the app on `store`, showing the lists `invoices` sends (`invoiceList(store)`).
    /// `needsDisplay` is called when what is shown changed without a key (the list changed, or
    /// the selected invoice was changed by someone else): pass `terminal.setNeedsDisplay`.
    ///
    /// ```swift
    /// let app = InvoiceApp(store: store, invoices: invoiceList(store), title: path) { terminal.setNeedsDisplay() }
    /// ```
    public init(
        store: Store,
        invoices: Signal<[Invoice], StoreError>,
        title: String = "",
        needsDisplay: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.title = title
        self.needsDisplay = needsDisplay
        list = ListView<Invoice>(title: "Invoices", height: 10_000, emptyText: "(none: Ctrl-N adds one)") { InvoiceApp.row(for: $0) }
        let money: @Sendable (Double?) -> String = { $0.map { NumberText.fixed($0, places: 2) } ?? "" }
        subtotal = ComputedField("Subtotal", observe(current, \.invoice?.subtotal), width: 14, alignment: .trailing, format: money)
        discountAmount = ComputedField("Discount", observe(current, \.invoice?.discountAmount), width: 14, alignment: .trailing, format: money)
        taxAmount = ComputedField("Tax", observe(current, \.invoice?.taxAmount), width: 14, alignment: .trailing, format: money)
        total = ComputedField("Total", observe(current, \.invoice?.total), width: 14, alignment: .trailing, format: money)
        fieldWidgets = [customer, note, quantity, unitPrice, discount, tax, Label(""), subtotal, discountAmount, taxAmount, total]
        form = Form([list] + fieldWidgets)
        bindFields(to: blank)

        listSubscription.inner = invoices.subscribe(
            with: current,
            next: { [weak self] _, invoices in self?.show(invoices) },
            error: { [weak self] _, error in self?.report("Cannot read the invoices: \(error)") }
        )
        errorSubscription.inner = store.errors.subscribe(with: current) { [weak self] _, error in
            self?.report("Not saved: \(error)")
        }
    }

    deinit {
        listSubscription.dispose()
        selectedChanges.dispose()
        errorSubscription.dispose()
    }

    // MARK: Keys

    /// Handles one terminal event: keys (see `handle(_:)` for keys); a closed input quits.
    public func handle(_ event: TerminalEvent) -> TerminalAction {
        switch event {
        case .key(let key): return handle(key)
        case .resize: return .continue
        case .inputClosed: return .quit
        }
    }

    /// Handles one key (see the type's documentation) and says whether to quit.
    ///
    /// ```swift
    /// app.handle(.tab)                 // the focus moves from the list to Customer
    /// app.handle(.character("A"))      // the invoice's customer is now "A…"
    /// ```
    public func handle(_ key: Key) -> TerminalAction {
        if key == .control("c") { return .quit }
        if let invoice = pendingDelete {
            pendingDelete = nil
            if key == .character("y") || key == .character("Y") {
                delete(invoice)
            } else {
                status.setMessage("Kept invoice #\(invoice.number).")
            }
            return .continue
        }
        status.setMessage(nil)
        switch key {
        case .control("n"):
            add()
            return .continue
        case .control("d"):
            askToDelete()
            return .continue
        default:
            break
        }
        guard current.invoice != nil else {
            // Nothing to edit: only the (empty) list takes keys.
            form.focus(list)
            return key == .character("q") ? .quit : .continue
        }
        if form.handle(key) == .ignored {
            // Keys nobody used: q outside a field quits; Enter in the list edits the invoice.
            if key == .character("q") { return .quit }
            if key == .enter, form.isFocused(list) { form.focus(customer) }
        }
        if form.isFocused(list) { select(list.selectedItem) }
        return .continue
    }

    // MARK: Rendering

    /// Draws the app on a screen of `size`: the title row, the list, the selected invoice's
    /// fields, and the status line at the bottom. Pure: it only reads the state.
    ///
    /// ```swift
    /// let screen = app.render(Size(width: 120, height: 40))
    /// print(screen.lines.joined(separator: "\n"))
    /// ```
    public func render(_ size: Size) -> Screen {
        var screen = Screen(size: size)
        guard size.width > 0, size.height > 0 else { return screen }
        let theme = form.theme
        let (body, bar) = screen.bounds.dividedRows(at: size.height - 1)
        screen.put(title.isEmpty ? "Invoices" : "Invoices · \(title)", at: Position(x: 1, y: 0), style: theme.title, limit: body.maxX)
        let content = body.inset(top: 2, left: 1)
        let (left, right) = content.dividedColumns(at: Self.listWidth)
        form.render([list], into: &screen, in: left)
        for y in right.y..<right.maxY {
            screen.put("│", at: Position(x: right.x + 1, y: y), style: theme.placeholder, limit: right.maxX)
        }
        let editor = right.inset(left: 3)
        if let invoice = current.invoice {
            screen.put("Invoice #\(invoice.number)", at: Position(x: editor.x, y: editor.y), style: theme.title, limit: editor.maxX)
            form.render(fieldWidgets, into: &screen, in: editor.inset(top: 2))
        } else {
            screen.put("No invoice. Ctrl-N adds one.", at: Position(x: editor.x, y: editor.y), style: theme.placeholder, limit: editor.maxX)
        }
        status.render(into: &screen, in: bar, context: RenderContext(theme: theme))
        return screen
    }

    /// One row of the list: the number, the customer (cut to fit, by display width: a Chinese
    /// character takes two columns) and the total, right-aligned.
    ///
    /// ```swift
    /// InvoiceApp.row(for: invoice)   // "#1   Ada Lovelace             2700.00"
    /// ```
    public nonisolated static func row(for invoice: Invoice) -> String {
        let number = fit("#\(invoice.number)", width: 5)
        let customer = fit(invoice.customer.isEmpty ? "(no customer)" : invoice.customer, width: 22)
        let total = NumberText.fixed(invoice.total, places: 2)
        let padding = String(repeating: " ", count: max(1, 12 - DisplayWidth.of(total)))
        return number + customer + padding + total
    }

    /// `text` cut or padded with spaces to exactly `width` columns; cut text ends with "…".
    ///
    /// ```swift
    /// InvoiceApp.fit("张伟 (Zhang Wei)", width: 8)   // "张伟 (Z…"
    /// ```
    public nonisolated static func fit(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if DisplayWidth.of(text) <= width {
            return text + String(repeating: " ", count: width - DisplayWidth.of(text))
        }
        var result = ""
        var used = 0
        for character in text {
            let columns = DisplayWidth.of(character)
            if used + columns > width - 1 { break }
            result.append(character)
            used += columns
        }
        return result + "…" + String(repeating: " ", count: width - 1 - used)
    }

    /// Parses a percentage (0 to 100), or nothing (empty text) for none.
    ///
    /// ```swift
    /// InvoiceApp.parseOptionalPercent("12.5")   // .success(12.5)
    /// InvoiceApp.parseOptionalPercent("")       // .success(nil)
    /// ```
    public nonisolated static func parseOptionalPercent(_ text: String) -> Result<Double?, InvalidInput> {
        if text.allSatisfy({ $0 == " " }) { return .success(nil) }
        return NumberText.parseDecimal(text).flatMap { value in
            (0...100).contains(value) ? .success(value) : .failure(InvalidInput("must be between 0 and 100"))
        }
    }

    // MARK: Selection, adding, deleting

    /// Shows a new list, keeping the selected invoice selected (or, if it is gone, the one now
    /// at its place).
    private func show(_ invoices: [Invoice]) {
        list.setItems(invoices)
        if let invoice = current.invoice, let index = invoices.firstIndex(where: { $0 === invoice }) {
            list.select(index)
            if invoice === added { added = nil }
        } else if current.invoice == nil || current.invoice !== added {
            // The selected invoice was deleted (here or elsewhere), or nothing was selected.
            select(list.selectedItem)
        }
        needsDisplay()
    }

    /// Makes `invoice` the one the fields edit.
    private func select(_ invoice: Invoice?) {
        guard invoice !== current.invoice else { return }
        current.invoice = invoice
        bindFields(to: invoice ?? blank)
        let needsDisplay = self.needsDisplay
        selectedChanges.inner = invoice.map { changes(of: $0).subscribe(next: { _ in needsDisplay() }) }
        if invoice == nil { form.focus(list) }
    }

    private func bindFields(to invoice: Invoice) {
        customer.bind(to: channel(invoice, \.customer))
        note.bind(to: channel(invoice, \.note))
        quantity.bind(to: channel(invoice, \.quantity))
        unitPrice.bind(to: channel(invoice, \.unitPrice))
        discount.bind(to: channel(invoice, \.discount))
        tax.bind(to: channel(invoice, \.tax))
    }

    /// Selects `invoice` in the list if it is there.
    private func highlight(_ invoice: Invoice) {
        if let index = list.items.firstIndex(where: { $0 === invoice }) { list.select(index) }
    }

    private func add() {
        do {
            let invoice = try addInvoice(to: store)
            added = invoice
            select(invoice)
            highlight(invoice)
            if list.selectedItem === invoice { added = nil }
            form.focus(customer)
            status.setMessage("Added invoice #\(invoice.number).")
        } catch {
            report("Cannot add an invoice: \(error)")
        }
    }

    private func askToDelete() {
        guard let invoice = current.invoice else {
            status.setMessage("No invoice to delete.")
            return
        }
        pendingDelete = invoice
        let name = invoice.customer.isEmpty ? "" : " (\(invoice.customer))"
        status.setMessage("Delete invoice #\(invoice.number)\(name)? y/n")
    }

    private func delete(_ invoice: Invoice) {
        let items = list.items
        let index = items.firstIndex { $0 === invoice }
        let neighbour = index.flatMap { index in
            index + 1 < items.count ? items[index + 1] : (index > 0 ? items[index - 1] : nil)
        }
        do {
            try deleteInvoice(invoice, from: store)
            if current.invoice === invoice {
                select(neighbour)
                if let neighbour { highlight(neighbour) }
            }
            status.setMessage("Deleted invoice #\(invoice.number).")
        } catch {
            report("Cannot delete invoice #\(invoice.number): \(error)")
        }
    }

    private func report(_ message: String) {
        status.setMessage(message)
        needsDisplay()
    }
}
