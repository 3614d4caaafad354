/// A column of widgets with a focus: keys go to the focused widget, and the keys it ignores
/// move the focus: Tab and Shift-Tab to the next and previous focusable widget (wrapping
/// around), Down and Up likewise (stopping at the ends). Enter and Esc go to the focused field,
/// which confirms or reverts its edit.
///
/// The form lays its widgets out top to bottom with their labels aligned, or lends its focus
/// and alignment to an app that places widgets itself (`render(_:into:in:)`).
///
/// ```swift
/// let form = Form([title, customer, quantity, price, total])
/// form.handle(.tab)                         // focus: customer -> quantity
/// form.render(into: &screen, in: formRect)
/// ```
public final class Form: Sendable {
    /// The widgets, top to bottom.
    public let widgets: [any Widget]
    /// Styles.
    public let theme: Theme
    /// The columns reserved for labels: the widest label's width unless given.
    public let labelWidth: Int

    private let focus: _Locked<Int?>

    /// Creates a form; the first focusable widget gets the focus.
    ///
    /// ```swift
    /// let form = Form([customer, quantity, total], labelWidth: 12)
    /// ```
    public convenience init(_ widgets: [any Widget], theme: Theme = .standard, labelWidth: Int? = nil) {
        self.init(widgets, theme: theme, labelWidth: labelWidth, keepingFocusOn: nil)
    }

    /// Creates a form whose focus is `focused`, a widget that already has the focus (in the
    /// form this one replaces: the same fields, with rows added or removed): it is not told
    /// again, so an edit in progress goes on, and Esc still returns to the text from before
    /// it. Without such a widget, the first focusable one gets the focus.
    ///
    /// ```swift
    /// form = Form([list, customer] + lineFields, keepingFocusOn: form.focusedWidget)
    /// ```
    public init(_ widgets: [any Widget], theme: Theme = .standard, labelWidth: Int? = nil, keepingFocusOn focused: (any Widget)?) {
        self.widgets = widgets
        self.theme = theme
        self.labelWidth = labelWidth ?? widgets.compactMap { $0.label.map { DisplayWidth.of($0) } }.max() ?? 0
        if let focused, let index = widgets.firstIndex(where: { $0 === focused }), widgets[index].isFocusable {
            self.focus = _Locked(index)
            return
        }
        let first = widgets.firstIndex { $0.isFocusable }
        self.focus = _Locked(first)
        if let first { widgets[first].focusDidChange(true) }
    }

    /// The index of the focused widget in `widgets`, or nil if none can take the focus.
    public var focusedIndex: Int? { focus.withLock { $0 } }

    /// The focused widget.
    public var focusedWidget: (any Widget)? { focusedIndex.map { widgets[$0] } }

    /// Whether `widget` has the focus.
    public func isFocused(_ widget: any Widget) -> Bool {
        focusedWidget.map { $0 === widget } ?? false
    }

    /// Gives the focus to `widget` (if it is in the form and focusable).
    ///
    /// ```swift
    /// form.focus(quantity)
    /// ```
    public func focus(_ widget: any Widget) {
        guard let index = widgets.firstIndex(where: { $0 === widget }), widgets[index].isFocusable else { return }
        moveFocus(to: index)
    }

    /// Moves the focus to the next focusable widget, wrapping around.
    public func focusNext() { moveFocus(by: 1, wrapping: true) }

    /// Moves the focus to the previous focusable widget, wrapping around.
    public func focusPrevious() { moveFocus(by: -1, wrapping: true) }

    /// Offers `key` to the focused widget; if it ignores the key, Tab/Shift-Tab/Down/Up move
    /// the focus. Returns `.ignored` for keys neither used (for the app: Ctrl-C, or q outside
    /// a text field).
    public func handle(_ key: Key) -> KeyResult {
        if let focused = focusedWidget, focused.handle(key) == .handled { return .handled }
        switch key {
        case .tab: moveFocus(by: 1, wrapping: true)
        case .backTab: moveFocus(by: -1, wrapping: true)
        case .down: moveFocus(by: 1, wrapping: false)
        case .up: moveFocus(by: -1, wrapping: false)
        default: return .ignored
        }
        return .handled
    }

    /// The context to draw `widget` with: its focus, the form's label width and theme.
    public func context(for widget: any Widget) -> RenderContext {
        RenderContext(isFocused: isFocused(widget), labelWidth: labelWidth, theme: theme)
    }

    /// Draws all widgets top to bottom in `rect`, each taking its `height` in rows, until the
    /// rectangle is full.
    public func render(into screen: inout Screen, in rect: Rect) {
        render(widgets, into: &screen, in: rect)
    }

    /// Draws some of the form's widgets top to bottom in `rect` (for layouts with several
    /// columns: the list on the left, the fields on the right).
    ///
    /// ```swift
    /// form.render([list], into: &screen, in: left)
    /// form.render([customer, quantity, total], into: &screen, in: right)
    /// ```
    public func render(_ some: [any Widget], into screen: inout Screen, in rect: Rect) {
        var y = rect.y
        for widget in some {
            guard y < rect.maxY else { break }
            let height = min(max(0, widget.height), rect.maxY - y)
            widget.render(into: &screen, in: Rect(x: rect.x, y: y, width: rect.width, height: height), context: context(for: widget))
            y += height
        }
    }

    private func moveFocus(by step: Int, wrapping: Bool) {
        let count = widgets.count
        guard count > 0 else { return }
        let current = focusedIndex
        var index = current ?? (step > 0 ? -1 : count)
        for _ in 0..<count {
            index += step
            if wrapping {
                index = (index % count + count) % count
            } else if index < 0 || index >= count {
                return
            }
            if widgets[index].isFocusable {
                moveFocus(to: index)
                return
            }
        }
    }

    private func moveFocus(to index: Int) {
        let previous: Int? = focus.withLock { focus in
            defer { focus = index }
            return focus
        }
        guard previous != index else { return }
        // Called after the lock is released: widgets may ask the form who has the focus.
        if let previous { widgets[previous].focusDidChange(false) }
        widgets[index].focusDidChange(true)
    }
}
