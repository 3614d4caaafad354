import Tether

/// A one-row bar of keys bound to commands, such as `^S Save  ^N New`: pressing a key applies
/// its command; a disabled command's key and title are drawn dimmed, and pressing it does
/// nothing. Give it the keys the focused widget ignores (`handle(_:)`), and redraw when
/// `changes` sends.
///
/// ```swift
/// let bar = CommandBar([
///     .init(.control("s"), "Save", save),
///     .init(.control("n"), "New", newInvoice),
/// ])
/// bar.changes.sink { app.setNeedsDisplay() }
/// if form.handle(key) == .ignored { _ = bar.handle(key) }
/// ```
public final class CommandBar: Widget {
    /// One key bound to a command, with the title the bar shows.
    public struct Binding: Sendable {
        /// The key.
        public let key: Key
        /// What the bar shows beside the key.
        public let title: String
        let isEnabledNow: @Sendable () -> Bool
        let apply: @Sendable () -> Void
        let isEnabled: Signal<Bool, Never>

        /// Binds `key` to `command`, shown as `title`. Each press applies it with no input;
        /// `onError` gets the failure of an execution that fails (nil: `command.errors` has it).
        public init<Output, Failure: Error>(
            _ key: Key,
            _ title: String,
            _ command: Command<Void, Output, Failure>,
            onError: (@Sendable (Failure) -> Void)? = nil
        ) {
            self.key = key
            self.title = title
            self.isEnabledNow = { command.isEnabledNow }
            self.apply = {
                command.apply(()).subscribe(error: { error in
                    if case .failed(let failure) = error { onError?(failure) }
                })
            }
            self.isEnabled = command.isEnabled
        }
    }

    /// The bindings, in the order the bar shows them.
    public let bindings: [Binding]

    /// Creates a bar of `bindings`.
    public init(_ bindings: [Binding]) {
        self.bindings = bindings
    }

    /// Sends when a command becomes enabled or disabled: redraw then.
    public var changes: Signal<Void, Never> {
        Signal.merge(bindings.map { $0.isEnabled.skip(1) }).map { _ in () }
    }

    /// Applies the command bound to `key`, if it is enabled. A key bound to a disabled command
    /// is still `.handled`: it is the bar's, and does nothing now.
    public func handle(_ key: Key) -> KeyResult {
        guard let binding = bindings.first(where: { $0.key == key }) else { return .ignored }
        if binding.isEnabledNow() { binding.apply() }
        return .handled
    }

    /// Draws `KEY Title` pairs, two spaces apart, dimmed for disabled commands, as many as fit.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        var x = rect.x
        for binding in bindings {
            let enabled = binding.isEnabledNow()
            let keyStyle = enabled ? context.theme.commandKey : context.theme.disabledCommand
            let titleStyle = enabled ? Style.plain : context.theme.disabledCommand
            let keyText = Self.name(of: binding.key)
            let width = DisplayWidth.of(keyText) + 1 + DisplayWidth.of(binding.title)
            guard x + width <= rect.maxX else { return }
            x = screen.put(keyText, at: Position(x: x, y: rect.y), style: keyStyle, limit: rect.maxX)
            x = screen.put(" " + binding.title, at: Position(x: x, y: rect.y), style: titleStyle, limit: rect.maxX)
            x += 2
        }
    }

    /// How the bar names a key: `^S` for Ctrl-S, `F2`, `Enter`, ...
    static func name(of key: Key) -> String {
        if case .control(let character) = key { return "^" + String(character).uppercased() }
        return key.description
    }
}
