/// A text field for a number (or any value with a parse/format pair), bound through a
/// two-way channel of values.
///
/// The text is parsed on every edit. Valid text is sent through the channel as a value; invalid
/// text (letters in a quantity, 150 in a percentage) is kept as the user typed it, the field
/// shows an inline error, and the model **goes back to its value from before the edit** (when
/// the field got the focus, at the last Enter, or when the model last changed from elsewhere):
/// never to a prefix of the invalid text, which the user never meant ("15" of "150"). Fixing
/// the text sends the value and clears the error. Esc reverts the field to the model's value from before the
/// edit (when the field got the focus, at the last Enter, or when the model last changed from
/// elsewhere), clears the error, and sends that value if valid edits had changed the model.
///
/// A value arriving from the channel (another copy of the app, another record) replaces the
/// text, except invalid text that the user is typing in the focused field: that draft is kept,
/// so nothing the user typed is thrown away, and Esc then returns to the new value.
///
/// ```swift
/// let quantity = NumberField<Int>.integer("Quantity", range: 0...10_000)
/// quantity.bind(to: channel(invoice, \.quantity))
/// quantity.handle(.character("x"))   // quantity.error == "not a whole number"; the invoice keeps
///                                    // the quantity it had before the edit
/// ```
///
/// As with `TextField`, `bind(to:)` may be called again to show another record; binding
/// `channel.following` yourself suits a field bound once for its life.
///
/// Parsing is locale-independent (see `NumberText`): "12.5", never "12,5".
public final class NumberField<Value: Equatable & Sendable>: Widget {
    /// The label shown before the box.
    public let label: String?
    /// The box's width in columns (nil: 20, clamped to the space available).
    public let width: Int?

    private let parse: @Sendable (String) -> Result<Value, InvalidInput>
    private let format: @Sendable (Value) -> String

    private struct State {
        var editor: TextEditor
        /// The message for invalid text, or nil.
        var error: String?
        /// The model's value as far as the field knows: the last value that arrived or was sent.
        var value: Value?
        /// What Esc returns to.
        var original: Value?
        /// Whether the field has the focus.
        var isFocused = false
        /// Whether the user changed the text since the field got the focus or a value arrived.
        var edited = false
        var channel: Channel<Value>
    }

    private let state: _Locked<State>
    private let replacedSubject = Subject<String, Never>()
    /// The subscription to the current channel's `leading` end.
    private let subscription = SerialDisposable()
    /// The binding made by `bind(to:)`.
    private let binding = SerialDisposable()

    /// Creates a field for any value: `parse` turns text into a value or an `InvalidInput`
    /// (whose message the field shows), `format` turns a value into text. `format`'s output must
    /// parse back to the same value.
    ///
    /// ```swift
    /// let percent = NumberField<Double>("Discount %",
    ///     parse: { NumberText.parseDecimal($0) },
    ///     format: { NumberText.format($0) })
    /// ```
    public init(
        _ label: String? = nil,
        value: Value? = nil,
        width: Int? = nil,
        parse: @escaping @Sendable (String) -> Result<Value, InvalidInput>,
        format: @escaping @Sendable (Value) -> String
    ) {
        self.label = label
        self.width = width
        self.parse = parse
        self.format = format
        let channel = Channel<Value>()
        state = _Locked(State(editor: TextEditor(text: value.map(format) ?? ""), value: value, original: value, channel: channel))
        attach(channel)
    }

    deinit {
        binding.dispose()
        subscription.dispose()
    }

    /// The field's current channel of values: the field is at `leading`; `following` is for
    /// the model.
    public var channel: Channel<Value> { state.withLock { $0.channel } }

    /// Binds the field to a model property (or any channel terminal), ending the binding a
    /// previous call made and dropping any invalid draft. The terminal's current value is
    /// shown at once; valid edits flow back.
    ///
    /// ```swift
    /// quantity.bind(to: channel(invoice, \.quantity))
    /// ```
    @discardableResult
    public func bind(to terminal: ChannelTerminal<Value>) -> any Disposable {
        binding.inner = nil
        let channel = Channel<Value>()
        state.withLock { state in
            state.channel = channel
            state.error = nil
        }
        attach(channel)
        let newBinding = Tether.bind(terminal, channel.following)
        binding.inner = newBinding
        return newBinding
    }

    /// Shows the values arriving at `channel.leading` from now on.
    private func attach(_ channel: Channel<Value>) {
        let state = self.state
        let parse = self.parse
        let format = self.format
        let replaced = replacedSubject
        subscription.inner = channel.leading.signal.subscribe(next: { value in
            let replacedEdit: String? = state.withLock { state in
                // Values of a channel that was replaced are not shown.
                guard state.channel === channel else { return nil }
                state.value = value
                state.original = value
                // Invalid text the user is typing is a draft: keep it.
                if state.error != nil && state.isFocused { return nil }
                state.error = nil
                let wasEdit = state.isFocused && state.edited
                state.edited = false
                // Valid text that already means this value keeps the user's spelling ("12.50").
                if case .success(let shown) = parse(state.editor.text), shown == value { return nil }
                state.editor.setText(format(value))
                return wasEdit ? state.editor.text : nil
            }
            // Told after the lock is released.
            if let replacedEdit { replaced.sendNext(replacedEdit) }
        })
    }

