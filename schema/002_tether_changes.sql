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
