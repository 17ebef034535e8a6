//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusModel
import NimbusStore
import NimbusTestSupport
import Testing

@testable import NimbusSQL

@Suite("the PostgreSQL driver")
struct PostgresDriverTests {
    @Test("database URLs: every setting is read, bad ones are refused with the reason, the password is never printed")
    func locations() throws {
        let location = try PostgresLocation(
            url: "postgres://nimbus:s3cret@db.internal:6432/app?schema=tenant_a&pool_size=8&statement_timeout=5000&sslmode=require"
        )
        #expect(location.host == "db.internal" && location.port == 6432 && location.database == "app")
        #expect(location.username == "nimbus" && location.password == "s3cret")
        #expect(location.schema == "tenant_a" && location.poolSize == 8 && location.statementTimeoutMilliseconds == 5000)
        #expect(location.tls == .require)
        #expect(!location.description.contains("s3cret"))

        let defaults = try PostgresLocation(url: "postgresql://nimbus@localhost/app")
        #expect(defaults.port == 5432 && defaults.schema == nil && defaults.poolSize == 16 && defaults.tls == .prefer)
        #expect(defaults.preparedStatements == 256)
        #expect(try PostgresLocation(url: "postgres://u@h/d?prepared_statements=0").preparedStatements == 0)

        for (url, reason) in [
            ("mysql://u@h/d", "postgres://"),
            ("postgres://h/d", "user"),
            ("postgres://u@h", "database"),
            ("postgres://u@h/d?schema=Robert'); DROP TABLE records;--", "schema"),
            ("postgres://u@h/d?pool_size=0", "pool_size"),
            ("postgres://u@h/d?sslmode=maybe", "sslmode"),
            ("postgres://u@h/d?prepared_statements=-1", "prepared_statements"),
            ("postgres://u@h/d?colour=blue", "colour"),
        ] {
            #expect(throws: StoreLocationError.self, "\(url)") { try PostgresLocation(url: url) }
            do {
                _ = try PostgresLocation(url: url)
            } catch {
                #expect(error.description.contains(reason), "\(url): \(error)")
            }
        }
    }

    @Test("placeholders are numbered in order, and a ? inside quotes is left alone")
    func placeholders() {
        #expect(
            PostgresSQLConnection.numberingPlaceholders("SELECT '?' AS q, \"a?\" FROM t WHERE a = ? AND b IN (?, ?)")
                == "SELECT '?' AS q, \"a?\" FROM t WHERE a = $1 AND b IN ($2, $3)"
        )
        #expect(PostgresSQLConnection.numberingPlaceholders("SELECT 'it''s ?' WHERE x = ?") == "SELECT 'it''s ?' WHERE x = $1")
        // Text beyond ASCII passes through whole, a quote followed by a combining mark still opens.
        #expect(
            PostgresSQLConnection.numberingPlaceholders("SELECT 'é?\u{301}' || '\u{301}?' AS \"ü?\", ? -- 🌧?")
                == "SELECT 'é?\u{301}' || '\u{301}?' AS \"ü?\", $1 -- 🌧$2"
        )
        let long = String(repeating: "(?, 'x?', ?), ", count: 500)
        #expect(PostgresSQLConnection.numberingPlaceholders(long).components(separatedBy: "$").count == 1001)
        #expect(PostgresSQLConnection.numberingPlaceholders(long).hasSuffix("($999, 'x?', $1000), "))
    }

    @Test("stores opened at once on a new database migrate it once: both work, at the latest version")
    func concurrentMigrations() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory)
        let cipher = FieldCipher(keyBytes: Array(repeating: 3, count: 32))!
        let stores = try await withThrowingTaskGroup(of: SQLStore.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        return try await database.open(cipher: cipher)
                    } catch let error as StoreError {
                        // The detail says which statement failed and how; the description does not.
                        Issue.record("opening failed: \(error.detail)")
                        throw error
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let latest = SQLMigrations.all.map(\.version).max()
        for store in stores {
            #expect(try await store.schemaVersion() == latest)
        }
        let applied = try await database.inspect("SELECT COUNT(*) FROM schema_migrations")
        #expect(applied == "\(SQLMigrations.all.count)")
        for store in stores { await store.close() }
    }

    @Test(
        "a start that waits for another process's migrations longer than the statement timeout still starts",
        .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts")
    )
    func migrationWaitOutlastsStatementTimeout() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = TestDatabase(directory: directory)
        let server = try #require(database.postgresServer)
        let schema = try #require(database.postgresSchema)
        let lock = PostgreSQLDatabase.advisoryLock("nimbus.migrations.\(schema)")
        // Another process holds the migration lock for 4 s: longer than the 1 s statement
        // timeout (and the client's 2 s of grace after it) this start is configured with.
        let holder = try ProcessLaunch.start(
            "/usr/bin/env",
            ["psql", String(server.prefix { $0 != "?" }), "-qAt", "-c", "SELECT pg_advisory_lock(\(lock)), pg_sleep(4)"]
        )
        defer { holder.signal(SIGKILL) }
        var held = false
        for _ in 0..<100 where !held {
            held =
                try await database.inspect(
                    "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND ((classid::bigint << 32) | objid::bigint) = \(lock)"
                ) != "0"
            if !held { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(held)
        let url = try #require(database.postgresURL) + "&statement_timeout=1000"
        let store = try await SQLStore.openPostgres(
            PostgresLocation(url: url),
            cipher: FieldCipher(keyBytes: Array(repeating: 3, count: 32))!,
            clock: SystemClock(),
            logger: Logger(label: "test")
        )
        Task { await store.run() }
        #expect(try await store.schemaVersion() == SQLMigrations.all.map(\.version).max())
        await store.close()
    }
}
