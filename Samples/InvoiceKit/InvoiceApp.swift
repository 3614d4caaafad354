import TetherSQLite
import TetherTerminal

/// The invoice form: a list of invoices on the left; on the right the selected invoice's
/// customer, note, lines, discount and tax, and the amounts computed from them; the keys on a
/// help line at the bottom.
///
/// Every field is bound to its model through a two-way channel
/// (`note.bind(to: channel(invoice, \.note))`, a line's quantity to `channel(line,
/// \.quantity)`); the amounts are `ComputedField`s observing `@Model` computed properties
/// through the `CurrentInvoice` model (`observe(current, \.invoice?.total)`), so they follow
/// the selection, every edit, and lines added or deleted, here or in another copy of the app,
/// without any code of their own. The store writes each change through.
///
/// Keys:
/// - Tab / Shift-Tab and Down / Up move between the list and the fields; in the list, Up/Down
///   (PageUp/PageDown, Home/End) choose the invoice, Enter goes to its first field.
/// - In a field: typing edits the invoice at once; Enter confirms; Esc reverts the field to
///   its value from before the edit. A number field with text that is not a valid number shows
///   an error, keeps the text, and leaves the invoice (and the database) unchanged.
/// - Customer: typing (or Enter) opens the picker: the customers whose name contains the text,
///   "New customer" with the text, and "(no customer)". Up/Down choose, Enter or Tab takes the
///   choice, Esc keeps the customer the invoice had, Ctrl-D deletes the chosen customer (refused
///   while they have invoices).
/// - Ctrl-L adds a line; Ctrl-K deletes the line the focus is in (after asking).
/// - Ctrl-N adds an invoice; Ctrl-D deletes the selected one after asking (y/n).
/// - Ctrl-C quits; so does q while the list has the focus (in a field, q is text). With
///   anything unsaved (invalid text, a line kept back by its rules, changes the file refused),
///   it lists what would be lost and asks; the key that answers does nothing else.
/// - When what the focus is in goes away (deleted here or by another program, or the invoice
///   leaves the filtered list), the focus goes to the list, and it is said.
///
/// The app routes keys, draws, and decides where the focus goes; the parts keep their own
/// state: `InvoiceList` (the page of invoices, the filter, the selection), `LineEditor` (the
/// line rows), `CustomerPicker` (the customer choices) and `SaveTracker` (saved or not, and the
/// question quitting asks).
///
/// The app is pure apart from the store: `render(_:)` turns the state into a `Screen`, and
/// `handle(_:)` takes keys, so tests drive it without a terminal.
///
/// ```swift
/// let app = InvoiceApp(store: store) { terminal.setNeedsDisplay() }
/// try await terminal.run(render: app.render, handle: app.handle)
/// ```
@MainActor
public final class InvoiceApp {
    /// The help line's text.
    public static let help =
        "Tab/↑↓ move · Enter confirm · Esc revert · ^L add line · ^K delete line · ^N new invoice · ^D delete · ^C quit · F1 help"
    /// The help line in a narrower window (80 columns).
    public static let shortHelp = "Tab/↑↓ move · ^L/^K line · ^N new · ^D delete · F1 help · ^C quit"
    /// Columns of the list in a wide window (120 columns).
    public nonisolated static let listWidth = 40
    /// The smallest window the form is shown in; below it, the app says so and takes no edits.
    public static let minimumSize = Size(width: 72, height: 18)

    /// Columns of the list in a window `width` columns wide: 40 from 120 columns, 24 at 80.
    ///
    /// ```swift
    /// InvoiceApp.listWidth(for: 80)    // 24
    /// ```
    public nonisolated static func listWidth(for width: Int) -> Int {
        max(24, min(listWidth, 24 + (width - 80) * 16 / 40))
    }
    /// Columns of an amount below the lines: a total of many of the largest lines fits.
    public static let totalWidth = 22

    /// The store the invoices live in.
    public let store: Store
    /// What the title row shows after "Invoices" (the database's path, in the app).
    public let title: String
    /// The invoice being edited.
    public let current = CurrentInvoice()

