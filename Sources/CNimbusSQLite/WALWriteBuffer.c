//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

// A VFS that is the default one, except for how a connection writes its WAL file.
//
// SQLite writes each WAL frame with two system calls, its 24-byte header and then its page:
// a group commit of single-record saves made about 150 `pwrite`s, each paying the system
// call and the file system's per-call work, inside the writer every other save waits for.
// Here a WAL file's writes are gathered in memory while they are contiguous and reach the
// file when the frame that commits a transaction is complete: a few calls per commit.
//
// Why this is safe. SQLite makes a commit visible (in the WAL index, to every connection and
// process) only after `sqlite3WalFrames` has written all of the transaction's frames, the
// commit frame last. The buffer is written out inside the write of that commit frame's page,
// before SQLite returns to update the index, so no reader can find a frame whose bytes are not
// in the file. Whatever else is buffered (frames of a page cache spill, or the frame headers a
// commit rewrites afterwards when it changed spilled pages again) is written out before the
// same file is read, synced, sized, truncated or closed, and before the transaction releases
// the WAL write lock (`xShmLock` on the database file, which is why each WAL is linked to its
// database file): no other writer, in this process or another, appends to the WAL before our
// bytes are in it. Other connections never read frames no committed index header names. So a
// crash loses only what a crash loses without this VFS.
//
// The commit frame is recognised by the WAL format (https://sqlite.org/fileformat2.html#walformat):
// a frame header is 24 bytes, and its bytes 4 to 7 hold the database size in pages after a
// commit, zero in every other frame.

#include "CNimbusSQLite.h"

#include <sqlite3.h>
#include <string.h>

/// The most bytes gathered before they are written anyway.
#define BUFFER_CAPACITY (1 << 20)
/// The unix VFS writes less than 128 KiB per call (it masks the length): write in pieces.
#define MAXIMUM_WRITE (64 * 1024)
#define FRAME_HEADER_BYTES 24

typedef struct BufferedFile {
    sqlite3_file base;
    /// The default VFS's file, allocated right after this struct.
    sqlite3_file *real;
    /// Whether this is a WAL file: only those are buffered.
    int isWAL;
    unsigned char *buffer;
    int used;
    /// The file offset of `buffer[0]`.
    sqlite3_int64 start;
    /// The last write was the header of a commit frame: its page completes the transaction.
    int commitHeaderWritten;
    /// For a database file: its connection's WAL file, while open. For a WAL file: its database file.
    struct BufferedFile *linked;
    /// Writes SQLite made to this WAL file, and writes that reached the file system.
    uint64_t sqliteWrites;
    uint64_t fileWrites;
} BufferedFile;

static sqlite3_vfs *defaultVFS;
static sqlite3_vfs bufferedVFS;
static sqlite3_io_methods bufferedMethods;

/// Writes the buffer out. On failure the bytes not written stay buffered, so every later call
/// that must write them first fails too, until a write succeeds.
static int writeOut(BufferedFile *file) {
    int written = 0;
    while (written < file->used) {
        int length = file->used - written;
        if (length > MAXIMUM_WRITE) length = MAXIMUM_WRITE;
        int result = file->real->pMethods->xWrite(file->real, file->buffer + written, length, file->start + written);
        file->fileWrites += 1;
        if (result != SQLITE_OK) {
            memmove(file->buffer, file->buffer + written, (size_t)(file->used - written));
            file->used -= written;
            file->start += written;
            file->commitHeaderWritten = 0;
            return result;
        }
        written += length;
    }
    file->used = 0;
    file->commitHeaderWritten = 0;
    return SQLITE_OK;
}

static int bufferedClose(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (file->linked && file->linked->linked == file) file->linked->linked = 0;
    file->linked = 0;
    int closed = file->real->pMethods->xClose(file->real);
    sqlite3_free(file->buffer);
    file->buffer = 0;
    return result != SQLITE_OK ? result : closed;
}

static int bufferedRead(sqlite3_file *handle, void *destination, int amount, sqlite3_int64 offset) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xRead(file->real, destination, amount, offset);
}

static int bufferedWrite(sqlite3_file *handle, const void *source, int amount, sqlite3_int64 offset) {
    BufferedFile *file = (BufferedFile *)handle;
    if (!file->isWAL) return file->real->pMethods->xWrite(file->real, source, amount, offset);
    file->sqliteWrites += 1;
    int result;
    if (file->used > 0 && offset != file->start + file->used) {
        result = writeOut(file);
        if (result != SQLITE_OK) return result;
    }
    if (!file->buffer) {
        file->buffer = sqlite3_malloc(BUFFER_CAPACITY);
        if (!file->buffer) return SQLITE_IOERR_NOMEM;
    }
    if (amount > BUFFER_CAPACITY - file->used) {
        result = writeOut(file);
        if (result != SQLITE_OK) return result;
        if (amount > BUFFER_CAPACITY) {
            file->fileWrites += 1;
            return file->real->pMethods->xWrite(file->real, source, amount, offset);
        }
    }
    if (file->used == 0) file->start = offset;
    memcpy(file->buffer + file->used, source, (size_t)amount);
    file->used += amount;
    if (amount == FRAME_HEADER_BYTES) {
        const unsigned char *header = source;
        file->commitHeaderWritten = (header[4] | header[5] | header[6] | header[7]) != 0;
        return SQLITE_OK;
    }
    if (file->commitHeaderWritten) return writeOut(file);
    return SQLITE_OK;
}

