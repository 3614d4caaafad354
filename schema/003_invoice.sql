-- The sample's model's table (Samples/InvoiceKit/Invoice.swift, the `invoices` form), as
-- TableDefinition generates it for
--
--     @Model public final class Invoice {
--         public var number = 0
--         public var customer = ""
--         public var note = ""
--         public var quantity = 1
--         public var unitPrice = 0.0
--         public var discount: Double? = nil    // percent; NULL: no discount
--         public var tax = 0.0                  // percent
--         // computed, not stored: subtotal, discountAmount, taxAmount, total
--     }
--
-- (defaults taken from a freshly initialised Invoice). A test checks that the generated
-- CREATE TABLE statement is this one.
CREATE TABLE Invoice (
    id INTEGER PRIMARY KEY,
    number INTEGER NOT NULL DEFAULT 0,
    customer TEXT NOT NULL DEFAULT '',
    note TEXT NOT NULL DEFAULT '',
    quantity INTEGER NOT NULL DEFAULT 1,
    unitPrice REAL NOT NULL DEFAULT 0,
    discount REAL,
    tax REAL NOT NULL DEFAULT 0
);