    /// The invoices, ordered by number.
    public var list: ListView<Invoice> { invoices.view }
    /// Who the invoice is for: shows the customer's name; typing in it picks another.
    public let customer = TextField("Customer", width: 40)
    /// The customer picker: the choices while the customer is being chosen.
    public private(set) var picker: CustomerPicker!
    /// The picker's choices while the customer is being chosen.
    public var customerChoices: ListView<CustomerChoice> { picker.choices }
    /// A note.
    public let note = TextField("Note", width: 50)
    /// The selected invoice's lines, top to bottom.
    public var lineRows: [InvoiceLineRow] { lines.rows }
    /// The discount in percent; empty for none.
    public let discount = NumberField<Double?>(
        "Discount %", width: 10, parse: InvoiceApp.parseOptionalPercent, format: { $0.map(NumberText.format) ?? "" })
    /// The tax rate in percent.
    public let tax = NumberField<Double>.decimal("Tax %", range: 0...100, width: 10)
    /// The sum of the lines' amounts.
    public let subtotal: ComputedField<Money?>
    /// The discount's amount.
    public let discountAmount: ComputedField<Money?>
    /// The tax's amount.
    public let taxAmount: ComputedField<Money?>
    /// The total.
    public let total: ComputedField<Money?>
    /// The bottom line: a message (a question, an error) and the help.
    public let status = StatusLine(help: InvoiceApp.help, shortHelp: InvoiceApp.shortHelp)
    /// The focus: the list, the customer, the note, each line's fields, the discount, the tax.
    /// Made again when the lines change.
    public private(set) var form: Form
    /// Whether the customer picker is open.
    public var isPickingCustomer: Bool { picker.isOpen }
    /// Whether the edits are in the database, shown on the title row (see `SaveState`).
    public var saveState: SaveState { saving.state }
    /// The filter typed after `/` in the list (by customer or number), or nil for none.
    public var filter: String? { invoices.filter }
    /// Whether the filter is being typed (keys go to it).
    public var isTypingFilter: Bool { invoices.isTypingFilter }
    /// Whether the help screen is shown (any key closes it).
    public private(set) var isShowingHelp = false
    /// Whether the user chose to quit although changes were not saved (they were told which):
    /// the store is then closed without trying them again (`Store.closeDiscardingChanges`).
    public var quitsWithoutSaving: Bool { saving.quitsWithoutSaving }
    /// What quitting would lose, as the question said it (shown over the form while it waits).
    public var unsavedAtQuit: [String] { saving.unsavedAtQuit }

    /// The list on the left: its page of invoices, the counts, the filter, the selection.
    let invoices: InvoiceList
    /// The selected invoice's lines.
    private let lines: LineEditor
    /// Whether the edits are saved, and the question quitting asks when they are not.
    private let saving: SaveTracker
    /// What the list shows (see `InvoiceList.condition`).
    var condition: Condition<Invoice> { invoices.condition }
    /// The position in the whole list of the list's first row on screen.
    var windowTop: Int { invoices.top }
    /// The rows of the list on screen.
    var windowRows: Int { invoices.rows }
    /// How many invoices the list shows (0 while they are not counted yet).
    var listCount: Int { invoices.count }
    /// The notice that another program replaced what the user was typing in a field: shown on
    /// the status line for as long as the focus stays in that field.
    private var fieldNotice: (field: ObjectIdentifier, text: String)?
    /// Whether the focus was taken to the list because the line or invoice it was in was
    /// deleted by another program: text typed next is ignored, not taken as keys of the list.
    private var focusWasTaken = false

    private let needsDisplay: @Sendable () -> Void
    /// The window's size at the last render.
    private var size = Size(width: 120, height: 40)
    /// Whether the window is smaller than `minimumSize` (nothing is shown but that, no edits).
    private var isTooSmall: Bool { size.width < Self.minimumSize.width || size.height < Self.minimumSize.height }
    /// What the fields are bound to while no invoice is selected (never stored, never shown).
    private let blank = Invoice()
    /// What the next key answers: a deletion asked about.
    private var pendingDeletion: Deletion?
    private let subscriptions = CompoundDisposable()
    /// The observations of the selected invoice.
    private let selectedChanges = SerialDisposable()

    private enum Deletion {
        case invoice(Invoice)
        case line(InvoiceLine)
        case customer(Customer)
    }

