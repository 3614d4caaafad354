import Synchronization
import TetherTerminal

/// An invoice model like the sample's: text and number fields, computed totals.
@Model
final class TestInvoice {
    var customer = ""
    var note = ""
    var quantity = 1
    var unitPrice = 0.0
    var discountPercent = 0.0
    var subtotal: Double { Double(quantity) * unitPrice }
    var total: Double { subtotal * (1 - discountPercent / 100) }
}

extension Widget {
    /// Renders the widget alone on a screen of `width` x `height` and returns the screen.
    func rendered(width: Int, height: Int = 1, focused: Bool = false, labelWidth: Int? = nil) -> Screen {
        var screen = Screen(size: Size(width: width, height: height))
        render(into: &screen, in: screen.bounds, context: RenderContext(isFocused: focused, labelWidth: labelWidth))
        return screen
    }
}

/// Sends each character of `text` as a key.
func type(_ text: String, into widget: any Widget) {
    for character in text { _ = widget.handle(.character(character)) }
}
