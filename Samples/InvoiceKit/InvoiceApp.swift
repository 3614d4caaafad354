import Logging
import Synchronization
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
    public let list: ListView<Invoice>
    /// Who the invoice is for: shows the customer's name; typing in it picks another.
    public let customer = TextField("Customer", width: 40)
    /// The customer picker: the choices while the customer is being chosen.
    public private(set) var picker: CustomerPicker!
    /// The picker's choices while the customer is being chosen.
    public var customerChoices: ListView<CustomerChoice> { picker.choices }
    /// A note.
    public let note = TextField("Note", width: 50)
    /// The selected invoice's lines, top to bottom.
    public private(set) var lineRows: [InvoiceLineRow] = []
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
    public var saveState: SaveState {
        if let fileProblem { return .notSaved(fileProblem) }
        if let failure { return .notSaved(failure) }
        return store.pendingRowCount > 0 ? .saving : .saved
    }
    /// Why nothing can be written to the file any more (it was deleted or replaced), from the
    /// moment the store says so, whether or not edits wait: shown until the app quits.
    private var fileProblem: String?
    /// Why the last write failed, while edits still wait; nil once a write succeeded with
    /// nothing left waiting.
    private var failure: String?
    private static let logger = Logger(label: "invoices")
    /// The invoices on screen: a live page of the list (those the filter lets through, by
    /// number), `windowTop` rows from its start and as many rows as the list shows. Only
    /// these are loaded: a file of a million invoices opens in 4 ms, one of three in 3.
    private var window: [Invoice] = []
    /// The customers of the invoices on screen, kept alive: an invoice refers to its customer
    /// weakly (the customer's collection holds its invoices), and a customer nobody holds would
    /// be read from the file again at each render of its row.
    private var shownCustomers: [Customer] = []
    /// The position in the whole list of the window's first row.
    private(set) var windowTop = 0
    /// The rows the window holds: the rows the list showed at the last render.
    private(set) var windowRows = 36
    /// Counts the pages asked for: a page sent by an earlier query is not shown.
    private var windowGeneration = 0
    /// Whether the window is moving to follow the selected invoice (it moves once per page).
    private var isFollowing = false
    /// Whether the window is moving for a key that selects another invoice.
    private var isMovingTheSelection = false
    /// The position in the list of the selected row, as last settled: when the selected
    /// invoice goes, the one that comes to this place is selected.
    private var selectedPosition = 0
    /// How many invoices there are: nil until they are counted, right after the first screen
    /// (counting a million rows takes SQLite a few milliseconds: the list does not wait).
    private var invoiceCount: Int?
    /// How many invoices the filter lets through (nil without one).
    private var matchCount: Int?
    /// How many invoices the list shows (0 while they are not counted yet).
    var listCount: Int { matchCount ?? invoiceCount ?? 0 }
    /// The filter typed after `/` in the list (by customer or number), or nil for none.
    public private(set) var filter: String?
    /// Whether the filter is being typed (keys go to it).
    public private(set) var isTypingFilter = false
    /// Whether the help screen is shown (any key closes it).
    public private(set) var isShowingHelp = false
    /// Whether the last key asked to quit while changes were not saved (the next key answers).
    private var quitAsked = false
    /// Whether the user chose to quit although changes were not saved (they were told which):
    /// the store is then closed without trying them again (`Store.closeDiscardingChanges`).
    public private(set) var quitsWithoutSaving = false
    /// What quitting would lose, as the question said it (shown over the form while it waits).
    public private(set) var unsavedAtQuit: [String] = []
    /// The notice that another program replaced what the user was typing in a field: shown on
    /// the status line for as long as the focus stays in that field.
    private var fieldNotice: (field: ObjectIdentifier, text: String)?
    /// Whether the focus was taken to the list because the line or invoice it was in was
    /// deleted by another program: text typed next is ignored, not taken as keys of the list.
    private var focusWasTaken = false
    /// The lines this app deleted (Ctrl-K): the focus in one goes to the line at its place;
    /// in a line another program deleted, it goes to the list.
    private var linesDeletedHere = Set<ObjectIdentifier>()

    private let needsDisplay: @Sendable () -> Void
    /// The columns of a list row now (39 in a 120-column window): set by `render`, read by the
    /// list's format.
    private let listColumns = _SharedInt(39)
    /// The window's size at the last render.
    private var size = Size(width: 120, height: 40)
    /// Whether the window is smaller than `minimumSize` (nothing is shown but that, no edits).
    private var isTooSmall: Bool { size.width < Self.minimumSize.width || size.height < Self.minimumSize.height }
    /// What the fields are bound to while no invoice is selected (never stored, never shown).
    private let blank = Invoice()
    /// What the next key answers: a deletion asked about.
    private var pendingDeletion: Deletion?
    /// An invoice this app added that the list has not shown yet.
    private var added: Invoice?
    /// The first line shown when they do not all fit.
    private var firstVisibleLine = 0
    /// The ids of the lines shown for the selected invoice since it was selected (a line
    /// deleted by another program is no longer among its lines when the change is told).
    private var shownLineIDs: Set<Int64> = []
    private let subscriptions = CompoundDisposable()
    private let windowQuery = SerialDisposable()
    /// The observations of the totals of the invoices on screen.
    private let windowTotals = SerialDisposable()
    private let matchCounting = SerialDisposable()
    private let selectedChanges = SerialDisposable()
    private let lineChanges = SerialDisposable()

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
        let listColumns = self.listColumns
        list = ListView<Invoice>(title: "Invoices", height: 10_000, emptyText: "(none: Ctrl-N adds one)") {
            InvoiceApp.row(for: $0, width: listColumns.load())
        }
        let money: @Sendable (Money?) -> String = { $0.map { "\($0.roundedToCents())" } ?? "" }
        subtotal = ComputedField("Subtotal", observe(current, \.invoice?.subtotal), width: Self.totalWidth, alignment: .trailing, format: money)
        discountAmount = ComputedField("Discount", observe(current, \.invoice?.discountAmount), width: Self.totalWidth, alignment: .trailing, format: money)
        taxAmount = ComputedField("Tax", observe(current, \.invoice?.taxAmount), width: Self.totalWidth, alignment: .trailing, format: money)
        total = ComputedField("Total", observe(current, \.invoice?.total), width: Self.totalWidth, alignment: .trailing, format: money)
        form = Form([list, customer, note, discount, tax])
        bindFields(to: blank)
        for (field, name) in [(note, "Note"), (discount, "Discount %"), (tax, "Tax %")] as [(AnyObject & Widget, String)] {
            subscriptions.add(Self.replacements(of: field).subscribe(with: current) { [weak self] _, _ in
                self?.replacedElsewhere(field, named: name)
            })
        }

        // First: the lists' first results read invoices' lines, which may fail.
        picker = CustomerPicker(store: store, field: customer, report: { [weak self] in self?.report($0) }, needsDisplay: needsDisplay)
        subscriptions.add(store.errors.subscribe(with: current) { [weak self] _, error in
            self?.storeFailed(error)
        })
        openWindow(top: 0)
        subscriptions.add(store.scheduler.schedule { [weak self] in
            MainActor.assumeIsolated { self?.countInvoices() }
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
        windowQuery.dispose()
        windowTotals.dispose()
        matchCounting.dispose()
        selectedChanges.dispose()
        lineChanges.dispose()
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
        if quitAsked {
            // The question after a quit with unsaved changes: Ctrl-C or q again quits; any
            // other key goes back to the form, and does nothing else (it answered).
            quitAsked = false
            unsavedAtQuit = []
            status.setMessage(nil)
            if key == .control("c") || key == .character("q") {
                quitsWithoutSaving = true
                return .quit
            }
            return .continue
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
            handleFilter(key)
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
                isTypingFilter = true
                filter = filter ?? ""
                status.setMessage("Filter by customer: type; Enter keeps it, Esc clears it.")
                return .continue
            }
            if key == .escape, filter != nil {
                filter = nil
                applyFilter()
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
        if form.isFocused(list), let target = listTarget(for: key) {
            if let target { select(position: target) }
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

    /// Counts the invoices, now and after every commit that inserts or deletes some (once).
    private func countInvoices() {
        guard invoiceCount == nil else { return }
        subscriptions.add(store.observeCount(Invoice.self).subscribe(
            with: current,
            next: { [weak self] _, count in
                self?.invoiceCount = count
                self?.needsDisplay()
            },
            error: { [weak self] _, error in self?.report("Cannot count the invoices: \(error)") }
        ))
    }

    /// Where `key` moves the list's selection (see `ListView.target`), as a position in the
    /// whole list (`.some(nil)` for an empty list); nil for a key that does not move it.
    private func listTarget(for key: Key) -> Int?? {
        countInvoices()   // End needs the count, even right after the first screen
        let now = windowTop + (list.selectedIndex ?? 0)
        guard let target = ListView<Invoice>.target(of: key, from: now, count: listCount, page: windowRows) else { return nil }
        return listCount > 0 ? target : .some(nil)
    }

    /// Quits, unless something would be lost: a field whose text is not valid (the invoice
    /// keeps its value from before the edit), or changes the store could not write (tried once
    /// more first: a read-only or full file, a file deleted, a line kept back by its rules).
    /// Then it says what, in words, and asks.
    private func quit() -> TerminalAction {
        let unsaved = unsavedChanges()
        guard !unsaved.isEmpty else { return .quit }
        quitAsked = true
        unsavedAtQuit = unsaved
        status.setMessage("Not saved: \(unsaved.joined(separator: "; ")). Ctrl-C again quits, another key goes back.")
        needsDisplay()
        return .continue
    }

    /// What quitting now would lose, in words: each field whose text is not valid, then each
    /// invoice, line or customer whose changes are not in the file after one more try to write
    /// them, with the reason.
    public func unsavedChanges() -> [String] {
        var unsaved = invalidFields
        if store.pendingRowCount > 0, !store.isClosed {
            do { try store.flush() } catch { storeFailed(error) }
        }
        var notWritten: [String] = []
        for model in store.pendingModels {
            switch model {
            case let line as InvoiceLine:
                let place = Self.describe(line)
                if let broken = line.brokenRules.first {
                    unsaved.append("\(place) (\(InvoiceLineRow.fieldName(broken.property)): \(broken.rule))")
                } else {
                    notWritten.append(place)
                }
            case let invoice as Invoice: notWritten.append("invoice #\(invoice.number)")
            case let customer as Customer: notWritten.append("customer \(customer.name)")
            default: notWritten.append("a change")
            }
        }
        if !notWritten.isEmpty {
            let reason = fileProblem ?? failure ?? "not written yet"
            unsaved.append("\(notWritten.joined(separator: ", ")) (\(reason))")
        }
        return unsaved
    }

    /// `line 2 of invoice #1`.
    private static func describe(_ line: InvoiceLine) -> String {
        guard let invoice = line.invoice else { return "a line" }
        let index = invoice.lines.firstIndex { $0 === line }.map { "\($0 + 1)" } ?? "?"
        return "line \(index) of invoice #\(invoice.number)"
    }

    /// The fields whose text is not valid, named with their text: `Discount % "150"`.
    private var invalidFields: [String] {
        var fields: [(name: String, error: String?, text: String)] = [
            ("Discount %", discount.error, discount.text), ("Tax %", tax.error, tax.text),
        ]
        for (index, row) in lineRows.enumerated() {
            fields.append(("line \(index + 1) quantity", row.quantity.error, row.quantity.text))
            fields.append(("line \(index + 1) unit price", row.unitPrice.error, row.unitPrice.text))
        }
        return fields.filter { $0.error != nil }.map { "\($0.name) \"\($0.text)\"" }
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
        let listWidth = Self.listWidth(for: size.width)
        listColumns.store(listWidth - 1)
        let (left, right) = content.dividedColumns(at: listWidth)
        fitWindow(rows: left.height - 1)
        form.render([list], into: &screen, in: left)
        // After the list's title: the filter, and where the selection is (`2/3`, `1/2 of 3`).
        let counted = (matchCount ?? invoiceCount).map { "\($0)" } ?? "…"
        let all = invoiceCount.map { "\($0)" } ?? "…"
        let position = (list.selectedIndex.map { "\(windowTop + $0 + 1)" } ?? "0") + "/\(counted)"
            + (matchCount == nil ? "" : " of \(all)")
        if let filter {
            let shown = "/" + filter + (isTypingFilter ? "▏" : "")
            screen.put(DisplayWidth.truncated(shown, to: max(0, left.width - 10 - DisplayWidth.of(position))),
                       at: Position(x: left.x + 9, y: left.y), style: theme.title, limit: left.maxX)
        }
        if !window.isEmpty || (invoiceCount ?? 0) > 0 {
            // Right-aligned with the totals below it.
            screen.put(position, at: Position(x: max(left.x, left.maxX - 1 - DisplayWidth.of(position)), y: left.y),
                       style: theme.placeholder, limit: left.maxX)
        }
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
        if quitAsked, !unsavedAtQuit.isEmpty {
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
        // The lines: a header, as many rows as fit with room for the amounts below, an error.
        let below = 7
        let rows = max(1, rect.maxY - y - 2 - below)
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
            let shown = title == "Amount" ? String(repeating: " ", count: max(0, width - title.count)) + title : title
            screen.put(shown, at: Position(x: x, y: y), style: theme.label, limit: min(rect.maxX, x + width))
            x += width + 1
        }
        y += 1
        if let focused = lineRows.firstIndex(where: { row in row.fields.contains { form.isFocused($0) } }) {
            if focused < firstVisibleLine { firstVisibleLine = focused }
            if focused >= firstVisibleLine + rows { firstVisibleLine = focused - rows + 1 }
        }
        firstVisibleLine = max(0, min(firstVisibleLine, lineRows.count - rows))
        if lineRows.isEmpty {
            screen.put("(no lines: Ctrl-L adds one)", at: Position(x: rect.x, y: y), style: theme.placeholder, limit: rect.maxX)
        }
        for lineRow in lineRows.dropFirst(firstVisibleLine).prefix(rows) {
            var x = rect.x
            for (widget, width) in zip([lineRow.text, lineRow.quantity, lineRow.unitPrice, lineRow.amount] as [any Widget], columns) {
                widget.render(into: &screen, in: Rect(x: x, y: y, width: min(width, max(0, rect.maxX - x)), height: 1), context: form.context(for: widget))
                x += width + 1
            }
            y += 1
        }
        y = max(y, rect.y + 4 + min(rows, max(1, lineRows.count)))
        if lineRows.count > rows {
            let shown = "lines \(firstVisibleLine + 1)-\(min(lineRows.count, firstVisibleLine + rows)) of \(lineRows.count)"
            screen.put(shown, at: Position(x: rect.x, y: y), style: theme.placeholder, limit: rect.maxX)
        }
        if let (index, error) = lineRows.enumerated().lazy.compactMap({ index, row in row.error.map { (index, $0) } }).first {
            screen.put("\(theme.errorPrefix)line \(index + 1) \(error)", at: Position(x: rect.x, y: y), style: theme.error, limit: rect.maxX)
        }
        y += 1
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

    /// What the list shows: the invoices the filter lets through (by customer, ignoring case,
    /// or by number: `12` and `#12` match invoice #12); every invoice without a filter.
    var condition: Condition<Invoice> {
        guard let filter, !filter.isEmpty else { return .always(true) }
        let number = filter.hasPrefix("#") ? String(filter.dropFirst()) : filter
        if number.isEmpty { return .always(true) }   // "#": every invoice has a number
        let byCustomer: Condition<Invoice> = .related(\.customer, .contains(\.name, filter, ignoringCase: true))
        guard let wanted = Int(number) else { return byCustomer }
        return byCustomer || \.number == wanted
    }

    /// Shows the rows of the list from position `top` on: a live page of as many rows as the
    /// list shows, sent again when a commit (here or elsewhere) changes them.
    private func openWindow(top: Int) {
        windowGeneration += 1
        let generation = windowGeneration
        windowTop = top
        let page = store.observe(Invoice.self, where: condition, orderBy: \.number, limit: windowRows, offset: top)
        let subscription = page.subscribe(
            with: current,
            next: { [weak self] _, invoices in
                guard let self, self.windowGeneration == generation else { return }
                self.show(Array(invoices))
            },
            error: { [weak self] _, error in self?.report("Cannot read the invoices: \(error)") }
        )
        // Showing the first page may have opened another (to follow the selected invoice).
        if windowGeneration == generation { windowQuery.inner = subscription } else { subscription.dispose() }
    }

    /// The list shows `rows` rows (at a render): the window takes as many, and keeps the
    /// selection on screen.
    private func fitWindow(rows: Int) {
        guard rows > 0, rows != windowRows else { return }
        windowRows = rows
        let selected = windowTop + (list.selectedIndex ?? 0)
        openWindow(top: selected >= windowTop + rows ? selected - rows + 1 : windowTop)
    }

    /// Shows a new page, keeping the selected invoice selected: where it is on the page; when
    /// it moved off the page (rows came or went before it, here or elsewhere, or its number
    /// changed), the window follows it; when it is gone (deleted, or the filter no longer lets
    /// it through), the invoice now at its place is selected.
    private func show(_ invoices: [Invoice]) {
        defer {
            settleSelection()
            needsDisplay()
        }
        window = invoices
        shownCustomers = invoices.compactMap(\.customer)
        // A row's total follows its lines, which another copy or program may change without
        // changing the invoice's row: each total on screen redraws the list when it changes.
        let needsDisplay = self.needsDisplay
        let totals = CompoundDisposable()
        for invoice in invoices { totals.add(observe(invoice, \.total).skip(1).subscribe(next: { _ in needsDisplay() })) }
        windowTotals.inner = totals
        list.setItems(invoices)
        if invoices.count < windowRows, windowTop > 0 {
            // The page ends the list and does not fill the screen (rows went from the end, or
            // the window was placed to keep a row where it was): it moves back to fill it.
            do {
                let top = max(0, try store.count(Invoice.self, where: condition) - windowRows)
                if top < windowTop {
                    openWindow(top: top)
                    return
                }
            } catch {
                report("Cannot count the invoices: \(error)")
            }
        }
        if isMovingTheSelection { return }
        guard let invoice = current.invoice else {
            select(list.selectedItem)
            return
        }
        if let index = invoices.firstIndex(where: { $0 === invoice }) {
            list.select(index)
            if invoice === added { added = nil }
            return
        }
        if invoice.persistentID != nil, !isFollowing, let position = position(of: invoice) {
            isFollowing = true
            defer { isFollowing = false }
            openWindow(top: max(0, position - (list.selectedIndex ?? 0)))
            return
        }
        // Added here and not let through by the filter: it stays selected until it changes.
        if invoice === added, invoice.persistentID != nil { return }
        // The row at the selection's place, or the last one when the list ends before it.
        list.select(invoices.isEmpty ? nil : max(0, min(selectedPosition - windowTop, invoices.count - 1)))
        if invoice.persistentID == nil {
            // Deleted by another program (before its own delete shows, this app selects
            // another invoice): said, and the focus leaves the fields, so that nothing typed
            // next lands in the invoice now at its place.
            pendingDeletion = nil
            takeFocusToList(because: "Invoice #\(invoice.number) was deleted by another program.", fromAField: !form.isFocused(list))
        } else if !form.isFocused(list) {
            // Still stored, but no longer in the list (the filter no longer lets it through):
            // the invoice now at its place is shown, and nothing typed next may land in it.
            pendingDeletion = nil
            takeFocusToList(because: "Invoice #\(invoice.number) was changed by another program and left the list.", fromAField: true)
        }
        select(list.selectedItem)
    }

    /// Records where the selection is in the whole list.
    private func settleSelection() {
        selectedPosition = windowTop + (list.selectedIndex ?? 0)
    }

    /// Where `invoice` stands in the list (as committed), or nil when the list does not show
    /// it (the filter does not let it through, or it is not stored).
    private func position(of invoice: Invoice) -> Int? {
        do {
            return try store.position(of: invoice, where: condition, orderBy: \.number)
        } catch {
            report("Cannot read the invoices: \(error)")
            return nil
        }
    }

    /// Selects the invoice at `position` of the list, moving the window to show it.
    private func select(position: Int) {
        if position < windowTop || position >= windowTop + windowRows {
            // The page shown next is for the new selection: the old one is not followed.
            isMovingTheSelection = true
            defer { isMovingTheSelection = false }
            openWindow(top: position < windowTop ? position : position - windowRows + 1)
        }
        list.select(position - windowTop)
        select(list.selectedItem)
        settleSelection()
    }

    /// Selects `invoice` and shows it in the list, moving the window if it is off the page.
    private func reveal(_ invoice: Invoice) {
        select(invoice)
        if let index = window.firstIndex(where: { $0 === invoice }) {
            list.select(index)
        } else if let position = position(of: invoice) {
            let row = list.selectedIndex ?? 0
            openWindow(top: max(0, position - min(row, windowRows - 1)))
        }
        settleSelection()
    }

    /// The filter changed: the list shows what it lets through, from the selected invoice
    /// when it is among them, else from the first.
    private func applyFilter() {
        if let filter, !filter.isEmpty {
            matchCounting.inner = store.observeCount(Invoice.self, where: condition).subscribe(
                with: current,
                next: { [weak self] _, count in self?.matchCount = count },
                error: { [weak self] _, error in self?.report("Cannot count the invoices: \(error)") })
        } else {
            matchCounting.inner = nil
            matchCount = nil
        }
        added = nil
        if let invoice = current.invoice, let position = position(of: invoice) {
            openWindow(top: max(0, position - (list.selectedIndex ?? 0)))
        } else {
            list.select(nil)
            openWindow(top: 0)
            list.select(list.items.isEmpty ? nil : 0)
            select(list.selectedItem)
        }
    }

    /// The filter typed after `/` in the list: characters and Backspace edit it (the list
    /// follows as it is typed), Up/Down choose among the matches, Enter keeps it, Esc clears it.
    private func handleFilter(_ key: Key) {
        switch key {
        case .character(let character): filter = (filter ?? "") + String(character)
        case .paste(let text): filter = (filter ?? "") + text.filter { !$0.isNewline && $0 != "\t" }
        case .backspace:
            guard filter?.isEmpty == false else { return }
            filter?.removeLast()
        case .enter:
            isTypingFilter = false
            if filter?.isEmpty == true { filter = nil }
            return
        case .escape:
            isTypingFilter = false
            filter = nil
        case .up, .down, .pageUp, .pageDown, .home, .end:
            if let target = listTarget(for: key), let target { select(position: target) }
            return
        default:
            return
        }
        applyFilter()
    }

    /// A change committed by another program to the selected invoice, one of its lines or its
    /// customer: said on the status line (the form shows the new values already), unless a
    /// question waits for its answer there.
    private func changedElsewhere(_ change: StoreChange) {
        if change.isLocal { savedLocally() }
        guard !change.isLocal, pendingDeletion == nil, let invoice = current.invoice, let id = invoice.persistentID else { return }
        let concerns = switch change.table {
        case "Invoice": change.rowID == id && change.kind != .delete
        case "InvoiceLine": shownLineIDs.contains(change.rowID) || invoice.lines.contains { $0.persistentID == change.rowID }
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
    private static func replacements(of field: any Widget) -> Signal<String, Never> {
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
        firstVisibleLine = 0
        shownLineIDs = []
        current.invoice = invoice
        bindFields(to: invoice ?? blank)
        let needsDisplay = self.needsDisplay
        selectedChanges.inner = invoice.map { invoice in
            let changes = CompoundDisposable()
            changes.add(Tether.changes(of: invoice).subscribe(next: { _ in needsDisplay() }))
            changes.add(store.deletion(of: invoice).subscribe(with: current) { [weak self] _, _ in
                self?.selectedInvoiceDeleted(invoice)
            })
            return changes
        }
        if invoice == nil { form.focus(list) }
    }

    /// The selected invoice was deleted (here or elsewhere) while the list does not show it
    /// (added here, and not let through by the filter): the list's selection takes its place.
    /// One the list shows is taken care of when the list changes (`show`).
    private func selectedInvoiceDeleted(_ invoice: Invoice) {
        guard current.invoice === invoice, !window.contains(where: { $0 === invoice }) else { return }
        added = nil
        pendingDeletion = nil
        takeFocusToList(because: "Invoice #\(invoice.number) was deleted by another program.", fromAField: !form.isFocused(list))
        select(list.selectedItem)
        needsDisplay()
    }

    private func bindFields(to invoice: Invoice) {
        note.bind(to: channel(invoice, \.note))
        discount.bind(to: channel(invoice, \.discount))
        tax.bind(to: channel(invoice, \.tax))
    }

    private func add() {
        if filter != nil {
            // The new invoice would not be let through: the list shows every invoice again.
            filter = nil
            isTypingFilter = false
            applyFilter()
        }
        do {
            let invoice = try addInvoice(to: store)
            added = invoice
            reveal(invoice)
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

    /// The invoice at `position` of the list, from the window or else read (nil past the ends).
    private func listedInvoice(at position: Int) -> Invoice? {
        guard position >= 0 else { return nil }
        if position >= windowTop, position - windowTop < window.count { return window[position - windowTop] }
        return try? store.fetch(Invoice.self, where: condition, orderBy: \.number, limit: 1, offset: position).first
    }

    private func delete(_ invoice: Invoice) {
        // The invoice after it takes its place; after the last, the one before.
        let position = window.firstIndex { $0 === invoice }.map { windowTop + $0 }
        let neighbour = position.flatMap { listedInvoice(at: $0 + 1) ?? listedInvoice(at: $0 - 1) }
        // Selected first: the list that the delete sends finds the neighbour selected.
        let wasSelected = current.invoice === invoice
        if wasSelected { select(neighbour) }
        do {
            try deleteInvoice(invoice, from: store)
            if wasSelected, let neighbour { reveal(neighbour) }
            // The invoice whose form held the focus is gone: the next key must not edit the
            // one now selected, which the user did not choose.
            if wasSelected { form.focus(list) }
            status.setMessage("Deleted invoice #\(invoice.number).")
        } catch {
            if wasSelected { reveal(invoice) }
            report("Cannot delete invoice #\(invoice.number): \(error)")
        }
    }

    // MARK: Lines

    /// Shows `lines`, keeping the rows (and their edits) of the lines still there, and the
    /// focus where it was when its line is still there.
    private func showLines(_ lines: [InvoiceLine]) {
        let focused = form.focusedWidget
        let old = lineRows
        lineRows = lines.map { line in old.first { $0.line === line } ?? InvoiceLineRow(line: line) }
        shownLineIDs.formUnion(lines.compactMap(\.persistentID))
        let focusedLine = old.firstIndex { row in row.fields.contains { $0 === focused } }
        // The field being edited keeps the focus without being told again: its edit goes on.
        form = Form([list, customer, note] + lineRows.flatMap(\.fields) + [discount, tax], keepingFocusOn: focused)
        if let focusedLine, !form.widgets.contains(where: { $0 === focused }) {
            let gone = old[focusedLine].line
            if linesDeletedHere.contains(ObjectIdentifier(gone)) {
                // Deleted here (Ctrl-K): the focus goes to the line now at its place, or the note.
                let rows = lineRows
                if rows.isEmpty { form.focus(note) } else { form.focus(rows[min(focusedLine, rows.count - 1)].text) }
            } else {
                // Deleted by another program: nothing typed next may land in another line.
                takeFocusToList(because: "Line \(focusedLine + 1) of invoice #\(current.invoice?.number ?? 0) was deleted by another program.", fromAField: true)
            }
        }
        let needsDisplay = self.needsDisplay
        let changes = CompoundDisposable()
        for (index, row) in lineRows.enumerated() {
            changes.add(Tether.changes(of: row.line).subscribe(next: { _ in needsDisplay() }))
            for (field, name) in zip(row.fields, ["description", "quantity", "unit price"]) {
                changes.add(Self.replacements(of: field).subscribe(with: current) { [weak self] _, _ in
                    self?.replacedElsewhere(field, named: "Line \(index + 1) \(name)")
                })
            }
        }
        lineChanges.inner = changes
        needsDisplay()
    }

    private func addLine() {
        guard let invoice = current.invoice else {
            status.setMessage("No invoice to add a line to.")
            return
        }
        let line = InvoiceKit.addLine(to: invoice)
        if let row = lineRows.first(where: { $0.line === line }) { form.focus(row.text) }
        status.setMessage("Added line \(invoice.lines.count).")
    }

    /// The line the focus is in, if any.
    private var focusedLine: InvoiceLine? {
        lineRows.first { row in row.fields.contains { form.isFocused($0) } }?.line
    }

    private func askToDeleteLine() {
        guard let line = focusedLine, let index = lineRows.firstIndex(where: { $0.line === line }) else {
            status.setMessage("Move to a line to delete it.")
            return
        }
        pendingDeletion = .line(line)
        let text = line.text.isEmpty ? "" : " (\(line.text))"
        status.setMessage("Delete line \(index + 1)\(text)? y/n")
    }

    private func delete(_ line: InvoiceLine) {
        linesDeletedHere.insert(ObjectIdentifier(line))
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

    /// A write the store could not make: a line of the selected invoice that breaks its rules
    /// is shown beside the lines already (`InvoiceLineRow.error`); anything else on the
    /// status line.
    private func storeFailed(_ error: StoreError) {
        // The whole error (its SQL included) goes to the log; the form says it in words.
        Self.logger.error("\(error)")
        if case .fileLost = error {
            // Nothing typed from now on reaches a file: the title row says so at once.
            fileProblem = SaveState.reason(for: error)
            needsDisplay()
            return
        }
        if store.pendingRowCount > 0 {
            // Edits wait: the title row says so until a write succeeds. A line that breaks
            // its rule is shown beside the lines too.
            failure = SaveState.reason(for: error)
            needsDisplay()
        } else {
            // Nothing waits: a change dropped (not saved), or a read that failed (a change
            // made elsewhere, or an invoice's lines), which is not about saving at all.
            switch error {
            case .deleted, .invalid, .closed, .readOnly, .fileLost:
                report("Not saved: \(SaveState.reason(for: error))")
            default:
                report("Could not read from the database: \(SaveState.reason(for: error))")
            }
        }
    }

    /// A write of this program committed: with nothing left waiting, the failure is over.
    private func savedLocally() {
        // The title row said "Saving…" (or why not): it says "Saved" now if nothing waits.
        needsDisplay()
        guard failure != nil, store.pendingRowCount == 0 else { return }
        failure = nil
    }

    private func report(_ message: String) {
        status.setMessage(message)
        needsDisplay()
    }
}

/// An integer shared with a `@Sendable` closure (the list's format reads the row width the
/// last render chose).
final class _SharedInt: Sendable {
    private let value: Atomic<Int>
    init(_ value: Int) { self.value = Atomic(value) }
    /// The value (relaxed: it is a layout hint, read and written on the main thread).
    func load() -> Int { value.load(ordering: .relaxed) }
    func store(_ newValue: Int) { value.store(newValue, ordering: .relaxed) }
}