    /// Creates the app on `store`, showing its invoices. `needsDisplay` is called when what is
    /// shown changed without a key (the list changed, or the selected invoice was changed by
    /// someone else): pass `terminal.setNeedsDisplay`.
    ///
    /// The list reads only the invoices on screen (a live page, see `Store.observe(_:where:
    /// orderBy:descending:limit:offset:)`) and counts the others, so opening a file of a
    /// million invoices costs about what opening one of three does.
    ///
    /// ```swift
    /// let app = InvoiceApp(store: store, title: path) { terminal.setNeedsDisplay() }
    /// ```
    public init(
        store: Store,
        title: String = "",
        needsDisplay: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.title = title
        self.needsDisplay = needsDisplay
        invoices = InvoiceList(store: store, current: current, needsDisplay: needsDisplay)
        lines = LineEditor(current: current, needsDisplay: needsDisplay)
        saving = SaveTracker(store: store, status: status, needsDisplay: needsDisplay)
        let money: @Sendable (Money?) -> String = { $0.map { "\($0.roundedToCents())" } ?? "" }
        subtotal = ComputedField("Subtotal", observe(current, \.invoice?.subtotal), width: Self.totalWidth, alignment: .trailing, format: money)
        discountAmount = ComputedField("Discount", observe(current, \.invoice?.discountAmount), width: Self.totalWidth, alignment: .trailing, format: money)
        taxAmount = ComputedField("Tax", observe(current, \.invoice?.taxAmount), width: Self.totalWidth, alignment: .trailing, format: money)
        total = ComputedField("Total", observe(current, \.invoice?.total), width: Self.totalWidth, alignment: .trailing, format: money)
        form = Form([invoices.view, customer, note, discount, tax])
        bindFields(to: blank)
        for (field, name) in [(note, "Note"), (discount, "Discount %"), (tax, "Tax %")] as [(AnyObject & Widget, String)] {
            subscriptions.add(Self.replacements(of: field).subscribe(with: current) { [weak self] _, _ in
                self?.replacedElsewhere(field, named: name)
            })
        }

        // First: the lists' first results read invoices' lines, which may fail.
        picker = CustomerPicker(store: store, field: customer, report: { [weak self] in self?.report($0) }, needsDisplay: needsDisplay)
        lines.replacedElsewhere = { [weak self] field, name in self?.replacedElsewhere(field, named: name) }
        subscriptions.add(store.errors.subscribe(with: current) { [weak self] _, error in
            self?.saving.storeFailed(error)
        })
        invoices.owner = self
        invoices.open()
        let invoices = self.invoices
        subscriptions.add(store.scheduler.schedule { [weak invoices] in
            MainActor.assumeIsolated { invoices?.countInvoices() }
        })
        subscriptions.add(observe(current, \.invoice?.customerName).subscribe(with: current) { [weak self] _, name in
            self?.customerNameChanged(name ?? "")
        })
        subscriptions.add(observe(current, \.invoice?.lines).subscribe(with: current) { [weak self] _, lines in
            self?.showLines(lines ?? [])
        })
        subscriptions.add(observe(current, \.invoice?.total).subscribe(next: { _ in needsDisplay() }))
        subscriptions.add(store.committedChanges.subscribe(with: current) { [weak self] _, change in
            self?.changedElsewhere(change)
        })
    }

    deinit {
        subscriptions.dispose()
        selectedChanges.dispose()
    }

    // MARK: Keys

    /// Handles one terminal event: keys (see `handle(_:)` for keys); a closed input quits.
    public func handle(_ event: TerminalEvent) -> TerminalAction {
        switch event {
        case .key(let key): return handle(key)
        case .resize(let newSize):
            size = newSize
            return .continue
        case .inputClosed: return .quit
        }
    }