static int bufferedTruncate(sqlite3_file *handle, sqlite3_int64 size) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xTruncate(file->real, size);
}

static int bufferedSync(sqlite3_file *handle, int flags) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xSync(file->real, flags);
}

static int bufferedFileSize(sqlite3_file *handle, sqlite3_int64 *size) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xFileSize(file->real, size);
}

static int bufferedLock(sqlite3_file *handle, int level) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xLock(file->real, level);
}

static int bufferedUnlock(sqlite3_file *handle, int level) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xUnlock(file->real, level);
}

static int bufferedCheckReservedLock(sqlite3_file *handle, int *isReserved) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xCheckReservedLock(file->real, isReserved);
}

static int bufferedFileControl(sqlite3_file *handle, int operation, void *argument) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xFileControl(file->real, operation, argument);
}

static int bufferedSectorSize(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xSectorSize(file->real);
}

static int bufferedDeviceCharacteristics(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    return file->real->pMethods->xDeviceCharacteristics(file->real);
}

static int bufferedShmMap(sqlite3_file *handle, int region, int size, int extend, void volatile **memory) {
    BufferedFile *file = (BufferedFile *)handle;
    if (file->real->pMethods->iVersion < 2) return SQLITE_IOERR_SHMMAP;
    return file->real->pMethods->xShmMap(file->real, region, size, extend, memory);
}

/// The WAL write lock's slot in the shared-memory lock range (`WAL_WRITE_LOCK` in SQLite's wal.c).
#define WAL_WRITE_LOCK_SLOT 0

static int bufferedShmLock(sqlite3_file *handle, int offset, int count, int flags) {
    BufferedFile *file = (BufferedFile *)handle;
    if (file->real->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
    // A write transaction ends: what its WAL still holds goes out before another writer may
    // append. SQLite ignores this call's result; a failure stays buffered and fails the
    // connection's next use of the WAL (see writeOut).
    if ((flags & SQLITE_SHM_UNLOCK) && offset == WAL_WRITE_LOCK_SLOT && file->linked) {
        (void)writeOut(file->linked);
    }
    return file->real->pMethods->xShmLock(file->real, offset, count, flags);
}

static void bufferedShmBarrier(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    if (file->real->pMethods->iVersion >= 2) file->real->pMethods->xShmBarrier(file->real);
}

static int bufferedShmUnmap(sqlite3_file *handle, int deleteFlag) {
    BufferedFile *file = (BufferedFile *)handle;
    if (file->real->pMethods->iVersion < 2) return SQLITE_OK;
    return file->real->pMethods->xShmUnmap(file->real, deleteFlag);
}

static int bufferedFetch(sqlite3_file *handle, sqlite3_int64 offset, int amount, void **page) {
    BufferedFile *file = (BufferedFile *)handle;
    *page = 0;
    if (file->real->pMethods->iVersion < 3) return SQLITE_OK;
    int result = writeOut(file);
    if (result != SQLITE_OK) return result;
    return file->real->pMethods->xFetch(file->real, offset, amount, page);
}

static int bufferedUnfetch(sqlite3_file *handle, sqlite3_int64 offset, void *page) {
    BufferedFile *file = (BufferedFile *)handle;
    if (file->real->pMethods->iVersion < 3) return SQLITE_OK;
    return file->real->pMethods->xUnfetch(file->real, offset, page);
}

static int bufferedOpen(sqlite3_vfs *vfs, const char *name, sqlite3_file *handle, int flags, int *outFlags) {
    (void)vfs;
    BufferedFile *file = (BufferedFile *)handle;
    memset(file, 0, sizeof(*file));
    sqlite3_file *real = (sqlite3_file *)&file[1];
    int result = defaultVFS->xOpen(defaultVFS, name, real, flags, outFlags);
    if (result != SQLITE_OK || !real->pMethods) {
        handle->pMethods = 0;
        return result;
    }
    file->real = real;
    file->isWAL = (flags & SQLITE_OPEN_WAL) != 0;
    handle->pMethods = &bufferedMethods;
    if (file->isWAL) {
        // The database file of this WAL, opened through this VFS too (SQLite opens it first).
        sqlite3_file *database = sqlite3_database_file_object(name);
        if (database && database->pMethods == &bufferedMethods) {
            file->linked = (BufferedFile *)database;
            file->linked->linked = file;
        }
    }
    return SQLITE_OK;
}

// Everything else is the default VFS's, called with the default VFS.
static int bufferedDelete(sqlite3_vfs *vfs, const char *name, int syncDirectory) {
    (void)vfs;
    return defaultVFS->xDelete(defaultVFS, name, syncDirectory);
}
static int bufferedAccess(sqlite3_vfs *vfs, const char *name, int flags, int *result) {
    (void)vfs;
    return defaultVFS->xAccess(defaultVFS, name, flags, result);
}
static int bufferedFullPathname(sqlite3_vfs *vfs, const char *name, int size, char *output) {
    (void)vfs;
    return defaultVFS->xFullPathname(defaultVFS, name, size, output);
}
static void *bufferedDlOpen(sqlite3_vfs *vfs, const char *name) {
    (void)vfs;
    return defaultVFS->xDlOpen(defaultVFS, name);
}
static void bufferedDlError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    defaultVFS->xDlError(defaultVFS, size, message);
}
static void (*bufferedDlSym(sqlite3_vfs *vfs, void *library, const char *symbol))(void) {
    (void)vfs;
    return defaultVFS->xDlSym(defaultVFS, library, symbol);
}
static void bufferedDlClose(sqlite3_vfs *vfs, void *library) {
    (void)vfs;
    defaultVFS->xDlClose(defaultVFS, library);
}
static int bufferedRandomness(sqlite3_vfs *vfs, int size, char *output) {
    (void)vfs;
    return defaultVFS->xRandomness(defaultVFS, size, output);
}
static int bufferedSleep(sqlite3_vfs *vfs, int microseconds) {
    (void)vfs;
    return defaultVFS->xSleep(defaultVFS, microseconds);
}
static int bufferedCurrentTime(sqlite3_vfs *vfs, double *time) {
    (void)vfs;
    return defaultVFS->xCurrentTime(defaultVFS, time);
}
static int bufferedGetLastError(sqlite3_vfs *vfs, int size, char *message) {
    (void)vfs;
    return defaultVFS->xGetLastError(defaultVFS, size, message);
}
static int bufferedCurrentTimeInt64(sqlite3_vfs *vfs, sqlite3_int64 *time) {
    (void)vfs;
    return defaultVFS->xCurrentTimeInt64(defaultVFS, time);
}

