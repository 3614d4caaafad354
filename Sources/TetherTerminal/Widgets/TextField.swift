/// A one-line text field that edits a `String` through a two-way channel.
///
/// The field owns a `Channel<String>`: it shows the values arriving at `channel.leading` and
/// sends every edit (each keystroke that changes the text) to `channel.leading`. Bind it to a
/// model property and the field edits the model live:
///
/// ```swift
/// let customer = TextField("Customer")
/// customer.bind(to: channel(invoice, \.customer))
/// customer.handle(.character("A"))   // invoice.customer == "A"
/// ```
///
/// `field.bind(to:)` may be called again to show another record: it ends the previous binding
/// and starts on a fresh channel. (Binding `channel.following` yourself,
/// `bind(channel(invoice, \.customer), customer.channel.following)`, works for a field bound
/// once: a `Channel` replays the last edit to a new binding of `following`, which would write
/// one record's edit into the next record.)
///
/// Enter confirms the text; Esc reverts it to what it was when the field got the focus (or at
/// the last Enter, or when the model last changed from elsewhere) and sends that value, so the
/// model reverts too. A value that arrives from the channel replaces the text (the model is the
/// source of truth: another copy of the app, or another record bound to the field). Any UTF-8
/// text is accepted, Chinese included; the box scrolls to keep the cursor visible.
public final class TextField: Widget {
    /// The label shown before the box.
    public let label: String?
    /// The box's width in columns (nil: 20, clamped to the space available).
    public let width: Int?

    private struct State {
        var editor: TextEditor
        /// What Esc returns to.
        var original: String
        var channel: Channel<String>
        /// Whether the field has the focus.
        var isFocused = false
        /// Whether the user changed the text since the field got the focus or a value arrived.
        var edited = false
    }

    private let state: _Locked<State>
    private let replacedSubject = Subject<String, Never>()
    /// The subscription to the current channel's `leading` end.
    private let subscription = SerialDisposable()
    /// The binding made by `bind(to:)`.
    private let binding = SerialDisposable()

    /// Creates a text field showing `text` until a value arrives on its channel.
    ///
    /// ```swift
    /// let note = TextField("Note", width: 40)
    /// ```
    public init(_ label: String? = nil, text: String = "", width: Int? = nil) {
        self.label = label
        self.width = width
        let channel = Channel<String>()
        state = _Locked(State(editor: TextEditor(text: text), original: text, channel: channel))
        attach(channel)
    }

    deinit {
        binding.dispose()
        subscription.dispose()
    }

    /// The field's current channel: the field is at `leading`; `following` is for the model.
    public var channel: Channel<String> { state.withLock { $0.channel } }

    /// Binds the field to a model property (or any channel terminal), ending the binding a
    /// previous call made. The terminal's current value is shown at once; edits flow back.
    ///
    /// ```swift
    /// customer.bind(to: channel(invoice, \.customer))
    /// list.selection.subscribe(next: { customer.bind(to: channel(records[$0], \.customer)) })
    /// ```
    @discardableResult
    public func bind(to terminal: ChannelTerminal<String>) -> any Disposable {
        binding.inner = nil
        let channel = Channel<String>()
        state.withLock { $0.channel = channel }
        attach(channel)
        let newBinding = Tether.bind(terminal, channel.following)
        binding.inner = newBinding
        return newBinding
    }

    /// Shows the values arriving at `channel.leading` from now on.
    private func attach(_ channel: Channel<String>) {
        let state = self.state
        let replaced = replacedSubject
        subscription.inner = channel.leading.signal.subscribe(next: { value in
            let replacedEdit: String? = state.withLock { state in
                // Values of a channel that was replaced are not shown.
                guard state.channel === channel else { return nil }
                let wasEdit = state.isFocused && state.edited && value != state.editor.text
                if value != state.editor.text {
                    state.editor.setText(value)
                }
                state.original = value
                state.edited = false
                return wasEdit ? value : nil
            }
            // Told after the lock is released.
            if let replacedEdit { replaced.sendNext(replacedEdit) }
        })
    }

    /// Sends the new text each time a value arriving on the channel replaces text the user was
    /// editing in the focused field (another copy of the app changed the same property: the
    /// last writer wins, and what the user typed is gone). An app says so, where the user looks.
    ///
    /// ```swift
    /// note.replacedWhileEditing.subscribe(next: { _ in status.setMessage("Note was changed elsewhere") })
    /// ```
    public var replacedWhileEditing: Signal<String, Never> { replacedSubject.signal }

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
        switch key {
        case .escape:
            revert()
            return .handled
        case .enter:
            state.withLock { $0.original = $0.editor.text }
            return .handled
        default:
            let (result, send): (KeyResult, (text: String, channel: Channel<String>)?) = state.withLock { state in
                switch state.editor.apply(key) {
                case .edited:
                    state.edited = true
                    return (.handled, (state.editor.text, state.channel))
                case .moved: return (.handled, nil)
                case .ignored: return (.ignored, nil)
                }
            }
            // Sent after the lock is released: the model's observers may read this field.
            if let send { send.channel.leading.sendNext(send.text) }
            return result
        }
    }

    /// Abandons the edit (what Esc does): the text goes back to what it was when the field got
    /// the focus, at the last Enter, or when the model last changed, and that value is sent.
    ///
    /// ```swift
    /// customer.revert()
    /// ```
    public func revert() {
        let send: (text: String, channel: Channel<String>)? = state.withLock { state in
            guard state.editor.text != state.original else { return nil }
            state.editor.setText(state.original)
            return (state.original, state.channel)
        }
        if let send { send.channel.leading.sendNext(send.text) }
    }

    /// Starts a new edit when the field gets the focus: Esc returns to the text it has now.
    public func focusDidChange(_ isFocused: Bool) {
        state.withLock { state in
            state.isFocused = isFocused
            state.edited = false
            if isFocused { state.original = state.editor.text }
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