    /// Handles one key (see the type's documentation) and says whether to quit.
    ///
    /// ```swift
    /// app.handle(.tab)                 // the focus moves from the list to Customer
    /// app.handle(.character("A"))      // the picker opens with the customers matching "A"
    /// ```
    public func handle(_ key: Key) -> TerminalAction {
        if saving.isAskingToQuit {
            // The question after a quit with unsaved changes: Ctrl-C or q again quits; any
            // other key goes back to the form, and does nothing else (it answered).
            return saving.answer(key) ? .quit : .continue
        }
        if key == .control("c") { return quit() }
        if isTooSmall {
            // Nothing is shown to edit: no key edits anything (q still quits, as in the list).
            return key == .character("q") ? quit() : .continue
        }
        if isShowingHelp {
            isShowingHelp = false   // any key closes the help
            return .continue
        }
        if key == .function(1) || (key == .character("?") && form.isFocused(list) && !isTypingFilter && pendingDeletion == nil) {
            isShowingHelp = true
            return .continue
        }
        if isTypingFilter {
            invoices.typeFilter(key)
            return .continue
        }
        if focusWasTaken {
            // The focus was taken to the list because what it was in went away: text typed on
            // is not a command (q would quit), and edits nothing. A key that is not text ends it.
            switch key {
            case .character, .paste, .backspace, .delete: return .continue
            default: focusWasTaken = false
            }
        }
        if let deletion = pendingDeletion {
            pendingDeletion = nil
            answer(deletion, confirmed: key == .character("y") || key == .character("Y"))
            return .continue
        }
        // A message stays until a key does something (a key the list ignores, typed after the
        // focus left the fields, leaves it there to read); a key's own message stays.
        let message = status.currentMessage
        var used = true
        defer { if used, message != nil, status.currentMessage == message { status.setMessage(nil) } }
        if isPickingCustomer {
            handlePicking(key)
            return .continue
        }
        switch key {
        case .control("n"):
            add()
            return .continue
        case .control("d"):
            askToDelete()
            return .continue
        case .control("l"):
            addLine()
            return .continue
        case .control("k"):
            askToDeleteLine()
            return .continue
        default:
            break
        }
        if form.isFocused(list) || current.invoice == nil {
            // The filter, from the list (also when it lets nothing through): / types it (on
            // from what it is), Esc clears it.
            if key == .character("/") {
                form.focus(list)
                invoices.startFilter()
                status.setMessage("Filter by customer: type; Enter keeps it, Esc clears it.")
                return .continue
            }
            if key == .escape, filter != nil {
                invoices.clearFilter()
                status.setMessage(nil)
                return .continue
            }
        }
        guard current.invoice != nil else {
            // Nothing to edit: only the (empty) list takes keys.
            form.focus(list)
            used = false
            return key == .character("q") ? quit() : .continue
        }
        if form.isFocused(customer), startsPicking(key) {
            // Like a field whose text is selected: a character starts a new name, Backspace
            // and Delete edit the name shown, Enter shows every customer.
            switch key {
            case .character, .paste: picker.draft.text = ""
            default: break
            }
            if key != .enter { _ = customer.handle(key) }
            openPicker(showingAll: key == .enter)
            return .continue
        }
        if form.isFocused(list), let target = invoices.target(for: key) {
            if let target { invoices.select(position: target) }
            return .continue
        }
        if form.handle(key) == .ignored {
            // Keys nobody used: q outside a field quits; Enter in the list edits the invoice.
            if key == .character("q") { return quit() }
            if key == .enter, form.isFocused(list) { form.focus(customer) } else { used = false }
        }
        if form.isFocused(list) { select(list.selectedItem) }
        return .continue
    }

    /// Quits, unless something would be lost: a field whose text is not valid (the invoice
    /// keeps its value from before the edit), or changes the store could not write (tried once
    /// more first: a read-only or full file, a file deleted, a line kept back by its rules).
    /// Then it says what, in words, and asks.
    private func quit() -> TerminalAction {
        saving.quit(invalidFields: invalidFields) ? .quit : .continue
    }

    /// What quitting now would lose, in words: each field whose text is not valid, then each
    /// invoice, line or customer whose changes are not in the file after one more try to write
    /// them, with the reason.
    public func unsavedChanges() -> [String] {
        saving.unsaved(invalidFields: invalidFields)
    }

    /// The fields whose text is not valid, named with their text: `Discount % "150"`.
    private var invalidFields: [String] {
        let fields: [(name: String, error: String?, text: String)] = [
            ("Discount %", discount.error, discount.text), ("Tax %", tax.error, tax.text),
        ]
        return fields.filter { $0.error != nil }.map { "\($0.name) \"\($0.text)\"" } + lines.invalidFields
    }

    /// Whether `key`, in the customer field, opens the picker: Enter, or a key that edits text.
    private func startsPicking(_ key: Key) -> Bool {
        switch key {
        case .enter, .character, .backspace, .delete, .paste: return true
        default: return false
        }
    }

    // MARK: Rendering

