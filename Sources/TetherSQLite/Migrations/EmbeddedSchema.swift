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
            name: "002_invoice.sql",
            sql: #"""
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

"""#
        ),
    ]
}
