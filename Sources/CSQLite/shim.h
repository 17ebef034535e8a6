#include <sqlite3.h>

/// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`); `sqlite3_config` is
/// variadic, which Swift cannot call. Effective only before SQLite initializes.
static inline int nimbus_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
