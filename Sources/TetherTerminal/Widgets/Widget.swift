/// Whether a widget used a key. A `Form` offers each key to the focused widget first, and
/// moves the focus with the keys the widget ignores.
public enum KeyResult: Hashable, Sendable {
    /// The widget used the key (even if nothing changed, like Left at the start of a field).
    case handled
    /// The widget has no use for the key.
    case ignored
}

/// A piece of a terminal UI: it draws itself into a region of a `Screen` from its current
/// state (a pure function of that state), and may take keys when it has the focus.
///
/// Widgets are classes so that their state can follow signals and channels (a field shows the
/// values arriving from its model); they are `Sendable`, their state is behind a lock, and
/// they never call out while holding it.
///
/// ```swift
/// final class Clock: Widget {
///     func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
///         screen.put("12:00", at: Position(x: rect.x, y: rect.y), limit: rect.maxX)
///     }
/// }
/// ```
public protocol Widget: AnyObject, Sendable {
    /// The rows the widget wants when stacked in a `Form` (1 by default).
    var height: Int { get }
    /// The widget's label, aligned with the other labels of a `Form` (nil by default).
    var label: String? { get }
    /// Whether the widget can take the focus (false by default).
    var isFocusable: Bool { get }
    /// Draws the widget into `rect` of `screen`. A focused widget that edits text also sets
    /// `screen.cursor` to where the user types.
    func render(into screen: inout Screen, in rect: Rect, context: RenderContext)
    /// Takes a key while the widget has the focus (ignores every key by default).
    func handle(_ key: Key) -> KeyResult
    /// Called when the widget gains or loses the focus (does nothing by default).
    func focusDidChange(_ isFocused: Bool)
}

extension Widget {
    /// One row.
    public var height: Int { 1 }
    /// No label.
    public var label: String? { nil }
    /// Not focusable.
    public var isFocusable: Bool { false }
    /// Ignores the key.
    public func handle(_ key: Key) -> KeyResult { .ignored }
    /// Does nothing.
    public func focusDidChange(_ isFocused: Bool) {}
}

/// What a widget needs to know to draw itself besides its own state.
///
/// ```swift
/// field.render(into: &screen, in: rect, context: RenderContext(isFocused: true, labelWidth: 12))
/// ```
public struct RenderContext: Sendable {
    /// Whether the widget has the focus.
    public var isFocused: Bool
    /// The columns reserved for labels (to align a form's fields), or nil for the label's own
    /// width.
    public var labelWidth: Int?
    /// Styles.
    public var theme: Theme

    /// Creates a context.
    public init(isFocused: Bool = false, labelWidth: Int? = nil, theme: Theme = .standard) {
        self.isFocused = isFocused
        self.labelWidth = labelWidth
        self.theme = theme
    }
}

/// The styles widgets draw with.
///
/// ```swift
/// var theme = Theme.standard
/// theme.error = Style(foreground: .magenta, attributes: .bold)
/// let form = Form(fields, theme: theme)
/// ```
public struct Theme: Sendable {
    /// A label.
    public var label = Style.plain
    /// The label of the focused widget.
    public var focusedLabel = Style.bold
    /// An editable field's box.
    public var field = Style.underline
    /// The focused field's box.
    public var focusedField = Style.reverse
    /// The box of a field whose text is invalid.
    public var invalidField = Style(foreground: .red, attributes: .underline)
    /// An inline error message.
    public var error = Style(foreground: .red, attributes: .bold)
    /// What an error message starts with.
    public var errorPrefix = "! "
    /// A computed (read-only) value.
    public var computed = Style.bold
    /// A title.
    public var title = Style.bold
    /// A list row.
    public var listItem = Style.plain
    /// The selected list row while the list has the focus.
    public var selectedItem = Style.reverse
    /// The selected list row while the list does not have the focus.
    public var selectedItemUnfocused = Style.underline
    /// Placeholder text, such as an empty list's message.
    public var placeholder = Style.dim
    /// The status line.
    public var status = Style.reverse
    /// A key of a command bar whose command is enabled.
    public var commandKey = Style.bold
    /// A key of a command bar whose command is disabled, and its title.
    public var disabledCommand = Style.dim

    /// Creates the standard theme (attributes only, so it reads well on any color scheme).
    public init() {}

    /// The standard theme.
    public static let standard = Theme()
}
