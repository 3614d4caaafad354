// GENERATED from the files in schema/ — do not edit.
//
// Change schema/ instead (add a new numbered file; never edit one that was applied), then run
//     TETHER_REGENERATE_SCHEMA=1 swift test --filter EmbeddedSchemaTests
// EmbeddedSchemaTests fails while this file and schema/ differ.

extension Migrator {
    /// Tether's own files of schema/ (`*_tether_*`), sorted by name: each name and its
    /// exact contents.
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
    ]
}
