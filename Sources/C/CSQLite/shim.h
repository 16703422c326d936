// SQLite (Debian libsqlite3-dev).
#ifndef BANDKIT_CSQLITE_SHIM_H
#define BANDKIT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer; Swift cannot import it.
static inline sqlite3_destructor_type bandkit_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type bandkit_sqlite_static(void) { return SQLITE_STATIC; }
// sqlite3_config is variadic.
static inline int bandkit_sqlite_config_single_thread_off(void) { return SQLITE_OK; }
#endif
