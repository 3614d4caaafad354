-- The sample model's table, as TableDefinition generates it for
--
--     @Model final class Invoice {
--         var customer = ""
--         var quantity = 1
--         var unitPrice = 0.0
--         var discount: Double? = nil
--         @Transient var draftNote = ""      // transient: no column
--     }
--
-- (defaults taken from a freshly initialised Invoice). A test checks that the generated
-- CREATE TABLE statement is this one.
CREATE TABLE Invoice (
    id INTEGER PRIMARY KEY,
    customer TEXT NOT NULL DEFAULT '',
    quantity INTEGER NOT NULL DEFAULT 1,
    unitPrice REAL NOT NULL DEFAULT 0,
    discount REAL
);
