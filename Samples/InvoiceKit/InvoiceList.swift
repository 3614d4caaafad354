import Synchronization
import TetherSQLite
import TetherTerminal

/// What the invoice list tells the app it is part of: the list chose another invoice, or the
/// one being edited left it.
@MainActor
protocol InvoiceListOwner: AnyObject {
    /// The list's selection is `invoice` now: the form edits it.
    func listSelected(_ invoice: Invoice?)
    /// The invoice being edited left the list: it was deleted by another program, or
    /// (`deleted` false) it no longer passes the filter. The list has selected the invoice now
    /// at its place, and calls `listSelected` next.
    func editedInvoiceLeftTheList(_ invoice: Invoice, deleted: Bool)
    /// A read failed: said on the status line.
    func listFailed(_ message: String)
}

/// The list of invoices on the left of the form: a live page of the invoices the filter lets
/// through, ordered by number (only the rows on screen are loaded: a file of a million
/// invoices opens in 4 ms, one of three in 3), how many there are, the filter, and the
/// selected invoice, kept selected as rows come and go here or in another program.
///
/// It owns the `ListView` (`view`), the page and its queries; the app passes it the keys that
/// move the selection or type the filter, and hears through `InvoiceListOwner` which invoice
/// the form is to edit.
///
/// ```swift
/// let list = InvoiceList(store: store, current: current, needsDisplay: { terminal.setNeedsDisplay() })
/// list.owner = app
/// list.open()
/// list.select(position: 10)   // the page moves to show row 11; the app edits its invoice
/// ```
@MainActor
final class InvoiceList {
    /// The rows on screen, the selected one highlighted.
    let view: ListView<Invoice>
    /// Told which invoice is selected, and when the edited one leaves the list.
    weak var owner: InvoiceListOwner?
    /// The filter typed after `/` (by customer or number), or nil for none.
    private(set) var filter: String?
    /// Whether the filter is being typed (keys go to it).
    private(set) var isTypingFilter = false
    /// The position in the whole list of the page's first row.
    private(set) var top = 0
    /// The rows the page holds: the rows the list showed at the last render.
    private(set) var rows = 36
    /// How many invoices the list shows (0 while they are not counted yet).
    var count: Int { matchCount ?? invoiceCount ?? 0 }

    private let store: Store
    /// The invoice the form edits (the list's subscriptions run on its thread).
    private let current: CurrentInvoice
    private let needsDisplay: @Sendable () -> Void
    /// The invoices on screen: the page, `top` rows from the list's start.
    private var page: [Invoice] = []
    /// The customers of the invoices on screen, kept alive: an invoice refers to its customer
    /// weakly (the customer's collection holds its invoices), and a customer nobody holds would
    /// be read from the file again at each render of its row.
    private var shownCustomers: [Customer] = []
    /// Counts the pages asked for: a page sent by an earlier query is not shown.
    private var generation = 0
    /// Whether the page is moving to follow the edited invoice (it moves once per page).
    private var isFollowing = false
    /// Whether the page is moving for a key that selects another invoice.
    private var isMovingTheSelection = false
    /// The position in the list of the selected row, as last settled: when the selected
    /// invoice goes, the one that comes to this place is selected.
    private var selectedPosition = 0
    /// How many invoices there are: nil until they are counted, right after the first screen
    /// (counting a million rows takes SQLite a few milliseconds: the list does not wait).
    private var invoiceCount: Int?
    /// How many invoices the filter lets through (nil without one).
    private var matchCount: Int?
    /// An invoice this app added that the list has not shown yet.
    private var added: Invoice?
    /// The columns of a row now (39 in a 120-column window): set by `render`, read by the
    /// view's format.
    private let columns = _SharedInt(39)
    private let pageQuery = SerialDisposable()
    /// The observations of the totals of the invoices on screen.
    private let pageTotals = SerialDisposable()
    private let counting = SerialDisposable()
    private let matchCounting = SerialDisposable()

    /// An empty list of the invoices of `store`, for the form that edits `current`; `open()`
    /// reads the first page.
    init(store: Store, current: CurrentInvoice, needsDisplay: @escaping @Sendable () -> Void) {
        self.store = store
        self.current = current
        self.needsDisplay = needsDisplay
        let columns = self.columns
        view = ListView<Invoice>(title: "Invoices", height: 10_000, emptyText: "(none: Ctrl-N adds one)") {
            InvoiceApp.row(for: $0, width: columns.load())
        }
    }

    deinit {
        pageQuery.dispose()
        pageTotals.dispose()
        counting.dispose()
        matchCounting.dispose()
    }

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

    /// Reads the first page.
    func open() {
        openPage(top: 0)
    }

    /// Counts the invoices, now and after every commit that inserts or deletes some (once).
    func countInvoices() {
        guard invoiceCount == nil, counting.inner == nil else { return }
        counting.inner = store.observeCount(Invoice.self).subscribe(
            with: current,
            next: { [weak self] _, count in
                self?.invoiceCount = count
                self?.needsDisplay()
            },
            error: { [weak self] _, error in self?.owner?.listFailed("Cannot count the invoices: \(error)") }
        )
    }