    /// Draws the app on a screen of `size`: the title row, the list, the selected invoice's
    /// fields and lines, and the status line at the bottom. It reads the state, and changes
    /// only the scroll positions of the list and the lines (to keep the selection in view).
    ///
    /// ```swift
    /// let screen = app.render(Size(width: 120, height: 40))
    /// print(screen.lines.joined(separator: "\n"))
    /// ```
    public func render(_ size: Size) -> Screen {
        self.size = size
        var screen = Screen(size: size)
        guard size.width > 0, size.height > 0 else { return screen }
        let theme = form.theme
        if isTooSmall {
            let minimum = Self.minimumSize
            let lines = ["Window too small: \(size.width)x\(size.height).", "Make it at least \(minimum.width)x\(minimum.height);", "nothing is edited until then.", "Ctrl-C quits."]
            for (index, line) in lines.enumerated() where index < size.height {
                screen.put(DisplayWidth.truncated(line, to: size.width - 1), at: Position(x: 1, y: index), style: index == 0 ? theme.error : theme.label, limit: size.width)
            }
            return screen
        }
        let (body, bar) = screen.bounds.dividedRows(at: size.height - 1)
        if let notice = fieldNotice {
            if let focused = form.focusedWidget, ObjectIdentifier(focused) == notice.field {
                if status.currentMessage == nil { status.setMessage(notice.text) }
            } else {
                fieldNotice = nil
            }
        }
        let state = saveState
        // The save state first (the path gives way to it), at the right of the title row.
        let stateText = DisplayWidth.truncated(state.text, to: max(0, size.width - 12))
        let stateX = max(1, size.width - 1 - DisplayWidth.of(stateText))
        let heading = DisplayWidth.truncated(title.isEmpty ? "Invoices" : "Invoices · \(title)", to: max(0, stateX - 2))
        screen.put(heading, at: Position(x: 1, y: 0), style: theme.title, limit: max(1, stateX - 1))
        let stateStyle = if case .notSaved = state { theme.error } else { theme.placeholder }
        screen.put(stateText, at: Position(x: stateX, y: 0), style: stateStyle, limit: body.maxX)
        let content = body.inset(top: 2, left: 1)
        let (left, right) = content.dividedColumns(at: Self.listWidth(for: size.width))
        invoices.render(into: &screen, in: left, form: form)
        for y in right.y..<right.maxY {
            screen.put("│", at: Position(x: right.x + 1, y: y), style: theme.placeholder, limit: right.maxX)
        }
        let editor = right.inset(left: 3)
        if let invoice = current.invoice {
            screen.put("Invoice #\(invoice.number)", at: Position(x: editor.x, y: editor.y), style: theme.title, limit: editor.maxX)
            renderInvoice(into: &screen, in: editor.inset(top: 2))
        } else {
            screen.put("No invoice. Ctrl-N adds one.", at: Position(x: editor.x, y: editor.y), style: theme.placeholder, limit: editor.maxX)
        }
        if saving.isAskingToQuit, !unsavedAtQuit.isEmpty {
            // What quitting loses, every item in words (the status line may cut it short).
            screen.fill(content, style: theme.listItem)
            let lines = ["Quit? These changes are not saved and would be lost:", ""] + unsavedAtQuit.map { "· " + $0 }
                + ["", "Ctrl-C or q quits anyway; any other key goes back to the form."]
            for (index, line) in lines.enumerated() where content.y + index < content.maxY {
                screen.put(DisplayWidth.truncated(line, to: content.width - 1), at: Position(x: content.x, y: content.y + index),
                           style: index == 0 ? theme.error : theme.label, limit: content.maxX)
            }
        }
        if isShowingHelp {
            screen.fill(content, style: theme.listItem)
            for (index, line) in Self.helpScreen.enumerated() where content.y + index < content.maxY {
                screen.put(DisplayWidth.truncated(line, to: content.width - 1), at: Position(x: content.x, y: content.y + index),
                           style: index == 0 ? theme.title : theme.label, limit: content.maxX)
            }
        }
        status.render(into: &screen, in: bar, context: RenderContext(theme: theme))
        return screen
    }

    /// What F1 (or ? in the list) shows: every key.
    public nonisolated static let helpScreen = [
        "Keys (any key closes this help)",
        "",
        "Tab, Shift-Tab, Up, Down      move between the list and the fields",
        "Up Down PgUp PgDn Home End    in the list: choose the invoice",
        "Enter                         in the list: edit the invoice; in a field: confirm",
        "Esc                           in a field: back to the value from before the edit",
        "/                             in the list: filter by customer (Enter keeps, Esc clears)",
        "Customer field                type to choose or add a customer: Up/Down, Enter, Tab;",
        "                              Esc keeps the invoice's; Ctrl-D deletes the chosen one",
        "Ctrl-L, Ctrl-K                add a line; delete the line the focus is in (asks)",
        "Ctrl-N, Ctrl-D                add an invoice; delete the selected one (asks)",
        "Ctrl-A Ctrl-E, Ctrl-U         in a field: start, end; delete to the start",
        "Alt-B Alt-F, Ctrl-Left/Right  in a field: move by word",
        "Ctrl-Z                        suspend (fg comes back)",
        "Ctrl-C, q in the list         quit (asks first, naming what is not saved)",
        "F1, ? in the list             this help",
    ]

