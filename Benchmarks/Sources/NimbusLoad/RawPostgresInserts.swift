//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// What the store itself sustains: inserts into a copy of Nimbus's `records` table.
struct RawInsertRates {
    /// Which store: "SQLite" or "PostgreSQL".
    var store: String
    /// Rows per second, one row per transaction (like single-record saves).
    var singleRowTransactions: Double
    /// Rows per second, 200 rows per transaction (like 200-record batches).
    var batchedTransactions: Double
}

/// The PostgreSQL storage ceiling: pgbench (PostgreSQL's own load generator, in C) inserting
/// into a copy of the server's `records` table (`LIKE … INCLUDING ALL`: same columns, keys and
/// indexes), over as many connections as the HTTP clients, with no HTTP and no engine.
enum RawPostgresInserts {
    static func measure(database url: String, clients: Int, seconds: Int) throws -> RawInsertRates {
        let (connection, schema) = libpqURL(url)
        let table = "\(schema).raw_records"
        try psql(connection, "DROP TABLE IF EXISTS \(table); CREATE TABLE \(table) (LIKE \(schema).records INCLUDING ALL)")
        defer { try? psql(connection, "DROP TABLE IF EXISTS \(table)") }
        let columns = """
            container, environment, owner, zone_name, record_name, record_type, change_counter, change_tag, parent_name,
            fields, encrypted_fields, created_at, created_by, created_device, modified_at, modified_by, modified_device,
            is_deleted, share_name, is_share_root
            """
        let row = { (name: String) in
            """
            'c', 'development', '_owner', '_defaultZone', \(name), 'Note', 1, '1', NULL,
            '{"title":{"type":"STRING","value":"load"},"count":{"type":"INT64","value":1}}', NULL,
            1, 'u', '1', 1, 'u', '1', 0, NULL, 0
            """
        }
        let single = "INSERT INTO \(table) (\(columns)) VALUES (\(row("md5(random()::text || clock_timestamp()::text)")));\n"
        let batch =
            "INSERT INTO \(table) (\(columns)) SELECT \(row("md5(random()::text || clock_timestamp()::text || i)")) FROM generate_series(1, 200) AS i;\n"
        return RawInsertRates(
            store: "PostgreSQL",
            singleRowTransactions: try pgbench(connection, script: single, clients: clients, seconds: seconds),
            batchedTransactions: try pgbench(connection, script: batch, clients: clients, seconds: seconds) * 200
        )
    }

    /// The URL without Nimbus's own parameters, which libpq does not know, and the schema.
    static func libpqURL(_ url: String) -> (String, String) {
        guard var components = URLComponents(string: url) else { return (url, "public") }
        let schema = components.queryItems?.first { $0.name == "schema" }?.value ?? "public"
        components.queryItems = components.queryItems?.filter { $0.name == "sslmode" }
        if components.queryItems?.isEmpty == true { components.queryItems = nil }
        return (components.string ?? url, schema)
    }

    static func psql(_ connection: String, _ sql: String) throws {
        _ = try Shell.run("/usr/bin/env", ["psql", connection, "-qAt", "-v", "ON_ERROR_STOP=1", "-c", sql])
    }

    /// Transactions per second of `script` run by `clients` connections for `seconds`.
    private static func pgbench(_ connection: String, script: String, clients: Int, seconds: Int) throws -> Double {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-pgbench-\(UUID().uuidString).sql").path
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try Shell.run(
            pgbenchPath(),
            ["-n", "-c", String(clients), "-j", "2", "-T", String(seconds), "-f", path, connection]
        )
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
            let value = Double(line.dropFirst("tps = ".count).prefix { $0.isNumber || $0 == "." })
        else { throw LoadError("pgbench printed no tps: \(output)") }
        return value
    }

    /// pgbench from PATH, or from the newest Debian PostgreSQL.
    private static func pgbenchPath() throws -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(directory)/pgbench"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            let candidate = "/usr/lib/postgresql/\(version)/bin/pgbench"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw LoadError("pgbench not found (Debian's postgresql package has it)")
    }
}
