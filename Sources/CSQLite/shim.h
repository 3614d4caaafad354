#ifndef TETHER_CSQLITE_SHIM_H
#define TETHER_CSQLITE_SHIM_H

#include <sqlite3.h>

// Calls Swift cannot make directly: sqlite3_db_config is variadic, and SQLITE_TRANSIENT is a
// cast of -1 to a function pointer.

static inline int tether_sqlite3_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

static inline sqlite3_destructor_type tether_sqlite3_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