    /// Where `key` moves the selection (see `ListView.target`), as a position in the whole
    /// list (`.some(nil)` for an empty list); nil for a key that does not move it.
    func target(for key: Key) -> Int?? {
        countInvoices()   // End needs the count, even right after the first screen
        let now = top + (view.selectedIndex ?? 0)
        guard let target = ListView<Invoice>.target(of: key, from: now, count: count, page: rows) else { return nil }
        return count > 0 ? target : .some(nil)
    }

    // MARK: The page

    /// Shows the rows from position `top` on: a live page of as many rows as the list shows,
    /// sent again when a commit (here or elsewhere) changes them.
    private func openPage(top: Int) {
        generation += 1
        let asked = generation
        self.top = top
        let invoices = store.observe(Invoice.self, where: condition, orderBy: \.number, limit: rows, offset: top)
        let subscription = invoices.subscribe(
            with: current,
            next: { [weak self] _, invoices in
                guard let self, self.generation == asked else { return }
                self.show(Array(invoices))
            },
            error: { [weak self] _, error in self?.owner?.listFailed("Cannot read the invoices: \(error)") }
        )
        // Showing the first page may have opened another (to follow the edited invoice).
        if generation == asked { pageQuery.inner = subscription } else { subscription.dispose() }
    }

    /// The list shows `rows` rows (at a render): the page takes as many, and keeps the
    /// selection on screen.
    private func fit(rows: Int) {
        guard rows > 0, rows != self.rows else { return }
        self.rows = rows
        let selected = top + (view.selectedIndex ?? 0)
        openPage(top: selected >= top + rows ? selected - rows + 1 : top)
    }

    /// Shows a new page, keeping the edited invoice selected: where it is on the page; when it
    /// moved off the page (rows came or went before it, here or elsewhere, or its number
    /// changed), the page follows it; when it is gone (deleted, or the filter no longer lets it
    /// through), the invoice now at its place is selected, and the owner is told.
    private func show(_ invoices: [Invoice]) {
        defer {
            settleSelection()
            needsDisplay()
        }
        page = invoices
        shownCustomers = invoices.compactMap(\.customer)
        // A row's total follows its lines, which another copy or program may change without
        // changing the invoice's row: each total on screen redraws the list when it changes.
        let needsDisplay = self.needsDisplay
        let totals = CompoundDisposable()
        for invoice in invoices { totals.add(observe(invoice, \.total).skip(1).subscribe(next: { _ in needsDisplay() })) }
        pageTotals.inner = totals
        view.setItems(invoices)
        if invoices.count < rows, top > 0 {
            // The page ends the list and does not fill the screen (rows went from the end, or
            // the page was placed to keep a row where it was): it moves back to fill it.
            do {
                let last = max(0, try store.count(Invoice.self, where: condition) - rows)
                if last < top {
                    openPage(top: last)
                    return
                }
            } catch {
                owner?.listFailed("Cannot count the invoices: \(error)")
            }
        }
        if isMovingTheSelection { return }
        guard let invoice = current.invoice else {
            owner?.listSelected(view.selectedItem)
            return
        }
        if let index = invoices.firstIndex(where: { $0 === invoice }) {
            view.select(index)
            if invoice === added { added = nil }
            return
        }
        if invoice.persistentID != nil, !isFollowing, let position = position(of: invoice) {
            isFollowing = true
            defer { isFollowing = false }
            openPage(top: max(0, position - (view.selectedIndex ?? 0)))
            return
        }
        // Added here and not let through by the filter: it stays selected until it changes.
        if invoice === added, invoice.persistentID != nil { return }
        // The row at the selection's place, or the last one when the list ends before it.
        view.select(invoices.isEmpty ? nil : max(0, min(selectedPosition - top, invoices.count - 1)))
        // Deleted by another program (before its own delete shows, this app selects another
        // invoice), or still stored but no longer let through by the filter.
        owner?.editedInvoiceLeftTheList(invoice, deleted: invoice.persistentID == nil)
        owner?.listSelected(view.selectedItem)
    }

    /// Records where the selection is in the whole list.
    private func settleSelection() {
        selectedPosition = top + (view.selectedIndex ?? 0)
    }

    /// Where `invoice` stands in the list (as committed), or nil when the list does not show
    /// it (the filter does not let it through, or it is not stored).
    private func position(of invoice: Invoice) -> Int? {
        do {
            return try store.position(of: invoice, where: condition, orderBy: \.number)
        } catch {
            owner?.listFailed("Cannot read the invoices: \(error)")
            return nil
        }
    }

    /// The invoice at `position` of the list, from the page or else read (nil past the ends).
    private func invoice(at position: Int) -> Invoice? {
        guard position >= 0 else { return nil }
        if position >= top, position - top < page.count { return page[position - top] }
        return try? store.fetch(Invoice.self, where: condition, orderBy: \.number, limit: 1, offset: position).first
    }

    // MARK: Selecting

