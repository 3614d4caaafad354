import Testing
import TetherTerminal

/// A row of the 44-column test screen: `text` padded with spaces to the full width.
private func pad(_ text: String) -> String {
    text + String(repeating: " ", count: 44 - DisplayWidth.of(text))
}

/// The form of the docs' sketch, driven by keys: state -> screen through real bindings.
@Suite struct InvoiceFormTests {
    final class InvoiceForm {
        let invoice = TestInvoice()
        let customer = TextField("Customer", width: 12)
        let quantity = NumberField<Int>.integer("Quantity", range: 0...1_000_000, width: 8)
        let price = NumberField<Double>.decimal("Unit price", range: 0...1e9, width: 8)
        let discount = NumberField<Double>.decimal("Discount %", range: 0...100, width: 8)
        let total: ComputedField<Double>
        let records = ListView<String>(title: "Records", height: 4) { $0 }
        let form: Form

        init() {
            customer.bind(to: channel(invoice, \.customer))
            quantity.bind(to: channel(invoice, \.quantity))
            price.bind(to: channel(invoice, \.unitPrice))
            discount.bind(to: channel(invoice, \.discountPercent))
            total = ComputedField("Total", observe(invoice, \.total), width: 8, alignment: .trailing) {
                NumberText.fixed($0, places: 2)
            }
            records.setItems(["#1 张三", "#2 Ada"])
            form = Form([records, customer, quantity, price, discount, total])
        }

        func screen() -> Screen {
            var screen = Screen(size: Size(width: 44, height: 6))
            let (body, _) = screen.bounds.dividedRows(at: 5)
            let (left, right) = body.dividedColumns(at: 10)
            form.render([records], into: &screen, in: left)
            form.render(Array(form.widgets.dropFirst()), into: &screen, in: right)
            return screen
        }

        func press(_ keys: Key...) {
            for key in keys { _ = form.handle(key) }
        }

        func type(_ text: String) {
            for character in text { _ = form.handle(.character(character)) }
        }
    }

    @Test func typingUpdatesTheComputedTotalOnScreen() {
        let app = InvoiceForm()
        #expect(app.screen().lines == [
            pad("Records   Customer"),
            pad("#1 张三   Quantity   1"),
            pad("#2 Ada    Unit price 0"),
            pad("          Discount % 0"),
            pad("          Total          0.00"),
            pad(""),
        ])
        app.press(.tab)                                   // customer
        app.type("李")
        app.press(.tab, .backspace)                        // quantity: "1" -> ""
        app.type("3")
        app.press(.tab, .backspace)                        // unit price
        app.type("2.5")
        #expect(app.invoice.customer == "李")
        #expect(app.invoice.quantity == 3)
        #expect(app.invoice.total == 7.5)
        let screen = app.screen()
        #expect(screen.lines[0] == pad("Records   Customer   李"))
        #expect(screen.lines[4] == pad("          Total          7.50"))
        // The cursor is where the user types: after "2.5" in the unit price box.
        #expect(screen.cursor == Position(x: 24, y: 2))
    }

    @Test func lettersInANumberFieldShowTheErrorAndDoNotReachTheModel() {
        let app = InvoiceForm()
        app.press(.tab, .tab)                             // quantity
        app.type("2")
        #expect(app.invoice.quantity == 12)
        app.type("x")
        #expect(app.invoice.quantity == 1, "the quantity from before the edit, not the prefix 12")
        let screen = app.screen()
        #expect(screen.lines[1] == "#1 张三   Quantity   12x      ! not a whole ")
        // Fixing the text: the value reaches the model and the error goes away.
        app.press(.backspace)
        app.type("0")
        #expect(app.invoice.quantity == 120)
        #expect(app.screen().lines[1] == pad("#1 张三   Quantity   120"))
    }

    @Test func qQuitsOnlyOutsideTextAndCtrlCIsAlwaysTheApps() {
        let app = InvoiceForm()
        #expect(app.form.handle(.character("q")) == .ignored)   // the list has the focus
        app.press(.tab)
        #expect(app.form.handle(.character("q")) == .handled)   // typed into the customer
        #expect(app.invoice.customer == "q")
        #expect(app.form.handle(.control("c")) == .ignored)
    }
}