    /// Sends the new text each time a value arriving on the channel replaces valid text the
    /// user was editing in the focused field (another copy of the app changed the same
    /// property: the last writer wins). Invalid text is never replaced: it stays as a draft.
    ///
    /// ```swift
    /// quantity.replacedWhileEditing.subscribe(next: { _ in status.setMessage("Quantity was changed elsewhere") })
    /// ```
    public var replacedWhileEditing: Signal<String, Never> { replacedSubject.signal }

    /// The text shown (valid or not).
    public var text: String { state.withLock { $0.editor.text } }

    /// The editing state (text and cursor).
    public var editor: TextEditor { state.withLock { $0.editor } }

    /// The error message for the current text, or nil if it is valid.
    public var error: String? { state.withLock { $0.error } }

    /// The last valid value: the last value that arrived from the channel or was sent to it.
    public var value: Value? { state.withLock { $0.value } }

    /// A number field takes the focus.
    public var isFocusable: Bool { true }

    /// Edits the text like a `TextField`; each edit is parsed and, if valid and different from
    /// the last value, sent. Enter confirms (when the text is valid); Esc reverts.
    public func handle(_ key: Key) -> KeyResult {
        switch key {
        case .escape:
            revert()
            return .handled
        case .enter:
            state.withLock { state in
                if state.error == nil { state.original = state.value }
            }
            return .handled
        default:
            let parse = self.parse
            let (result, send): (KeyResult, (value: Value, channel: Channel<Value>)?) = state.withLock { state in
                switch state.editor.apply(key) {
                case .ignored: return (.ignored, nil)
                case .moved: return (.handled, nil)
                case .edited:
                    state.edited = true
                    switch parse(state.editor.text) {
                    case .success(let value):
                        state.error = nil
                        guard value != state.value else { return (.handled, nil) }
                        state.value = value
                        return (.handled, (value, state.channel))
                    case .failure(let invalid):
                        state.error = invalid.message
                        // Invalid text leaves the model at its value from before the edit, not
                        // at the last valid prefix ("15" of "150" was never meant).
                        guard let original = state.original, original != state.value else { return (.handled, nil) }
                        state.value = original
                        return (.handled, (original, state.channel))
                    }
                }
            }
            // Sent after the lock is released: the model's observers may read this field.
            if let send { send.channel.leading.sendNext(send.value) }
            return result
        }
    }

    /// Abandons the edit (what Esc does): clears the error, shows the value from before the
    /// edit, and sends it if valid edits had changed the model.
    ///
    /// ```swift
    /// quantity.revert()
    /// ```
    public func revert() {
        let format = self.format
        let send: (value: Value, channel: Channel<Value>)? = state.withLock { state in
            state.error = nil
            guard let original = state.original else {
                state.editor.setText("")
                return nil
            }
            state.editor.setText(format(original))
            guard state.value != original else { return nil }
            state.value = original
            return (original, state.channel)
        }
        if let send { send.channel.leading.sendNext(send.value) }
    }

    /// Starts a new edit when the field gets the focus (unless it holds invalid text: then Esc
    /// still returns to the value from before that text).
    public func focusDidChange(_ isFocused: Bool) {
        state.withLock { state in
            state.isFocused = isFocused
            state.edited = false
            guard isFocused, state.error == nil else { return }
            state.original = state.value
        }
    }

    /// Draws the label, the box with the text, and the error message if the text is invalid.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        let (editor, error) = state.withLock { ($0.editor, $0.error) }
        let x = _FieldLayout.drawLabel(label ?? "", into: &screen, in: rect, context: context)
        let box = _FieldLayout.boxRect(startingAt: x, width: width, in: rect)
        _FieldLayout.drawEditor(editor, in: box, invalid: error != nil, into: &screen, context: context)
        if let error { _FieldLayout.drawError(error, after: box, in: rect, into: &screen, context: context) }
    }
}

extension NumberField where Value == Int {
    /// A field for a whole number, optionally limited to `range`.
    ///
    /// ```swift
    /// let quantity = NumberField<Int>.integer("Quantity", range: 0...10_000)
    /// ```
    public static func integer(_ label: String? = nil, value: Int? = nil, range: ClosedRange<Int>? = nil, width: Int? = nil) -> NumberField<Int> {
        NumberField(label, value: value, width: width, parse: { text in
            NumberText.parseInteger(text).flatMap { value in
                guard let range, !range.contains(value) else { return .success(value) }
                return .failure(InvalidInput("must be between \(range.lowerBound) and \(range.upperBound)"))
            }
        }, format: { String($0) })
    }
}

extension NumberField where Value == Double {
    /// A field for a decimal number ("12.5"), optionally limited to `range`.
    ///
    /// ```swift
    /// let discount = NumberField<Double>.decimal("Discount %", range: 0...100)
    /// ```
    public static func decimal(_ label: String? = nil, value: Double? = nil, range: ClosedRange<Double>? = nil, width: Int? = nil) -> NumberField<Double> {
        NumberField(label, value: value, width: width, parse: { text in
            NumberText.parseDecimal(text).flatMap { value in
                guard let range, !range.contains(value) else { return .success(value) }
                return .failure(InvalidInput("must be between \(NumberText.format(range.lowerBound)) and \(NumberText.format(range.upperBound))"))
            }
        }, format: { NumberText.format($0) })
    }
}
