/// A one-line text field that edits a `String` through a two-way channel.
///
/// The field owns a `Channel<String>`: it shows the values arriving at `channel.leading` and
/// sends every edit (each keystroke that changes the text) to `channel.leading`. Bind
/// `channel.following` to a model property and the field edits the model live:
///
/// ```swift
/// let customer = TextField("Customer")
/// bind(channel(invoice, \.customer), customer.channel.following)
/// customer.handle(.character("A"))   // invoice.customer == "A"
/// ```
///
/// Enter confirms the text; Esc reverts it to what it was when the field got the focus (or at
/// the last Enter) and sends that value, so the model reverts too. A value that arrives from
/// the model while the user is typing replaces the text (the model is the source of truth). Any
/// UTF-8 text is accepted, Chinese included; the box scrolls to keep the cursor visible.
public final class TextField: Widget {
    /// The label shown before the box.
    public let label: String?
    /// The field's channel: the field is at `leading`; bind `following` to a model.
    public let channel: Channel<String>
    /// The box's width in columns (nil: 20, clamped to the space available).
    public let width: Int?

    private struct State {
        var editor: TextEditor
        /// What Esc returns to.
        var original: String
        /// Whether the user edited since the field got the focus or confirmed.
        var isDirty = false
    }

    private let state: _Locked<State>
    private let subscription: any Disposable

    /// Creates a text field showing `text` until a value arrives on its channel.
    ///
    /// ```swift
    /// let note = TextField("Note", width: 40)
    /// ```
    public init(_ label: String? = nil, text: String = "", width: Int? = nil) {
        self.label = label
        self.width = width
        let channel = Channel<String>()
        self.channel = channel
        let state = _Locked(State(editor: TextEditor(text: text), original: text))
        self.state = state
        subscription = channel.leading.signal.subscribe(next: { value in
            state.withLock { state in
                if value != state.editor.text {
                    state.editor.setText(value)
                }
                if !state.isDirty { state.original = value }
            }
        })
    }

    deinit {
        subscription.dispose()
    }

    /// The text shown.
    public var text: String { state.withLock { $0.editor.text } }

    /// The editing state (text and cursor).
    public var editor: TextEditor { state.withLock { $0.editor } }

    /// A text field takes the focus.
    public var isFocusable: Bool { true }

    /// Edits the text: characters, Backspace, Delete, Left/Right, Home/End (see `TextEditor`);
    /// Enter confirms; Esc reverts. Every change of the text is sent to the channel. Tab,
    /// Shift-Tab, Up and Down are ignored (a `Form` moves the focus with them).
    public func handle(_ key: Key) -> KeyResult {
        let (result, send): (KeyResult, String?) = state.withLock { state in
            switch key {
            case .enter:
                state.original = state.editor.text
                state.isDirty = false
                return (.handled, nil)
            case .escape:
                state.isDirty = false
                guard state.editor.text != state.original else { return (.handled, nil) }
                state.editor.setText(state.original)
                return (.handled, state.original)
            default:
                switch state.editor.apply(key) {
                case .edited:
                    state.isDirty = true
                    return (.handled, state.editor.text)
                case .moved: return (.handled, nil)
                case .ignored: return (.ignored, nil)
                }
            }
        }
        // Sent after the lock is released: the model's observers may read this field.
        if let send { channel.leading.sendNext(send) }
        return result
    }

    /// Starts a new edit when the field gets the focus: Esc returns to the text it has now.
    public func focusDidChange(_ isFocused: Bool) {
        guard isFocused else { return }
        state.withLock { state in
            state.original = state.editor.text
            state.isDirty = false
        }
    }

    /// Draws the label, then the box with the text; a focused field places the cursor.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        let editor = self.editor
        let x = _FieldLayout.drawLabel(label ?? "", into: &screen, in: rect, context: context)
        let box = _FieldLayout.boxRect(startingAt: x, width: width, in: rect)
        _FieldLayout.drawEditor(editor, in: box, invalid: false, into: &screen, context: context)
    }
}
