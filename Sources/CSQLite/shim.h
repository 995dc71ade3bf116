#ifndef FIXTUREKIT_CSQLITE_SHIM_H
#define FIXTUREKIT_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast of -1 to a function pointer, a macro Swift cannot
// import. Binding with it makes SQLite copy the bytes before the call returns.
static inline sqlite3_destructor_type fixturekit_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

// sqlite3_db_config is variadic, which Swift cannot call. These wrappers fix the
// argument list of the two integer options fixturekit uses.
static inline int fixturekit_sqlite_db_config_int(sqlite3 *db, int op, int value, int *result) {
    return sqlite3_db_config(db, op, value, result);
}

// sqlite3_config is variadic too: this one sets whether SQLite keeps memory
// statistics (SQLITE_CONFIG_MEMSTATUS), before the library is initialized.
static inline int fixturekit_sqlite_config_memory_statistics(int on) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, on);
}

#endif
