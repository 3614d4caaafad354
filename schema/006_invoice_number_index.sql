-- The invoice app's list is ordered by number and shows a window of it: the rows on screen
-- are read through this index (`ORDER BY number, id LIMIT … OFFSET …`; an index holds the
-- row id after its columns, so it is in that order already), and where an invoice stands is
-- counted through it, so neither reads the whole table. Not unique: a file written by another
-- program may hold two invoices with one number (the app then orders them by id).
CREATE INDEX IF NOT EXISTS Invoice_number ON Invoice(number);
