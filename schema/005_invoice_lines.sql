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
