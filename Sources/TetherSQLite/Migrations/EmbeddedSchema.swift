// GENERATED from the files in schema/ — do not edit.
//
// Change schema/ instead (add a new numbered file; never edit one that was applied), then run
//     TETHER_REGENERATE_SCHEMA=1 swift test --filter EmbeddedSchemaTests
// EmbeddedSchemaTests fails while this file and schema/ differ.

extension Migrator {
    /// The files of schema/, sorted by name: each name and its exact contents.
    static let embeddedSchema: [(name: String, sql: String)] = [
        (
            name: "001_tether_metadata.sql",
            sql: #"""
-- Tether's own bookkeeping.
--
-- The migrator records each applied file of schema/ here: its name, the SHA-256 of its bytes
-- (as `sha256sum schema/<name>` prints it) and when it was applied (seconds since 1970, UTC).
-- An applied file must never change: the migrator refuses one whose checksum differs from the
-- one recorded here. To change the schema, add a new numbered file.
CREATE TABLE tether_migrations (
    name TEXT PRIMARY KEY NOT NULL,
    checksum TEXT NOT NULL,
    applied_at REAL NOT NULL
);

"""#
        ),
        (
            name: "002_tether_changes.sql",
            sql: #"""
-- Tether's change log: how a store learns about rows changed by other connections and other
-- processes (a second copy of the app, the sqlite3 shell).
--
-- For every table of a model, the store creates three triggers (the same for any table T):
--
--     CREATE TRIGGER "tether_T_insert" AFTER INSERT ON "T"
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', NEW.id, 1); END;
--     CREATE TRIGGER "tether_T_update" AFTER UPDATE ON "T"
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', NEW.id, 2); END;
--     CREATE TRIGGER "tether_T_rekey" AFTER UPDATE OF id ON "T" WHEN OLD.id <> NEW.id
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', OLD.id, 3), ('T', NEW.id, 1); END;
--
-- (The rekey trigger is only considered by statements that set `id`, so an ordinary UPDATE
-- pays for one trigger.)
--     CREATE TRIGGER "tether_T_delete" AFTER DELETE ON "T"
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', OLD.id, 3); END;
--
-- Triggers run inside the writer's transaction, whoever the writer is, so the log holds exactly
-- the committed changes, in commit order (seq), and nothing of a rolled-back transaction.
--
-- seq is the rowid: each new entry gets the largest seq so far plus one. Stores prune old
-- entries (keeping the newest 10,000) but never the newest, so seq only grows; a reader that
-- fell behind the pruning, or finds the log emptied by hand (seq starting again), reloads
-- everything it watches. (No AUTOINCREMENT, no CHECK: each would cost every logged change.)
--
-- kind: 1 insert, 2 update, 3 delete.
CREATE TABLE tether_changes (
    seq INTEGER PRIMARY KEY,
    tbl TEXT NOT NULL,
    row INTEGER NOT NULL,
    kind INTEGER NOT NULL
);

"""#
        ),
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
            name: "004_tether_change_ranges.sql",
            sql: #"""
-- Range entries in Tether's change log (the table of schema/002_tether_changes.sql).
--
-- last: NULL for an entry about one row, `row` (what the triggers write). Otherwise the entry
-- is about every row whose id is in row...last (both included), all with the same kind. A store
-- that inserts many rows in one transaction into a table without triggers of the app's own
-- switches the triggers off for its INSERT statements and writes the log itself: one entry
-- (kind 1, insert) per run of consecutive ids instead of one entry per row
-- (docs/PERSISTENCE.md, "Changes made elsewhere").
--
-- Readers expand an entry into one change per row, in id order, all under the entry's seq.
-- Pruning counts entries, not rows: a range entry is one of the 10,000 kept.
--
-- A program whose Tether predates this file refuses a database it was applied to (the migrator
-- does not know it), so no reader takes a range entry for one row.
ALTER TABLE tether_changes ADD COLUMN last INTEGER;

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
}
