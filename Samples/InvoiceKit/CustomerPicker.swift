import TetherSQLite
import TetherTerminal

/// The customer picker under the form's Customer field: the store's customers whose name
/// contains what is typed, "New customer" with the text, and "(no customer)". It owns the
/// field's text while it is open (`draft`), the live list of customers (read when it first
/// opens) and the choice highlighted; the app asks it to open, passes it the keys while it is
/// open, and acts on what it answers (`Outcome`).
///
/// ```swift
/// let picker = CustomerPicker(store: store, field: customerField)
/// picker.open(showingAll: false, highlighting: nil)
/// if case .picked(let choice) = picker.handle(.enter) { give(invoice, choice) }
/// ```
@MainActor
public final class CustomerPicker {
    /// What a key did in the picker, for the app to act on.
    public enum Outcome {
        /// Nothing for the app: the highlight moved, the text changed, or the key was not one.
        case handled
        /// The user chose (Enter, or Tab / Shift-Tab, `movingFocus` by 1 or -1); nil: nothing
        /// was highlighted. The picker is still open: the app gives the invoice the choice and
        /// closes it.
        case picked(CustomerChoice?, movingFocus: Int)
        /// Esc: the invoice keeps its customer.
        case cancelled
        /// Ctrl-D on a customer: the app asks whether to delete them.
        case askToDelete(Customer)
        /// Ctrl-D with no customer highlighted.
        case nothingToDelete
    }

    /// The choices shown, the highlighted one selected.
    public let choices = ListView<CustomerChoice>(height: 8) { $0.title }
    /// Whether the picker is open.
    public private(set) var isOpen = false
    /// The text of the customer field: the invoice's customer's name, or what is being typed.
    let draft = CustomerDraft()

    private let store: Store
    private let field: TextField
    /// Whether every customer is shown (opened with Enter, nothing typed yet).
    private var showsAll = false
    /// The store's customers, by name: read when the picker first opens, live from then on.
    private var customers: [Customer] = []
    private var readsCustomers = false
    private let customerList = SerialDisposable()
    /// Said on the status line (a customer deleted elsewhere, a list that cannot be read).
    private let report: (String) -> Void
    private let needsDisplay: () -> Void

    /// A picker for `field` (bound to `draft` here) over the customers of `store`.
    init(store: Store, field: TextField, report: @escaping (String) -> Void, needsDisplay: @escaping () -> Void) {
        self.store = store
        self.field = field
        self.report = report
        self.needsDisplay = needsDisplay
        field.bind(to: channel(draft, \.text))
    }

    deinit {
        customerList.dispose()
    }

    /// The name the field shows while the picker is closed: the invoice's customer's (renamed,
    /// another chosen, another invoice selected).
    func show(name: String) {
        guard !isOpen else { return }
        draft.text = name
    }

    /// Opens with the choices for the text typed, or with every customer and `own` highlighted.
    func open(showingAll: Bool, highlighting own: Customer?) {
        isOpen = true
        showsAll = showingAll
        readCustomers()
        refresh()
        if showingAll, let own,
           let index = choices.items.firstIndex(where: { if case .customer(let c) = $0 { return c === own } else { return false } }) {
            choices.select(index)
        }
    }

    /// Closes; the field shows `name` (the invoice's customer's) again.
    func close(showing name: String) {
        guard isOpen else { return }
        isOpen = false
        draft.text = name
    }

    /// Takes a key while open.
    func handle(_ key: Key) -> Outcome {
        switch key {
        case .up, .down, .pageUp, .pageDown:
            _ = choices.handle(key)
        case .enter: return .picked(choices.selectedItem, movingFocus: 0)
        case .tab: return .picked(choices.selectedItem, movingFocus: 1)
        case .backTab: return .picked(choices.selectedItem, movingFocus: -1)
        case .escape: return .cancelled
        case .control("d"):
            if case .customer(let chosen)? = choices.selectedItem { return .askToDelete(chosen) }
            return .nothingToDelete
        default:
            if field.handle(key) == .handled {
                showsAll = false
                refresh()
            }
        }
        return .handled
    }

    /// The choices again, after the customers or the text changed; the highlighted customer
    /// stays highlighted. A highlighted customer deleted by another program leaves nothing
    /// highlighted (so Enter cannot give the invoice a customer the user did not choose), and
    /// it is said.
    func refresh() {
        let newChoices = CustomerChoice.choices(for: showsAll ? "" : draft.text, among: customers)
        let previous = choices.selectedItem
        choices.setItems(newChoices)
        if case .customer(let kept)? = previous {
            if let index = newChoices.firstIndex(where: { if case .customer(let c) = $0 { return c === kept } else { return false } }) {
                choices.select(index)
                return
            }
            if !customers.contains(where: { $0 === kept }) {
                choices.select(nil)
                report("Customer \(kept.name) was deleted by another program.")
                return
            }
        }
        choices.select(0)
    }

    /// Draws the choices under the field, over the rows below it, from `rect`'s second row.
    func render(into screen: inout Screen, in rect: Rect, labelWidth: Int, theme: Theme) {
        guard isOpen else { return }
        let height = max(0, min(choices.height, choices.items.count, rect.maxY - rect.y - 1))
        screen.fill(Rect(x: rect.x, y: rect.y + 1, width: rect.width, height: height), style: theme.listItem)
        let pickerRect = Rect(x: rect.x + labelWidth + 1, y: rect.y + 1, width: max(0, min(40, rect.width - labelWidth - 1)), height: height)
        choices.render(into: &screen, in: pickerRect, context: RenderContext(isFocused: true, theme: theme))
    }

    /// Starts the live list of customers (once: the picker needs them, the first screen does not).
    private func readCustomers() {
        guard !readsCustomers else { return }
        readsCustomers = true
        customerList.inner = InvoiceKit.customerList(store).subscribe(
            with: draft,
            next: { [weak self] _, customers in
                guard let self else { return }
                self.customers = Array(customers)
                if self.isOpen { self.refresh() }
                self.needsDisplay()
            },
            error: { [weak self] _, error in self?.report("Cannot read the customers: \(error)") }
        )
    }
}

/// The text of the customer field, a model of its own so that the field binds to it like any
/// other: the selected invoice's customer's name, or what the user is typing to choose one.
@Model
final class CustomerDraft {
    var text = ""
}
