//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusStore
import NimbusTestSupport
import Synchronization
import Testing

@testable import NimbusSQL

/// A keyed write takes its key's lock in its first statement and runs `READ COMMITTED`.
@Suite(
    "a keyed write's lock inside its transaction on PostgreSQL",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"),
    .timeLimit(.minutes(1))
)
struct PostgresTenantLockTests {
    @Test("a keyed write that waited for its key's lock sees what the holder committed, and runs once")
    func seesTheHoldersWrites() async throws {
        try await withTestStore { store in
            let database = try #require(store.database as? PostgreSQLDatabase)
            try await database.write { connection in
                try await connection.execute("CREATE TABLE lock_probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
                try await connection.execute("INSERT INTO lock_probe VALUES (1, 0)")
            }
            let key = "lock-\(UUID().uuidString)"
            let runs = Mutex(0)
            let holder = await holdLock(of: key, in: database) { "UPDATE lock_probe SET n = n + 10 WHERE id = 1 AND \($0)" }
            async let waiter: (Int64, Int64) = database.write(serializing: key) { connection in
                runs.withLock { $0 += 1 }
                let seen = try await connection.query("SELECT n FROM lock_probe WHERE id = 1", []).first?.int(0) ?? -1
                let written = try await connection.query("UPDATE lock_probe SET n = n + 1 WHERE id = 1 RETURNING n", []).first?.int(0) ?? -1
                return (seen, written)
            }
            let lock = PostgreSQLDatabase.advisoryLock("nimbus.write.\(database.lockScope)\(key)")
            #expect(
                try await waitUntilFound(
                    "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND ((classid::bigint << 32) | objid::bigint) = ?",
                    [.integer(lock)],
                    in: database
                ),
                "the write never waited for its key's lock"
            )
            holder.release()
            try await holder.finished.value
            let (seen, written) = try await waiter
            #expect(seen == 10)
            #expect(written == 11)
            #expect(runs.withLock { $0 } == 1)
        }
    }

    @Test("a field another tenant's write added with another type while this write added it makes this write run again, and read the stored type")
    func fieldAddedMeanwhile() async throws {
        try await withTestStore { store in
            let database = try #require(store.database as? PostgreSQLDatabase)
            let tenant = Tenant(container: "c", environment: .production, owner: "_owner")
            let (held, holding) = AsyncStream<Void>.makeStream()
            let (released, release) = AsyncStream<Void>.makeStream()
            async let other: Void = database.write { connection in
                try await connection.execute(
                    """
                    INSERT INTO record_fields (container, environment, record_type, field_name, field_type, is_encrypted,
                        is_queryable, is_sortable, is_searchable)
                    VALUES ('c', 'production', 'Note', 'size', 'STRING', 0, 0, 0, 0)
                    """
                )
                holding.yield()
                for await _ in released { break }
            }
            var heldIterator = held.makeAsyncIterator()
            _ = await heldIterator.next()
            let runs = Mutex(0)
            async let writer: FieldType? = store.write(zone: ZoneID.defaultZoneName, of: tenant) { transaction in
                runs.withLock { $0 += 1 }
                let known = try await transaction.fields(ofRecordType: "Note")[NameKey("size")]
                if known == nil {
                    try await transaction.addFields([NameKey("size"): FieldSchema(type: .int64, isEncrypted: false)], toRecordType: "Note")
                }
                return known?.type
            }
            // The writer's upsert waits for the other transaction's row.
            #expect(
                try await waitUntilFound("SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND NOT granted", [], in: database),
                "the write never waited for the other write's field"
            )
            release.yield()
            try await other
            #expect(try await writer == .string)
            #expect(runs.withLock { $0 } == 2)
            let stored = try await database.readStatement(
                "SELECT field_type FROM record_fields WHERE container = 'c' AND record_type = 'Note' AND field_name = 'size'",
                []
            )
            #expect(stored.map { $0.string(0) } == ["STRING"])
        }
    }

    @Test(
        "keyed writes whose wait for their key's lock outlasts the statement timeout fail with the lock's own error and write nothing; the key serves writes after"
    )
    func lockWaitTimesOut() async throws {
        // `BEGIN` and the lock go out together, and a write's statements behind them: the
        // failure reported must be the lock's, not that of a statement after it in the aborted
        // transaction, and none of the writes' statements may run without the lock.
        let server = try #require(TestDatabase.postgresServer) + "&statement_timeout=300"
        try await withTestStore(server: server) { store in
            let database = try #require(store.database as? PostgreSQLDatabase)
            try await database.write { try await $0.execute("CREATE TABLE unlocked_probe (writer INTEGER NOT NULL)") }
            let key = "lock-\(UUID().uuidString)"
            let holder = await holdLock(of: key, in: database) { "SELECT \($0)" }
            // Several, so that some of them wait as one group.
            let outcomes = await withTaskGroup(of: (any Error)?.self) { group in
                for writer in 0..<3 {
                    group.addTask {
                        do {
                            try await database.write(serializing: key) { connection in
                                try await connection.execute("INSERT INTO unlocked_probe VALUES (?)", [.integer(Int64(writer))])
                            }
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for outcome in outcomes {
                let error = try #require(outcome as? StoreError, "a write ran while another held its key's lock: \(String(describing: outcome))")
                #expect(error.driverCode == .postgres("57014"), "\(error)")
            }
            let written = try await database.readStatement("SELECT count(*) FROM unlocked_probe", [])
            #expect(written.first?.int(0) == 0, "a write's statement ran without its key's lock")
            holder.release()
            try await holder.finished.value
            let answer = try await database.write(serializing: key) { connection in
                try await connection.query("SELECT 7", []).first?.int(0)
            }
            #expect(answer == 7)
        }
    }

    /// Another process's write of `key`: it runs `statement` with its turn's condition (its turn
    /// takes the key's lock) and holds the lock until `release` is called. Returns once the lock
    /// is held.
    private func holdLock(
        of key: String,
        in database: PostgreSQLDatabase,
        statement: @escaping @Sendable (_ turn: String) -> String
    ) async -> (release: @Sendable () -> Void, finished: Task<Void, any Error>) {
        let (held, holding) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let finished = Task {
            try await database.write(takingTurnOf: key) { connection, turn in
                try await connection.execute(statement(turn))
                holding.yield()
                for await _ in released { break }
            }
        }
        var heldIterator = held.makeAsyncIterator()
        _ = await heldIterator.next()
        return ({ release.yield() }, finished)
    }

    /// Polls `sql` until it returns a row, for up to 20 seconds.
    private func waitUntilFound(_ sql: String, _ binds: [SQLValue], in database: PostgreSQLDatabase) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if try await !database.readStatement(sql, binds).isEmpty { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}
