//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusStore
import NimbusTestSupport
import Synchronization
import Testing

@testable import NimbusSQL

@Suite(
    "a turn taken inside a statement on PostgreSQL",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"),
    .timeLimit(.minutes(1))
)
struct PostgresTurnTests {
    @Test("a write that takes its turn in a statement waits for a write holding the key's lock, and runs again on the rows that one changed")
    func waitsForTheHolder() async throws {
        try await withTestStore { store in try await check(try #require(store.database as? PostgreSQLDatabase)) }
    }

    private func check(_ database: PostgreSQLDatabase) async throws {
        try await database.write { connection in
            try await connection.execute("CREATE TABLE turn_probe (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)")
            try await connection.execute("INSERT INTO turn_probe VALUES (1, 0)")
        }
        let key = "turn-\(UUID().uuidString)"
        let lockedKey = PostgreSQLDatabase.advisoryLock("nimbus.write.\(database.lockScope)\(key)")
        let (held, holding) = AsyncStream<Void>.makeStream()
        let (released, release) = AsyncStream<Void>.makeStream()
        let turnTaken = Mutex(false)
        let runs = Mutex(0)

        async let holder: Void = database.write(serializing: key) { connection in
            try await connection.execute("UPDATE turn_probe SET n = n + 10 WHERE id = 1")
            holding.yield()
            for await _ in released { break }
        }
        var heldIterator = held.makeAsyncIterator()
        _ = await heldIterator.next()
        async let taker: Int64 = database.write(takingTurnOf: key) { connection, turn in
            runs.withLock { $0 += 1 }
            let rows = try await connection.query("UPDATE turn_probe SET n = n + 1 WHERE id = 1 AND \(turn) RETURNING n", [])
            turnTaken.withLock { $0 = true }
            return rows.first?.int(0) ?? -1
        }
        // The taker waits on the key's lock, not on the row: its statement asks for the lock
        // before it reads a row.
        let deadline = ContinuousClock.now + .seconds(20)
        var waited = false
        while !waited, ContinuousClock.now < deadline {
            waited = try await !database.readStatement(
                "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND ((classid::bigint << 32) | objid::bigint) = ?",
                [.integer(lockedKey)]
            ).isEmpty
            if !waited { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(waited, "the taker never waited for the key's lock")
        #expect(turnTaken.withLock { $0 } == false)
        release.yield()
        try await holder
        // Its snapshot predates the holder's commit: the row it changed is a lost race, and it
        // runs again, on the holder's value.
        #expect(try await taker == 11)
        #expect(runs.withLock { $0 } == 2)
    }
}
