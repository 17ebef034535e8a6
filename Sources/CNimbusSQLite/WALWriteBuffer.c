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
// in the file. Frames written without a commit (a page cache spill) stay in memory until the
// next write, read, sync, size query, lock change or close of the same file, any of which
// writes the buffer first; other connections never read such frames, as no committed index
// header names them. A crash loses only frames of a transaction that had not committed.
//
// The commit frame is recognised by the WAL format (https://sqlite.org/fileformat2.html#walformat):
// a frame header is 24 bytes, and its bytes 4 to 7 hold the database size in pages after a
// commit, zero in every other frame.

#include "CNimbusSQLite.h"

#include <sqlite3.h>
#include <stdatomic.h>
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
} BufferedFile;

static sqlite3_vfs *defaultVFS;
static sqlite3_vfs bufferedVFS;
static sqlite3_io_methods bufferedMethods;
static _Atomic uint64_t sqliteWrites;
static _Atomic uint64_t fileWrites;

static int writeOut(BufferedFile *file) {
    int result = SQLITE_OK;
    int written = 0;
    while (result == SQLITE_OK && written < file->used) {
        int length = file->used - written;
        if (length > MAXIMUM_WRITE) length = MAXIMUM_WRITE;
        result = file->real->pMethods->xWrite(file->real, file->buffer + written, length, file->start + written);
        atomic_fetch_add_explicit(&fileWrites, 1, memory_order_relaxed);
        written += length;
    }
    file->used = 0;
    file->commitHeaderWritten = 0;
    return result;
}

static int bufferedClose(sqlite3_file *handle) {
    BufferedFile *file = (BufferedFile *)handle;
    int result = writeOut(file);
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
    atomic_fetch_add_explicit(&sqliteWrites, 1, memory_order_relaxed);
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
            atomic_fetch_add_explicit(&fileWrites, 1, memory_order_relaxed);
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

static int bufferedShmLock(sqlite3_file *handle, int offset, int count, int flags) {
    BufferedFile *file = (BufferedFile *)handle;
    if (file->real->pMethods->iVersion < 2) return SQLITE_IOERR_SHMLOCK;
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

void nimbus_sqlite3_wal_write_statistics(uint64_t *sqliteWriteCount, uint64_t *fileWriteCount) {
    *sqliteWriteCount = atomic_load_explicit(&sqliteWrites, memory_order_relaxed);
    *fileWriteCount = atomic_load_explicit(&fileWrites, memory_order_relaxed);
}
