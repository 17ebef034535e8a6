//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CSQLiteBench
import Foundation

/// The storage ceiling: inserting rows into Nimbus's own `records` table (schema and indexes
/// copied from the server's database) with the same pragmas, through prepared statements, no
/// HTTP and no engine.
enum RawSQLiteInserts {
    typealias Result = RawInsertRates

    /// Sets the SQLite library up as the server sets it up (memory statistics off), so the
    /// storage ceiling is measured with the same library settings. SQLite takes the setting only
    /// before its first connection in this process: call first thing.
    static func configureLibrary() throws {
        guard nimbus_sqlite3_disable_memory_statistics() == SQLITE_OK else {
            throw LoadError("SQLite was initialized before its memory statistics could be turned off")
        }
    }

    static func measure(schemaFrom source: String) throws -> Result {
        let (schema, pageSize) = try statements(in: source)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-raw-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        var database: OpaquePointer?
        guard sqlite3_open(path, &database) == SQLITE_OK, let database else { throw LoadError("cannot open \(path)") }
        defer { sqlite3_close(database) }
        // The same page size as the server's database, set before the first table exists.
        try exec(database, "PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")
        for statement in schema { try exec(database, statement) }
        var insert: OpaquePointer?
        let sql = """
            INSERT INTO records (container, environment, owner, zone_name, record_name, record_type, change_counter,
                change_tag, parent_name, fields, encrypted_fields, created_at, created_by, created_device,
                modified_at, modified_by, modified_device, is_deleted)
            VALUES ('c', 'development', '_owner', '_defaultZone', ?, 'Note', ?, ?, NULL, ?, NULL, 1, 'u', '1', 1, 'u', '1', 0)
            """
        guard sqlite3_prepare_v2(database, sql, -1, &insert, nil) == SQLITE_OK, let insert else { throw LoadError("prepare failed") }
        defer { sqlite3_finalize(insert) }
        var next = 0
        func insertRow() throws {
            next += 1
            let fields = #"{"title":{"type":"STRING","value":"load \#(next)"},"count":{"type":"INT64","value":\#(next)}}"#
            sqlite3_bind_text(insert, 1, "raw-\(next)", -1, transient)
            sqlite3_bind_int64(insert, 2, Int64(next))
            sqlite3_bind_text(insert, 3, String(next, radix: 36), -1, transient)
            sqlite3_bind_text(insert, 4, fields, -1, transient)
            guard sqlite3_step(insert) == SQLITE_DONE else { throw LoadError("insert failed") }
            sqlite3_reset(insert)
        }
        func rate(rowsPerTransaction: Int, transactions: Int) throws -> Double {
            let start = ContinuousClock.now
            for _ in 0..<transactions {
                try exec(database, "BEGIN IMMEDIATE")
                for _ in 0..<rowsPerTransaction { try insertRow() }
                try exec(database, "COMMIT")
            }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return Double(rowsPerTransaction * transactions) / seconds
        }
        return Result(
            store: "SQLite",
            singleRowTransactions: try rate(rowsPerTransaction: 1, transactions: 20_000),
            batchedTransactions: try rate(rowsPerTransaction: 200, transactions: 500)
        )
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func statements(in path: String) throws -> (statements: [String], pageSize: Int) {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let database else {
            throw LoadError("cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(
            database,
            "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'",
            -1,
            &statement,
            nil
        )
        defer { sqlite3_finalize(statement) }
        var objects: [(type: String, name: String, sql: String)] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            objects.append(
                (
                    String(cString: sqlite3_column_text(statement, 0)), String(cString: sqlite3_column_text(statement, 1)),
                    String(cString: sqlite3_column_text(statement, 2))
                )
            )
        }
        // Tables before the indexes and triggers on them; a virtual table makes its own shadow
        // tables (FTS5's NAME_data, NAME_idx, ...), which must not be created twice.
        let virtualTables = objects.filter { $0.sql.uppercased().hasPrefix("CREATE VIRTUAL TABLE") }.map(\.name)
        let shadowTables = Set(virtualTables.flatMap { name in ["data", "idx", "content", "docsize", "config"].map { "\(name)_\($0)" } })
        let order = ["table": 0, "index": 1, "trigger": 2, "view": 3]
        let result =
            objects
            .filter { object in !(object.type == "table" && shadowTables.contains(object.name)) }
            .sorted { (order[$0.type] ?? 4) < (order[$1.type] ?? 4) }
            .map(\.sql)
        var pageSizeStatement: OpaquePointer?
        sqlite3_prepare_v2(database, "PRAGMA page_size", -1, &pageSizeStatement, nil)
        defer { sqlite3_finalize(pageSizeStatement) }
        let pageSize = sqlite3_step(pageSizeStatement) == SQLITE_ROW ? Int(sqlite3_column_int(pageSizeStatement, 0)) : 4096
        return (result, pageSize)
    }

    private static func exec(_ database: OpaquePointer, _ sql: String) throws {
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else {
            throw LoadError("SQLite: \(String(cString: sqlite3_errmsg(database))) in \(sql.prefix(80))")
        }
    }
}
