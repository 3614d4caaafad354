/// How a labelled field is laid out in its row: the label (padded to the form's label width),
/// a space, the box, and an inline error after the box (or on the next row when the rectangle
/// has one and the error does not fit beside the box).
///
/// ```
/// Quantity   12a                  ! not a whole number
/// ```
enum _FieldLayout {
    /// Box columns when a field does not say.
    static let defaultBoxWidth = 20

    /// Draws the label and returns the column where the field's content starts.
    static func drawLabel(_ label: String, into screen: inout Screen, in rect: Rect, context: RenderContext) -> Int {
        guard !label.isEmpty else { return rect.x }
        let width = context.labelWidth ?? DisplayWidth.of(label)
        let style = context.isFocused ? context.theme.focusedLabel : context.theme.label
        screen.put(label, at: Position(x: rect.x, y: rect.y), style: style, limit: min(rect.maxX, rect.x + width))
        return min(rect.maxX, rect.x + width + 1)
    }

    /// The box: `boxWidth` columns (the default if nil), clamped to the rectangle.
    static func boxRect(startingAt x: Int, width boxWidth: Int?, in rect: Rect) -> Rect {
        Rect(x: x, y: rect.y, width: min(boxWidth ?? defaultBoxWidth, rect.maxX - x), height: 1)
    }

    /// Draws an editable box: focused, `editor`'s text scrolled so the cursor is visible (with
    /// the screen's cursor there), "…" at an end where text is hidden; otherwise the start of the text, cut with "…" where it does
    /// not fit, so a long name reads from its beginning and a cut never passes unseen.
    static func drawEditor(
        _ editor: TextEditor, in box: Rect, invalid: Bool, into screen: inout Screen, context: RenderContext
    ) {
        let theme = context.theme
        let style = context.isFocused ? theme.focusedField : (invalid ? theme.invalidField : theme.field)
        screen.fill(box, style: style)
        guard context.isFocused else {
            screen.put(DisplayWidth.truncated(editor.text, to: box.width), at: Position(x: box.x, y: box.y), style: style, limit: box.maxX)
            return
        }
        let (shown, column) = editor.display(width: box.width)
        screen.put(shown, at: Position(x: box.x, y: box.y), style: style, limit: box.maxX)
        if !box.isEmpty {
            screen.cursor = Position(x: box.x + min(column, box.width - 1), y: box.y)
        }
    }

    /// Draws an error message after the box, or under it.
    static func drawError(_ message: String, after box: Rect, in rect: Rect, into screen: inout Screen, context: RenderContext) {
        let text = context.theme.errorPrefix + message
        let besideX = box.maxX + 1
        if besideX + DisplayWidth.of(text) > rect.maxX, rect.height >= 2 {
            screen.put(text, at: Position(x: box.x, y: rect.y + 1), style: context.theme.error, limit: rect.maxX)
        } else {
            screen.put(text, at: Position(x: besideX, y: rect.y), style: context.theme.error, limit: rect.maxX)
        }
    }
}
