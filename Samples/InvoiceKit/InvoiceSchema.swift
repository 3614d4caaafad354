// GENERATED from the files in schema/ — do not edit.
//
// Change schema/ instead (add a new numbered file; never edit one that was applied), then run
//     TETHER_REGENERATE_SCHEMA=1 swift test --filter EmbeddedSchemaTests
// EmbeddedSchemaTests fails while this file and schema/ differ.

/// The invoice sample's files of schema/ (its tables, numbered between Tether's), sorted by
/// name: each name and its exact contents (see `invoiceMigrator()`).
let invoiceSchema: [(name: String, sql: String)] = [
    (
        name: "003_invoice.sql",
        sql: #"""
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

"""#
    ),
    (
        name: "005_invoice_lines.sql",
        sql: #"""
-- The sample's customers and invoice lines (Samples/InvoiceKit/Invoice.swift), and the
-- conversion of invoices that had a single line. As TableDefinition generates them for
--
--     @Model public final class Customer {
--         public var name = ""
--         @Relationship(inverse: \Invoice.customer, deleteRule: .deny, orderBy: \Invoice.number)
--         public var invoices: [Invoice] = []
--     }
--
--     @Model public final class InvoiceLine {
--         @Relationship public var invoice: Invoice?
--         public var position = 0
--         public var text = ""
--         public var quantity = 1
--         public var unitPrice: Money = 0       // REAL, read as an exact decimal
--     }
--
-- and for Invoice, whose `customer` is now a Customer (the column customer_id) and whose
-- lines replace its quantity and unit price. A test checks that these statements are the ones
-- the mapping generates.
CREATE TABLE Customer (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL DEFAULT ''
);
CREATE TABLE InvoiceLine (
    id INTEGER PRIMARY KEY,
    invoice_id INTEGER REFERENCES Invoice(id) ON DELETE CASCADE,
    position INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL DEFAULT '',
    quantity INTEGER NOT NULL DEFAULT 1,
    unitPrice REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS InvoiceLine_invoice_id ON InvoiceLine(invoice_id);
ALTER TABLE Invoice ADD COLUMN customer_id INTEGER REFERENCES Customer(id) ON DELETE RESTRICT;
CREATE INDEX IF NOT EXISTS Invoice_customer_id ON Invoice(customer_id);

-- The conversion. Each distinct customer text becomes a customer (in the order of its first
-- invoice); an empty one means no customer.
INSERT INTO Customer (name)
    SELECT customer FROM Invoice WHERE customer <> '' GROUP BY customer ORDER BY min(id);
UPDATE Invoice SET customer_id = (SELECT Customer.id FROM Customer WHERE Customer.name = Invoice.customer)
    WHERE customer <> '';
-- Each invoice gets one line with its quantity and unit price (a REAL, copied bit for bit),
-- described by the invoice's note (where the single-line form said what was sold; the note
-- stays too).
INSERT INTO InvoiceLine (invoice_id, position, text, quantity, unitPrice)
    SELECT id, 0, note, quantity, unitPrice FROM Invoice ORDER BY id;
-- The columns customer, quantity and unitPrice stay, with their values: the model no longer
-- reads them.

"""#
    ),
    (
        name: "006_invoice_number_index.sql",
        sql: #"""
-- The invoice app's list is ordered by number and shows a window of it: the rows on screen
-- are read through this index (`ORDER BY number, id LIMIT … OFFSET …`; an index holds the
-- row id after its columns, so it is in that order already), and where an invoice stands is
-- counted through it, so neither reads the whole table. Not unique: a file written by another
-- program may hold two invoices with one number (the app then orders them by id).
CREATE INDEX IF NOT EXISTS Invoice_number ON Invoice(number);

"""#
    ),
]
