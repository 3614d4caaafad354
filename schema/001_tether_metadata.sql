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