    /// Selects the invoice at `position` of the list, moving the page to show it.
    func select(position: Int) {
        if position < top || position >= top + rows {
            // The page shown next is for the new selection: the old one is not followed.
            isMovingTheSelection = true
            defer { isMovingTheSelection = false }
            openPage(top: position < top ? position : position - rows + 1)
        }
        view.select(position - top)
        owner?.listSelected(view.selectedItem)
        settleSelection()
    }

    /// Selects `invoice` and shows it, moving the page if it is off it.
    func reveal(_ invoice: Invoice) {
        owner?.listSelected(invoice)
        if let index = page.firstIndex(where: { $0 === invoice }) {
            view.select(index)
        } else if let position = position(of: invoice) {
            let row = view.selectedIndex ?? 0
            openPage(top: max(0, position - min(row, rows - 1)))
        }
        settleSelection()
    }

    /// Shows and selects `invoice`, just added here: the filter is cleared first when there is
    /// one (it might not let the new invoice through). Until the list shows it, it stays
    /// selected.
    func showAdded(_ invoice: Invoice) {
        if filter != nil {
            filter = nil
            isTypingFilter = false
            applyFilter()
        }
        added = invoice
        reveal(invoice)
        if view.selectedItem === invoice { added = nil }
    }

    /// The invoice that takes the place of `invoice` when it is deleted: the one after it, or
    /// after the last, the one before; nil when the page does not show it.
    func neighbour(of invoice: Invoice) -> Invoice? {
        guard let index = page.firstIndex(where: { $0 === invoice }) else { return nil }
        let position = top + index
        return self.invoice(at: position + 1) ?? self.invoice(at: position - 1)
    }

    /// The edited invoice was deleted (here or elsewhere). One the page shows is taken care of
    /// when the page changes; one it does not (added here, and not let through by the filter)
    /// gives its place to the list's selection now.
    func editedInvoiceDeleted(_ invoice: Invoice) {
        guard current.invoice === invoice, !page.contains(where: { $0 === invoice }) else { return }
        added = nil
        owner?.editedInvoiceLeftTheList(invoice, deleted: true)
        owner?.listSelected(view.selectedItem)
        needsDisplay()
    }

    // MARK: The filter

    /// Starts typing the filter (on from what it is).
    func startFilter() {
        isTypingFilter = true
        filter = filter ?? ""
    }

    /// Clears the filter: every invoice is shown again.
    func clearFilter() {
        isTypingFilter = false
        filter = nil
        applyFilter()
    }

    /// A key while the filter is typed: characters and Backspace edit it (the list follows as
    /// it is typed), Up/Down choose among the matches, Enter keeps it, Esc clears it.
    func typeFilter(_ key: Key) {
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
            if let target = target(for: key), let target { select(position: target) }
            return
        default:
            return
        }
        applyFilter()
    }

    /// The filter changed: the list shows what it lets through, from the edited invoice when it
    /// is among them, else from the first.
    private func applyFilter() {
        if let filter, !filter.isEmpty {
            matchCounting.inner = store.observeCount(Invoice.self, where: condition).subscribe(
                with: current,
                next: { [weak self] _, count in self?.matchCount = count },
                error: { [weak self] _, error in self?.owner?.listFailed("Cannot count the invoices: \(error)") })
        } else {
            matchCounting.inner = nil
            matchCount = nil
        }
        added = nil
        if let invoice = current.invoice, let position = position(of: invoice) {
            openPage(top: max(0, position - (view.selectedIndex ?? 0)))
        } else {
            view.select(nil)
            openPage(top: 0)
            view.select(view.items.isEmpty ? nil : 0)
            owner?.listSelected(view.selectedItem)
        }
    }

    // MARK: Rendering

    /// Draws the list in `rect` (the page takes as many rows as it shows), and after its title
    /// the filter and where the selection is (`2/3`, `1/2 of 3`).
    func render(into screen: inout Screen, in rect: Rect, form: Form) {
        columns.store(rect.width - 1)
        fit(rows: rect.height - 1)
        form.render([view], into: &screen, in: rect)
        let theme = form.theme
        let counted = (matchCount ?? invoiceCount).map { "\($0)" } ?? "…"
        let all = invoiceCount.map { "\($0)" } ?? "…"
        let position = (view.selectedIndex.map { "\(top + $0 + 1)" } ?? "0") + "/\(counted)"
            + (matchCount == nil ? "" : " of \(all)")
        if let filter {
            let shown = "/" + filter + (isTypingFilter ? "▏" : "")
            screen.put(DisplayWidth.truncated(shown, to: max(0, rect.width - 10 - DisplayWidth.of(position))),
                       at: Position(x: rect.x + 9, y: rect.y), style: theme.title, limit: rect.maxX)
        }
        if !page.isEmpty || (invoiceCount ?? 0) > 0 {
            // Right-aligned with the totals below it.
            screen.put(position, at: Position(x: max(rect.x, rect.maxX - 1 - DisplayWidth.of(position)), y: rect.y),
                       style: theme.placeholder, limit: rect.maxX)
        }
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