int nimbus_sqlite3_register_wal_write_buffer(void) {
    if (sqlite3_vfs_find(NIMBUS_SQLITE_VFS_NAME)) return SQLITE_OK;
    defaultVFS = sqlite3_vfs_find(0);
    if (!defaultVFS || defaultVFS->iVersion < 2) return SQLITE_ERROR;
    static const sqlite3_io_methods methods = {
        3,
        bufferedClose,
        bufferedRead,
        bufferedWrite,
        bufferedTruncate,
        bufferedSync,
        bufferedFileSize,
        bufferedLock,
        bufferedUnlock,
        bufferedCheckReservedLock,
        bufferedFileControl,
        bufferedSectorSize,
        bufferedDeviceCharacteristics,
        bufferedShmMap,
        bufferedShmLock,
        bufferedShmBarrier,
        bufferedShmUnmap,
        bufferedFetch,
        bufferedUnfetch,
    };
    bufferedMethods = methods;
    memset(&bufferedVFS, 0, sizeof(bufferedVFS));
    bufferedVFS.iVersion = 2;
    bufferedVFS.szOsFile = (int)sizeof(BufferedFile) + defaultVFS->szOsFile;
    bufferedVFS.mxPathname = defaultVFS->mxPathname;
    bufferedVFS.zName = NIMBUS_SQLITE_VFS_NAME;
    bufferedVFS.xOpen = bufferedOpen;
    bufferedVFS.xDelete = bufferedDelete;
    bufferedVFS.xAccess = bufferedAccess;
    bufferedVFS.xFullPathname = bufferedFullPathname;
    bufferedVFS.xDlOpen = bufferedDlOpen;
    bufferedVFS.xDlError = bufferedDlError;
    bufferedVFS.xDlSym = bufferedDlSym;
    bufferedVFS.xDlClose = bufferedDlClose;
    bufferedVFS.xRandomness = bufferedRandomness;
    bufferedVFS.xSleep = bufferedSleep;
    bufferedVFS.xCurrentTime = bufferedCurrentTime;
    bufferedVFS.xGetLastError = bufferedGetLastError;
    bufferedVFS.xCurrentTimeInt64 = bufferedCurrentTimeInt64;
    return sqlite3_vfs_register(&bufferedVFS, 0);
}

int nimbus_sqlite3_wal_write_counts(sqlite3 *connection, uint64_t *sqliteWriteCount, uint64_t *fileWriteCount) {
    sqlite3_file *wal = 0;
    if (sqlite3_file_control(connection, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK || !wal) return SQLITE_NOTFOUND;
    if (wal->pMethods != &bufferedMethods) return SQLITE_NOTFOUND;
    BufferedFile *file = (BufferedFile *)wal;
    *sqliteWriteCount = file->sqliteWrites;
    *fileWriteCount = file->fileWrites;
    return SQLITE_OK;
}
