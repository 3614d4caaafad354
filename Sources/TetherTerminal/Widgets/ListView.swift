/// A scrolling list of items with a selection: the records beside a form.
///
/// Up/Down move the selection, PageUp/PageDown by a page, Home/End to the ends; the list
/// scrolls to keep the selection visible. The items can be set directly or follow a signal (a
/// live query); the selection stays on the same index, clamped, when the items change.
///
/// ```swift
/// let records = ListView<Invoice.Row>(title: "Invoices", height: 10) { "\($0.id)  \($0.customer)" }
/// records.setItems(rows)
/// records.selection.subscribe(next: { index in showInvoice(at: index) })
/// ```
public final class ListView<Item>: Widget {
    /// The title shown on the first row (nil: no title row).
    public let title: String?
    /// The rows the list wants in a `Form`, title included.
    public let height: Int
    /// What an empty list shows.
    public let emptyText: String

    private let format: @Sendable (Item) -> String
    private struct State {
        var items: [Item] = []
        var selected: Int?
        /// The first visible item.
        var offset = 0
        /// Rows of items shown at the last render (for PageUp/PageDown).
        var pageSize = 10
    }
    private let state = _Locked(State())
    private let selectionSubject: BehaviorSubject<Int?, Never>
    private let itemsSubscription = SerialDisposable()

    /// Creates an empty list.
    ///
    /// ```swift
    /// let list = ListView<String>(title: "Records", height: 8) { $0 }
    /// ```
    public init(title: String? = nil, height: Int = 10, emptyText: String = "(empty)", format: @escaping @Sendable (Item) -> String) {
        self.title = title
        self.height = max(1, height)
        self.emptyText = emptyText
        self.format = format
        self.selectionSubject = BehaviorSubject(nil)
    }

    /// Creates a list that shows each array `items` sends (for example a live query).
    ///
    /// ```swift
    /// let list = ListView(title: "Records", items: store.rows) { $0.name }
    /// ```
    public convenience init(
        title: String? = nil,
        height: Int = 10,
        emptyText: String = "(empty)",
        items: Signal<[Item], Never>,
        format: @escaping @Sendable (Item) -> String
    ) {
        self.init(title: title, height: height, emptyText: emptyText, format: format)
        let state = self.state
        let subject = selectionSubject
        itemsSubscription.inner = items.subscribe(next: { items in
            Self.replaceItems(items, state: state, subject: subject)
        })
    }

    deinit {
        itemsSubscription.dispose()
    }

    /// The items.
    public var items: [Item] { state.withLock { $0.items } }

    /// The selected index, or nil when nothing is selected (an empty list).
    public var selectedIndex: Int? { state.withLock { $0.selected } }

    /// The selected item.
    public var selectedItem: Item? { state.withLock { state in state.selected.map { state.items[$0] } } }

    /// The selected index now and after each change.
    public var selection: Signal<Int?, Never> { selectionSubject.signal }

    /// Replaces the items. The selection keeps its index (clamped); a list that gets its first
    /// items selects the first one.
    public func setItems(_ items: [Item]) {
        Self.replaceItems(items, state: state, subject: selectionSubject)
    }

    private static func replaceItems(_ items: [Item], state: _Locked<State>, subject: BehaviorSubject<Int?, Never>) {
        let (changed, selected): (Bool, Int?) = state.withLock { state in
            let before = state.selected
            state.items = items
            if items.isEmpty {
                state.selected = nil
            } else {
                state.selected = min(state.selected ?? 0, items.count - 1)
            }
            return (before != state.selected, state.selected)
        }
        if changed { subject.sendNext(selected) }
    }

    /// Selects the item at `index` (clamped to the items), or nothing.
    ///
    /// ```swift
    /// list.select(list.items.count - 1)   // the last one, after adding a record
    /// ```
    public func select(_ index: Int?) {
        let (changed, selected): (Bool, Int?) = state.withLock { state in
            let before = state.selected
            if let index, !state.items.isEmpty {
                state.selected = min(max(0, index), state.items.count - 1)
            } else {
                state.selected = nil
            }
            return (before != state.selected, state.selected)
        }
        if changed { selectionSubject.sendNext(selected) }
    }

    /// A list takes the focus.
    public var isFocusable: Bool { true }

    /// Up/Down, PageUp/PageDown, Home/End move the selection; other keys are ignored.
    public func handle(_ key: Key) -> KeyResult {
        let (count, selected, page) = state.withLock { ($0.items.count, $0.selected ?? 0, $0.pageSize) }
        guard let target = Self.target(of: key, from: selected, count: count, page: page) else { return .ignored }
        if count > 0 { select(target) }
        return .handled
    }

    /// Where `key` moves a selection at `selected` in a list of `count` items showing `page`
    /// rows at a time: Up/Down by one, PageUp/PageDown by a page, Home/End to the ends, clamped
    /// to the list; nil for another key. For a list that shows a window of a longer one.
    ///
    /// ```swift
    /// ListView<String>.target(of: .pageDown, from: 5, count: 1_000_000, page: 20)   // 25
    /// ```
    public static func target(of key: Key, from selected: Int, count: Int, page: Int) -> Int? {
        let target: Int
        switch key {
        case .up: target = selected - 1
        case .down: target = selected + 1
        case .pageUp: target = selected - max(1, page)
        case .pageDown: target = selected + max(1, page)
        case .home: target = 0
        case .end: target = count - 1
        default: return nil
        }
        return max(0, min(target, count - 1))
    }

    /// Draws the title (if any) and the visible items, the selected one highlighted.
    /// Remembers the scroll position, so that the view moves only when the selection leaves it.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        let theme = context.theme
        var body = rect
        if let title {
            let titleStyle = context.isFocused ? theme.title.adding(.underline) : theme.title
            screen.put(title, at: Position(x: rect.x, y: rect.y), style: titleStyle, limit: rect.maxX)
            body = rect.inset(top: 1)
        }
        let rows = body.height
        let (items, selected, offset): ([Item], Int?, Int) = state.withLock { state in
            state.pageSize = max(1, rows)
            state.offset = Self.scrollOffset(current: state.offset, selected: state.selected, count: state.items.count, rows: rows)
            return (state.items, state.selected, state.offset)
        }
        guard rows > 0 else { return }
        if items.isEmpty {
            screen.put(emptyText, at: Position(x: body.x, y: body.y), style: theme.placeholder, limit: body.maxX)
            return
        }
        for row in 0..<rows {
            let index = offset + row
            guard index < items.count else { break }
            let y = body.y + row
            let isSelected = index == selected
            let style = isSelected ? (context.isFocused ? theme.selectedItem : theme.selectedItemUnfocused) : theme.listItem
            if isSelected { screen.fill(Rect(x: body.x, y: y, width: body.width, height: 1), style: style) }
            screen.put(format(items[index]), at: Position(x: body.x, y: y), style: style, limit: body.maxX)
        }
    }

    /// The first visible item: the current one if the selection is visible from there,
    /// otherwise the nearest that shows it; never past the end.
    static func scrollOffset(current: Int, selected: Int?, count: Int, rows: Int) -> Int {
        guard rows > 0, count > rows else { return 0 }
        var offset = min(max(0, current), count - rows)
        if let selected {
            if selected < offset { offset = selected }
            if selected >= offset + rows { offset = selected - rows + 1 }
        }
        return offset
    }
}
