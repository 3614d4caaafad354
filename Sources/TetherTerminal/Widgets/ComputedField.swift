/// A read-only field showing the latest value of a signal, formatted: a computed property of a
/// model, such as an invoice's total.
///
/// ```swift
/// let total = ComputedField("Total", observe(invoice, \.total)) { NumberText.fixed($0, places: 2) }
/// ```
///
/// The field subscribes when it is created and unsubscribes when it is freed. It shows nothing
/// until the signal sends a value (`observe(model, keyPath)` sends the current value at once).
/// A value wider than its box never shows as a different value: right-aligned (a number), it
/// shows as `####` the width of the box, as a spreadsheet does; left-aligned (text), it is cut
/// with "…".
public final class ComputedField<Value>: Widget {
    /// How the value is aligned in its box.
    public enum Alignment: Sendable {
        /// Against the box's left edge.
        case leading
        /// Against the box's right edge (numbers line up).
        case trailing
    }

    /// The label shown before the value.
    public let label: String?
    /// The value's box width in columns (nil: 20, clamped to the space available).
    public let width: Int?
    /// How the value is aligned in its box.
    public let alignment: Alignment

    private let shown: _Locked<String>
    private let subscription: any Disposable

    /// Creates a field that shows each value of `values`, formatted by `format`.
    ///
    /// ```swift
    /// ComputedField("Subtotal", observe(invoice, \.subtotal), alignment: .trailing) { NumberText.fixed($0, places: 2) }
    /// ```
    public init(
        _ label: String? = nil,
        _ values: Signal<Value, Never>,
        width: Int? = nil,
        alignment: Alignment = .leading,
        format: @escaping @Sendable (Value) -> String
    ) {
        self.label = label
        self.width = width
        self.alignment = alignment
        let shown = _Locked("")
        self.shown = shown
        subscription = values.subscribe(next: { value in
            let text = format(value)
            shown.withLock { $0 = text }
        })
    }

    deinit {
        subscription.dispose()
    }

    /// The text shown: the latest value, formatted.
    public var text: String { shown.withLock { $0 } }

    /// Draws the label and the value.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        let text = self.text
        let x = _FieldLayout.drawLabel(label ?? "", into: &screen, in: rect, context: context)
        let box = _FieldLayout.boxRect(startingAt: x, width: width, in: rect)
        var shown = text
        if DisplayWidth.of(text) > box.width {
            // Never a different value: a number (trailing) that does not fit shows as #### the
            // width of its box, as a spreadsheet does; text is cut with "…".
            shown = alignment == .trailing ? String(repeating: "#", count: box.width) : DisplayWidth.truncated(text, to: box.width)
        }
        let start: Int
        switch alignment {
        case .leading: start = box.x
        case .trailing: start = max(box.x, box.maxX - DisplayWidth.of(shown))
        }
        screen.put(shown, at: Position(x: start, y: box.y), style: context.theme.computed, limit: box.maxX)
    }
}

extension ComputedField where Value == String {
    /// Creates a field that shows each string of `values` as it is.
    ///
    /// ```swift
    /// ComputedField("Customer", observe(invoice, \.customer))
    /// ```
    public convenience init(_ label: String? = nil, _ values: Signal<String, Never>, width: Int? = nil, alignment: Alignment = .leading) {
        self.init(label, values, width: width, alignment: alignment, format: { $0 })
    }
}
