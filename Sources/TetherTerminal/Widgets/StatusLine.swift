/// A one-row bar, usually at the bottom of the screen: a message on the left (or the help text
/// when there is no message) and the help text on the right when both fit.
///
/// ```swift
/// let status = StatusLine(help: "Tab/Shift-Tab move · Enter confirm · Esc revert · Ctrl-C quit")
/// status.setMessage("Saved")
/// ```
public final class StatusLine: Widget {
    /// The help text: which keys do what.
    public let help: String
    /// A shorter help text, shown when `help` does not fit (a narrow window); nil: `help`, cut.
    public let shortHelp: String?
    private let message: _Locked<String?>

    /// Creates a status line with its help text (and a shorter one for narrow windows) and an
    /// optional message.
    ///
    /// ```swift
    /// StatusLine(help: "Tab/Shift-Tab move · Enter confirm · Esc revert · Ctrl-C quit", shortHelp: "Tab move · ^C quit")
    /// ```
    public init(help: String, shortHelp: String? = nil, message: String? = nil) {
        self.help = help
        self.shortHelp = shortHelp
        self.message = _Locked(message)
    }

    /// The message shown, or nil.
    public var currentMessage: String? { message.withLock { $0 } }

    /// Shows `text` (or only the help again, for nil).
    public func setMessage(_ text: String?) {
        message.withLock { $0 = text }
    }

    /// Draws the bar on the first row of `rect`.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        let style = context.theme.status
        let row = Rect(x: rect.x, y: rect.y, width: rect.width, height: 1)
        screen.fill(row, style: style)
        let help = DisplayWidth.of(self.help) <= rect.width ? self.help : (shortHelp ?? self.help)
        guard let message = currentMessage, !message.isEmpty else {
            screen.put(DisplayWidth.truncated(help, to: rect.width), at: Position(x: rect.x, y: rect.y), style: style, limit: rect.maxX)
            return
        }
        // A message too long for the row is cut with "…", never without a sign.
        let end = screen.put(DisplayWidth.truncated(message, to: rect.width), at: Position(x: rect.x, y: rect.y), style: style, limit: rect.maxX)
        let helpWidth = DisplayWidth.of(help)
        if end + 2 + helpWidth <= rect.maxX {
            screen.put(help, at: Position(x: rect.maxX - helpWidth, y: rect.y), style: style, limit: rect.maxX)
        }
    }
}

/// Fixed text: a title or a note in a form.
///
/// ```swift
/// let title = Label("Invoice", style: .bold)
/// ```
public final class Label: Widget {
    /// The text.
    public let text: String
    /// The style (nil: the theme's title style).
    public let style: Style?

    /// Creates a label.
    public init(_ text: String, style: Style? = nil) {
        self.text = text
        self.style = style
    }

    /// Draws the text on the first row of `rect`, clipped.
    public func render(into screen: inout Screen, in rect: Rect, context: RenderContext) {
        guard !rect.isEmpty else { return }
        screen.put(text, at: Position(x: rect.x, y: rect.y), style: style ?? context.theme.title, limit: rect.maxX)
    }
}
