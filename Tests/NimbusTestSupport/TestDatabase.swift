//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusSQL
public import NimbusStore

/// The database a test runs on: an SQLite file by default, or a fresh schema on the PostgreSQL
/// server that `NIMBUS_TEST_DATABASE` names (`scripts/test` starts one and runs the suite on both).
///
/// Each test gets a database of its own, so tests run in parallel without seeing each other's
/// data. PostgreSQL schemas are left behind: the test script removes the whole cluster.
public struct TestDatabase: Sendable {
    /// The PostgreSQL server the suite runs on, or `nil` when it runs on SQLite.
    public static let postgresServer: String? = {
        let value = ProcessInfo.processInfo.environment["NIMBUS_TEST_DATABASE"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// Where the SQLite file is (in the test's directory), used when the suite runs on SQLite.
    public let sqlitePath: String
    /// The PostgreSQL server of this test, when it runs on PostgreSQL.
    public let postgresServer: String?
    /// The schema of this test, when it runs on PostgreSQL.
    public let postgresSchema: String?

    /// The `postgres://` URL of this test's own schema, when it runs on PostgreSQL.
    public var postgresURL: String? {
        guard let postgresServer, let postgresSchema else { return nil }
        return postgresServer + (postgresServer.contains("?") ? "&" : "?") + "schema=" + postgresSchema
    }

    /// A new, empty database; an SQLite one is the file `name` in `directory`.
    /// - Parameters:
    ///   - server: A PostgreSQL server to use instead of the suite's (a `postgres://` URL).
    public init(directory: URL, name: String = "nimbus.sqlite", server: String? = Self.postgresServer) {
        sqlitePath = directory.appendingPathComponent(name).path
        postgresServer = server
        postgresSchema = server == nil ? nil : "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }

    /// Whether this database is on PostgreSQL.
    public var isPostgres: Bool { postgresSchema != nil }

    /// Runs `sql` with the database's own command-line tool (`sqlite3` or `psql`), as an operator
    /// would, and returns its output: one line per row, columns separated by `|`.
    public func inspect(_ sql: String) async throws -> String {
        let arguments: [String]
        if let server = postgresServer, let postgresSchema {
            arguments = ["psql", String(server.prefix { $0 != "?" }), "-qAt", "-c", "SET search_path TO \(postgresSchema)", "-c", sql]
        } else {
            arguments = ["sqlite3", sqlitePath, sql]
        }
        let result = try await ProcessLaunch.runToCompletion("/usr/bin/env", arguments)
        guard result.status == 0 else { throw InspectionFailure(command: arguments[0], status: result.status, stderr: result.stderr) }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Opens a store on this database (more than once for several "instances" on the same data).
    ///
    /// The store runs (see `SQLStore.run()`) until it is closed, as a server's store runs until
    /// its services stop.
    public func open(cipher: FieldCipher, clock: any NimbusClock = SystemClock()) async throws -> SQLStore {
        let store: SQLStore
        if let postgresURL {
            var logger = Logger(label: "nimbus.test.postgres")
            logger.logLevel = .warning
            store = try await SQLStore.openPostgres(PostgresLocation(url: postgresURL), cipher: cipher, clock: clock, logger: logger)
        } else {
            store = try await SQLStore.openSQLite(path: sqlitePath, cipher: cipher, clock: clock)
        }
        Task { await store.run() }
        return store
    }
}

/// The database's command-line tool failed: what it said, so a test's failure says why.
public struct InspectionFailure: Error, CustomStringConvertible {
    public var command: String
    public var status: Int32
    public var stderr: String

    public var description: String { "\(command) exited with \(status): \(stderr)" }
}
