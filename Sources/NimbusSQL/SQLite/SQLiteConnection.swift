//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CNimbusSQLite
import CSQLite
import NimbusModel
import NimbusStore

/// One SQLite connection with a cache of prepared statements.
///
/// Statements run synchronously on the calling thread. That is the point of this type:
/// sqlite-nio hops to a thread pool for every statement (and to an event loop for every row),
/// which costs more than the statement itself for the small keyed reads and writes a record
/// store makes. Statements here take microseconds, so running them inline on a cooperative
/// thread is cheaper than any hop.
///
/// Not thread-safe by itself: ``SQLiteDatabase`` leases each connection to one task at a time.
final class SQLiteConnection: SQLConnection {
    private var handle: OpaquePointer?
    private var statements: [StatementKey: (statement: OpaquePointer, lastUse: UInt64)] = [:]
    /// Counts uses, to find the least recently used statement when the cache is full.
    private var uses: UInt64 = 0
    /// Where the text and blobs of the running statement's parameters lie (see `bind`).
    private let bindBuffer = BindBuffer()

    /// Opens (creating if needed) the database file at `path`.
    init(path: String, readOnly: Bool) throws {
        let flags =
            (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
            | SQLITE_OPEN_NOMUTEX
        var handle: OpaquePointer?
        let status = sqlite3_open_v2(path, &handle, flags, Self.vfs)
        guard status == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw StoreError(.database, detail: "cannot open SQLite database: \(message)")
        }
        self.handle = handle
        // Failures are told apart by their extended codes (a unique violation from a NOT NULL one).
        sqlite3_extended_result_codes(handle, 1)
        // Writers from other processes (the admin CLI) hold the lock briefly; wait for them.
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit {
        close()
    }

    /// Settings of the SQLite library itself, made once, before the first connection opens
    /// (SQLite refuses them once it is initialized, and they then stay as they were).
    ///
    /// Memory statistics are turned off, as SQLite's recommended options have it: with them on,
    /// every allocation SQLite makes takes one process-wide mutex, and the system library this
    /// links (Debian's) is built without lookaside memory, so a statement allocates often.
    /// Nothing here reads the statistics. In a process where something else initialized SQLite
    /// first, SQLite refuses the setting (`SQLITE_MISUSE`) and keeps its own: slower, not wrong.
    ///
    /// Connections open through the "nimbus" VFS, which writes a commit's WAL frames with a few
    /// system calls instead of two per frame (`WALWriteBuffer.c` says why that is safe). The
    /// value is its name, or `nil` for SQLite's default VFS.
    static let vfs: String? = {
        _ = nimbus_sqlite3_disable_memory_statistics()
        // After the setting above: registering a VFS initializes SQLite. Should it fail, the
        // default VFS does the same work with more system calls.
        return nimbus_sqlite3_register_wal_write_buffer() == SQLITE_OK ? NIMBUS_SQLITE_VFS_NAME : nil
    }()

    /// How many writes SQLite made to this connection's WAL file and how many reached the file
    /// system, while the WAL is open through the "nimbus" VFS (see ``vfs``).
    var walWriteCounts: (sqliteWrites: UInt64, fileWrites: UInt64)? {
        var sqliteWrites: UInt64 = 0
        var fileWrites: UInt64 = 0
        guard let handle, nimbus_sqlite3_wal_write_counts(handle, &sqliteWrites, &fileWrites) == SQLITE_OK else { return nil }
        return (sqliteWrites, fileWrites)
    }

    /// Finalizes every statement and closes the connection.
    func close() {
        for entry in statements.values { sqlite3_finalize(entry.statement) }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    func query(_ sql: String, _ binds: [SQLValue]) throws -> [SQLRow] {
        let statement = try prepared(sql)
        defer {
            sqlite3_reset(statement)
            // Before the bind buffer is written again, or released.
            sqlite3_clear_bindings(statement)
            bindBuffer.shrinkIfLarge()
        }
        try bind(binds, to: statement)
        var rows: [SQLRow] = []
        let columnCount = sqlite3_column_count(statement)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(status, sql: sql) }
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                values.append(value(of: statement, at: column))
            }
            rows.append(SQLRow(values: values))
        }
        return rows
    }

    /// Runs one statement without binds or rows, through the statement cache: transaction
    /// control runs on every request, and `sqlite3_exec` would parse it again each time.
    func run(_ sql: String) throws {
        _ = try query(sql, [])
    }

    /// Runs statements that take no binds, such as a migration script.
    func executeScript(_ sql: String) throws {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, sql: sql) }
    }

    // MARK: - Private

    /// Whether a transaction is open. SQLite rolls a whole transaction back on some errors
    /// (disk full, I/O errors), after which this is `false` however many savepoints were open.
    var isInTransaction: Bool {
        handle.map { sqlite3_get_autocommit($0) == 0 } ?? false
    }

    /// The most statements kept prepared. Queries put field names in their SQL, so the set of
    /// statements is open-ended; past this many, the least recently used is dropped (the hot
    /// ones, such as BEGIN and COMMIT, therefore stay).
    static let statementCacheLimit = 256

    private func prepared(_ sql: String) throws -> OpaquePointer {
        uses &+= 1
        let key = StatementKey(sql: sql)
        // One lookup for a hit: statements run several times per request.
        if let index = statements.index(forKey: key) {
            statements.values[index].lastUse = uses
            return statements.values[index].statement
        }
        if statements.count >= Self.statementCacheLimit,
            let coldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            // Every cached statement is reset after each use, so none is running here.
            sqlite3_finalize(coldest.value.statement)
            statements[coldest.key] = nil
        }
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status, sql: sql) }
        statements[key] = (statement, uses)
        return statement
    }

    /// Binds `binds` to the statement's parameters in order.
    ///
    /// Text and blobs are copied into ``bindBuffer`` and bound where they lie there
    /// (`SQLITE_STATIC`): told to copy them (`SQLITE_TRANSIENT`), SQLite allocated and freed a
    /// copy of each value, and a save binds dozens. The buffer is not written again until the
    /// statement is reset and its bindings cleared (``query(_:_:)``).
    private func bind(_ binds: [SQLValue], to statement: OpaquePointer) throws {
        var byteCount = 0
        for value in binds {
            switch value {
            case .text(let text): byteCount += text.utf8.count
            case .blob(let bytes): byteCount += bytes.count
            default: break
            }
        }
        bindBuffer.reserve(byteCount)
        var offset = 0
        for (position, value) in binds.enumerated() {
            let index = Int32(position + 1)
            let status: Int32
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let integer): status = sqlite3_bind_int64(statement, index, integer)
            case .real(let real): status = sqlite3_bind_double(statement, index, real)
            case .text(let text):
                // An explicit byte count: with -1 SQLite would stop at the first NUL. An empty
                // value still gets a pointer (the buffer's start): a nil one would bind NULL.
                let count = bindBuffer.copy(text.utf8, at: offset)
                status = sqlite3_bind_text(statement, index, bindBuffer.address(at: offset), Int32(count), sqliteStatic)
                offset += count
            case .blob(let bytes):
                let count = bindBuffer.copy(bytes, at: offset)
                status = sqlite3_bind_blob(statement, index, bindBuffer.address(at: offset), Int32(count), sqliteStatic)
                offset += count
            case .textList, .integerList:
                // SQLite has no arrays: the list goes as JSON, which `json_each` reads
                // (`SQLDialect.isAmong`). Rare enough to keep SQLite's own copy.
                var json = Self.jsonArray(value)
                status = json.withUTF8 { sqlite3_bind_text(statement, index, $0.baseAddress, Int32($0.count), sqliteTransient) }
            }
            guard status == SQLITE_OK else { throw error(status, sql: "bind \(index)") }
        }
    }

    /// A list as a JSON array (empty for any other value).
    private static func jsonArray(_ list: SQLValue) -> String {
        var writer = JSONWriter(capacity: 64)
        writer.beginArray()
        switch list {
        case .textList(let values): for value in values { writer.string(value) }
        case .integerList(let values): for value in values { writer.integer(value) }
        default: break
        }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func value(of statement: OpaquePointer, at column: Int32) -> SQLValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        default: return .null
        }
    }

    // Swift does not import SQLite's extended-code macros, which are expressions of others.
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    private static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    private static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)

    private func error(_ status: Int32, sql: String) -> StoreError {
        let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed"
        let kind: StoreError.Kind =
            switch status {
            case Self.constraintUnique, Self.constraintPrimaryKey: .alreadyExists
            case _ where status & 0xff == SQLITE_CONSTRAINT: .constraintViolation
            default: .database
            }
        return StoreError(kind, detail: "SQLite error \(status): \(message) in \(sql)", driverCode: .sqlite(status))
    }
}

/// SQLite's "copy the bytes now" destructor sentinel, which C spells `(sqlite3_destructor_type)-1`.
private let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
/// SQLite's "the bytes stay where they are until unbound" sentinel, `(sqlite3_destructor_type)0`.
private let sqliteStatic: sqlite3_destructor_type? = nil
