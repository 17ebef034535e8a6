//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#ifndef C_NIMBUS_SQLITE_H
#define C_NIMBUS_SQLITE_H

#include <sqlite3.h>
#include <stdint.h>

/// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`); `sqlite3_config` is
/// variadic, which Swift cannot call. Effective only before SQLite initializes.
int nimbus_sqlite3_disable_memory_statistics(void);

/// The name of the VFS that ``nimbus_sqlite3_register_wal_write_buffer`` registers.
#define NIMBUS_SQLITE_VFS_NAME "nimbus"

/// Registers the "nimbus" VFS: the default VFS, except that a connection's writes to its WAL
/// file are gathered in memory and written with one call when a transaction's commit frame is
/// complete (see WALWriteBuffer.c). Returns an SQLite result code; registering twice is a no-op.
/// Initializes SQLite: library configuration must come first.
int nimbus_sqlite3_register_wal_write_buffer(void);

/// How many writes SQLite made to `connection`'s open WAL file, and how many writes reached
/// the file system. `SQLITE_NOTFOUND` when the connection has no WAL open through the "nimbus" VFS.
int nimbus_sqlite3_wal_write_counts(sqlite3 *connection, uint64_t *sqliteWrites, uint64_t *fileWrites);

#endif