    /// The selected invoice's fields, lines and amounts, top to bottom in `rect`.
    private func renderInvoice(into screen: inout Screen, in rect: Rect) {
        let theme = form.theme
        var y = rect.y
        func row(_ widgets: [any Widget]) {
            form.render(widgets, into: &screen, in: Rect(x: rect.x, y: y, width: rect.width, height: max(0, rect.maxY - y)))
            y += widgets.reduce(0) { $0 + $1.height }
        }
        row([customer, note, Label("")])
        // The lines: as many as fit with room for the amounts below.
        y = lines.render(into: &screen, in: Rect(x: rect.x, y: y, width: rect.width, height: max(0, rect.maxY - y)), leaving: 7, form: form)
        row([discount, tax, Label(""), subtotal, discountAmount, taxAmount, total])
        // The picker covers what is under the customer field.
        picker.render(into: &screen, in: rect, labelWidth: form.labelWidth, theme: theme)
    }

    /// One row of the list, `width` columns: the number, the customer (cut to fit, by display
    /// width: a Chinese character takes two columns) and the total, right-aligned
    /// (`###########` when it does not fit).
    ///
    /// ```swift
    /// InvoiceApp.row(for: invoice)   // "#1   Ada Lovelace             2759.40"
    /// ```
    public nonisolated static func row(for invoice: Invoice, width: Int = 39) -> String {
        // At least one space after the number, however many digits it has.
        let tag = "#\(invoice.number)"
        let numberWidth = max(5, tag.count + 1)
        let number = fit(tag, width: numberWidth)
        // The total takes 11 columns, or more from the customer's when it is wider, leaving
        // the customer 8; wider still, it shows as #, never as another number. The customer
        // takes what is left (a space before the total).
        var total = "\(invoice.total)"
        let room = max(1, width - numberWidth - 1 - 8)
        if DisplayWidth.of(total) > max(11, room) { total = String(repeating: "#", count: min(11, room)) }
        let name = invoice.customerName
        let customer = fit(name.isEmpty ? "(no customer)" : name, width: max(1, width - numberWidth - 1 - DisplayWidth.of(total)))
        return number + customer + " " + total
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

    /// A change committed by another program to the selected invoice, one of its lines or its
    /// customer: said on the status line (the form shows the new values already), unless a
    /// question waits for its answer there.
    private func changedElsewhere(_ change: StoreChange) {
        if change.isLocal { saving.savedLocally() }
        guard !change.isLocal, pendingDeletion == nil, let invoice = current.invoice, let id = invoice.persistentID else { return }
        let concerns = switch change.table {
        case "Invoice": change.rowID == id && change.kind != .delete
        case "InvoiceLine": lines.hasShown(lineID: change.rowID) || invoice.lines.contains { $0.persistentID == change.rowID }
        case "Customer": change.rowID == invoice.customer?.persistentID
        default: false
        }
        // An error on the status line stays: the notice does not cover it.
        let shown = status.currentMessage ?? ""
        // Nor does it cover the notice that the focus was taken (what it was in was deleted).
        guard concerns, !focusWasTaken, fieldNotice == nil, !["Not saved", "Could not", "Cannot"].contains(where: shown.hasPrefix) else { return }
        status.setMessage("Invoice #\(invoice.number) was changed by another program.")
        needsDisplay()
    }

    /// What the focus was in went away under it (deleted by another program): the focus goes to
    /// the list, the status line says why, and text typed next is ignored until a key that is
    /// not text (so neither another record nor the list's q takes it).
    private func takeFocusToList(because message: String, fromAField wasInAField: Bool) {
        form.focus(list)
        if isPickingCustomer { closePicker() }
        if wasInAField { focusWasTaken = true }
        status.setMessage(message)
        needsDisplay()
    }

    /// The replacements of what the user typed in `field`, a text or number field.
    static func replacements(of field: any Widget) -> Signal<String, Never> {
        switch field {
        case let text as TextField: text.replacedWhileEditing
        case let number as NumberField<Int>: number.replacedWhileEditing
        case let number as NumberField<Double>: number.replacedWhileEditing
        case let number as NumberField<Double?>: number.replacedWhileEditing
        case let number as NumberField<Money>: number.replacedWhileEditing
        default: .never
        }
    }

    /// Another program changed the property of the field being typed in (the last writer
    /// wins): said for as long as the focus stays there, so the user sees why the text changed.
    private func replacedElsewhere(_ field: any Widget, named name: String) {
        guard form.isFocused(field) else { return }
        let text = "\(name) was changed by another program while you typed; it shows the new value."
        fieldNotice = (ObjectIdentifier(field), text)
        // It says more than the invoice's notice: it takes its place.
        if status.currentMessage == nil || status.currentMessage?.hasSuffix("was changed by another program.") == true {
            status.setMessage(text)
        }
        needsDisplay()
    }

    /// Makes `invoice` the one the fields edit.
    private func select(_ invoice: Invoice?) {
        guard invoice !== current.invoice else { return }
        closePicker()
        lines.invoiceChanged()
        current.invoice = invoice
        bindFields(to: invoice ?? blank)
        let needsDisplay = self.needsDisplay
        selectedChanges.inner = invoice.map { invoice in
            let changes = CompoundDisposable()
            changes.add(Tether.changes(of: invoice).subscribe(next: { _ in needsDisplay() }))
            changes.add(store.deletion(of: invoice).subscribe(with: current) { [weak self] _, _ in
                self?.invoices.editedInvoiceDeleted(invoice)
            })
            return changes
        }
        if invoice == nil { form.focus(list) }
    }

    private func bindFields(to invoice: Invoice) {
        note.bind(to: channel(invoice, \.note))
        discount.bind(to: channel(invoice, \.discount))
        tax.bind(to: channel(invoice, \.tax))
    }

    /// Adds an invoice, shows it in the list (clearing a filter that might not let it
    /// through) and edits it.
    private func add() {
        do {
            let invoice = try addInvoice(to: store)
            invoices.showAdded(invoice)
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
        pendingDeletion = .invoice(invoice)
        let name = invoice.customerName.isEmpty ? "" : " (\(invoice.customerName))"
        status.setMessage("Delete invoice #\(invoice.number)\(name) and its lines? y/n")
    }

    private func answer(_ deletion: Deletion, confirmed: Bool) {
        switch deletion {
        case .invoice(let invoice):
            if confirmed { delete(invoice) } else { status.setMessage("Kept invoice #\(invoice.number).") }
        case .line(let line):
            if confirmed { delete(line) } else { status.setMessage("Kept the line.") }
        case .customer(let customer):
            if confirmed { delete(customer) } else { status.setMessage("Kept \(customer.name).") }
        }
    }

    private func delete(_ invoice: Invoice) {
        // The invoice after it takes its place; after the last, the one before.
        let neighbour = invoices.neighbour(of: invoice)
        // Selected first: the list that the delete sends finds the neighbour selected.
        let wasSelected = current.invoice === invoice
        if wasSelected { select(neighbour) }
        do {
            try deleteInvoice(invoice, from: store)
            if wasSelected, let neighbour { invoices.reveal(neighbour) }
            // The invoice whose form held the focus is gone: the next key must not edit the
            // one now selected, which the user did not choose.
            if wasSelected { form.focus(list) }
            status.setMessage("Deleted invoice #\(invoice.number).")
        } catch {
            if wasSelected { invoices.reveal(invoice) }
            report("Cannot delete invoice #\(invoice.number): \(error)")
        }
    }

    // MARK: Lines

    /// Shows `lines`, keeping the rows (and their edits) of the lines still there, and the
    /// focus where it was when its line is still there.
    private func showLines(_ shown: [InvoiceLine]) {
        let focused = form.focusedWidget
        let gone = lines.show(shown, focused: focused)
        // The field being edited keeps the focus without being told again: its edit goes on.
        form = Form([list, customer, note] + lines.fields + [discount, tax], keepingFocusOn: focused)
        switch gone {
        case nil: break
        case .deletedHere(let next):
            // Deleted here (Ctrl-K): the focus goes to the line now at its place, or the note.
            form.focus(next ?? note)
        case .deletedElsewhere(let number):
            // Deleted by another program: nothing typed next may land in another line.
            takeFocusToList(because: "Line \(number) of invoice #\(current.invoice?.number ?? 0) was deleted by another program.", fromAField: true)
        }
    }

    private func addLine() {
        guard let invoice = current.invoice else {
            status.setMessage("No invoice to add a line to.")
            return
        }
        let line = InvoiceKit.addLine(to: invoice)
        if let row = lines.row(of: line) { form.focus(row.text) }
        status.setMessage("Added line \(invoice.lines.count).")
    }

    private func askToDeleteLine() {
        guard let index = lines.focusedRow(in: form) else {
            status.setMessage("Move to a line to delete it.")
            return
        }
        let line = lineRows[index].line
        pendingDeletion = .line(line)
        let text = line.text.isEmpty ? "" : " (\(line.text))"
        status.setMessage("Delete line \(index + 1)\(text)? y/n")
    }

    private func delete(_ line: InvoiceLine) {
        lines.deleting(line)
        do {
            try deleteLine(line, from: store)
            status.setMessage("Deleted the line.")
        } catch {
            report("Cannot delete the line: \(error)")
        }
    }

    // MARK: Customers

    /// The selected invoice's customer's name changed (another customer was chosen, the
    /// customer was renamed, another invoice was selected): the field shows it, unless the user
    /// is typing in it.
    private func customerNameChanged(_ name: String) {
        guard !isPickingCustomer else { return }
        picker.show(name: name)
        customer.focusDidChange(form.isFocused(customer))
    }

    /// Opens the picker with the choices for the text typed, or with every customer and the
    /// invoice's own highlighted.
    private func openPicker(showingAll: Bool) {
        picker.open(showingAll: showingAll, highlighting: current.invoice?.customer)
    }

    private func closePicker() {
        picker.close(showing: current.invoice?.customerName ?? "")
    }

    private func handlePicking(_ key: Key) {
        switch picker.handle(key) {
        case .handled: break
        case .picked(let choice, let movingFocus):
            pick(choice)
            if movingFocus > 0 { form.focusNext() } else if movingFocus < 0 { form.focusPrevious() }
        case .cancelled: closePicker()
        case .askToDelete(let chosen):
            pendingDeletion = .customer(chosen)
            status.setMessage("Delete customer \(chosen.name)? y/n")
        case .nothingToDelete: status.setMessage("Choose a customer to delete.")
        }
    }

    private func pick(_ choice: CustomerChoice?) {
        guard let invoice = current.invoice, let choice else {
            closePicker()
            return
        }
        do {
            switch choice {
            case .customer(let chosen): invoice.customer = chosen
            case .new(let name): invoice.customer = try InvoiceKit.customer(named: name, in: store)
            case .none: invoice.customer = nil
            }
        } catch {
            report("Cannot add the customer: \(error)")
        }
        closePicker()
    }

    private func delete(_ customer: Customer) {
        let name = customer.name
        do {
            try deleteCustomer(customer, from: store)
            status.setMessage("Deleted customer \(name).")
        } catch .deleteDenied {
            let numbers = customer.invoices.map { "#\($0.number)" }
            report("Cannot delete \(name): invoice\(numbers.count == 1 ? "" : "s") \(numbers.joined(separator: ", ")) \(numbers.count == 1 ? "is" : "are") billed to them. Delete or change those first.")
        } catch {
            report("Cannot delete \(name): \(error)")
        }
        if isPickingCustomer { picker.refresh() }
    }

    private func report(_ message: String) {
        status.setMessage(message)
        needsDisplay()
    }
}

extension InvoiceApp: InvoiceListOwner {
    func listSelected(_ invoice: Invoice?) {
        select(invoice)
    }

    func editedInvoiceLeftTheList(_ invoice: Invoice, deleted: Bool) {
        if deleted {
            // Deleted by another program: said, and the focus leaves the fields, so that
            // nothing typed next lands in the invoice now at its place.
            pendingDeletion = nil
            takeFocusToList(because: "Invoice #\(invoice.number) was deleted by another program.", fromAField: !form.isFocused(list))
        } else if !form.isFocused(list) {
            // Still stored, but the filter no longer lets it through: the invoice now at its
            // place is shown, and nothing typed next may land in it.
            pendingDeletion = nil
            takeFocusToList(because: "Invoice #\(invoice.number) was changed by another program and left the list.", fromAField: true)
        }
    }

    func listFailed(_ message: String) {
        report(message)
    }
}
