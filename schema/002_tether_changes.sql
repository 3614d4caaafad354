-- Tether's change log: how a store learns about rows changed by other connections and other
-- processes (a second copy of the app, the sqlite3 shell).
--
-- For every table of a model, the store creates three triggers (the same for any table T):
--
--     CREATE TRIGGER "tether_T_insert" AFTER INSERT ON "T"
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', NEW.id, 1); END;
--     CREATE TRIGGER "tether_T_update" AFTER UPDATE ON "T" WHEN OLD.id = NEW.id
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', NEW.id, 2); END;
--     CREATE TRIGGER "tether_T_rekey" AFTER UPDATE ON "T" WHEN OLD.id <> NEW.id
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', OLD.id, 3), ('T', NEW.id, 1); END;
--     CREATE TRIGGER "tether_T_delete" AFTER DELETE ON "T"
--     BEGIN INSERT INTO tether_changes (tbl, row, kind) VALUES ('T', OLD.id, 3); END;
--
-- Triggers run inside the writer's transaction, whoever the writer is, so the log holds exactly
-- the committed changes, in commit order (seq), and nothing of a rolled-back transaction.
-- AUTOINCREMENT keeps seq increasing even after old entries are pruned: each store keeps the
-- newest 10,000 entries; a reader that fell further behind reloads everything it watches.
--
-- kind: 1 insert, 2 update, 3 delete.
CREATE TABLE tether_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl TEXT NOT NULL,
    row INTEGER NOT NULL,
    kind INTEGER NOT NULL CHECK (kind IN (1, 2, 3))
);
