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

@Suite("group commit", .timeLimit(.minutes(1)))
struct GroupCommitTests {
    struct Refused: Error {}

    /// How often each write's body ran.
    final class RunCounts: Sendable {
        let counts = Mutex<[Int: Int]>([:])
    }

    /// A store's database, with how many writers of a key wait for the group running to end,
    /// and SQL for the number of the transaction running it, where there is one.
    struct Writer {
        var database: any SQLDatabase
        var waitingCount: @Sendable (String) -> Int
        var transactionID: String?

        init(_ store: SQLStore) throws {
            if let postgres = store.database as? PostgreSQLDatabase {
                self.database = postgres
                self.waitingCount = { postgres.groups.waitingCount(of: $0) }
                self.transactionID = "txid_current()"
            } else {
                let sqlite = try #require(store.database as? SQLiteDatabase)
                self.database = sqlite
                // SQLite has one writer, so one queue whatever the key, and no transaction number.
                self.waitingCount = { _ in sqlite.writer.groups.waitingCount(of: GroupCommitWriter.key) }
                self.transactionID = nil
            }
        }

        /// Runs `writers` writes of `key`, `body(index, connection)` each: the first holds its
        /// group open until every other has queued behind it, in order, so they all fall into the
        /// next group, deterministically. Returns each write's outcome, and how often each body ran.
        func runGrouped(
            key: String,
            writers: Int,
            _ body: @escaping @Sendable (Int, any SQLConnection) async throws -> Int64
        ) async -> (outcomes: [Int: Result<Int64, any Error>], runs: [Int: Int]) {
            let (firstRuns, firstRunning) = AsyncStream<Void>.makeStream()
            let runs = RunCounts()
            let database = database
            let waitingCount = waitingCount
            let outcomes = await withTaskGroup(of: (Int, Result<Int64, any Error>).self) { group in
                func start(_ index: Int) {
                    group.addTask {
                        do {
                            let value = try await database.write(serializing: key) { connection in
                                runs.counts.withLock { $0[index, default: 0] += 1 }
                                if index == 0 {
                                    firstRunning.yield()
                                    let deadline = ContinuousClock.now + .seconds(30)
                                    while waitingCount(key) < writers - 1, ContinuousClock.now < deadline {
                                        try await Task.sleep(for: .milliseconds(1))
                                    }
                                }
                                return try await body(index, connection)
                            }
                            return (index, .success(value))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                start(0)
                var running = firstRuns.makeAsyncIterator()
                _ = await running.next()
                // One at a time, so they queue in the order the expectations name them (tasks
                // started together may reach the queue in any order on a loaded machine). The
                // last one queued lets the first go on, and the group may then be gone at once:
                // no need, and no use, waiting to see it queued.
                for index in 1..<writers {
                    start(index)
                    let deadline = ContinuousClock.now + .seconds(30)
                    while index < writers - 1, waitingCount(key) < index, ContinuousClock.now < deadline {
                        try? await Task.sleep(for: .milliseconds(1))
                    }
                }
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            return (outcomes, runs.counts.withLock { $0 })
        }
    }

    @Test("concurrent writes commit together, without savepoints until one fails; one that throws, and one refused, roll back alone")
    func groupedWritesFailAlone() async throws {
        try await withTestStore { store in
            let writer = try Writer(store)
            let database = writer.database
            try await database.write { try await $0.execute("CREATE TABLE group_probe (name TEXT PRIMARY KEY, transaction_id BIGINT NOT NULL)") }
            let writers = 20
            let transactionID = writer.transactionID
            let (outcomes, counts) = await writer.runGrouped(key: "tenant-\(UUID().uuidString)", writers: writers) { index, connection in
                // Write 11 repeats write 0's name: the database refuses it.
                let name = index == 11 ? "w0" : "w\(index)"
                let transaction = try await connection.query(
                    "INSERT INTO group_probe (name, transaction_id) VALUES (?, \(transactionID ?? "0")) RETURNING transaction_id",
                    [.text(name)]
                )
                if index == 7 { throw Refused() }
                return try #require(transaction.first?.int(0))
            }

            #expect(throws: Refused.self) { try outcomes[7]?.get() }
            #expect(throws: StoreError.self) { try outcomes[11]?.get() }
            if case .failure(let error as StoreError)? = outcomes[11] { #expect(error.kind == .alreadyExists) }
            var transactions: [Int: Int64] = [:]
            for index in 0..<writers where index != 7 && index != 11 {
                transactions[index] = try #require(try outcomes[index]?.get(), "write \(index)")
            }
            if transactionID != nil {
                // Write 0 committed alone; the eighteen others that succeeded, together.
                #expect(Set(transactions.filter { $0.key != 0 }.values).count == 1)
                #expect(transactions[0] != transactions[1])
            }
            // The group ran without savepoints until write 7 failed, then again with one per write;
            // writes after 7 had not run yet. Write 0 ran alone, once.
            #expect(counts[0] == 1)
            #expect((1...7).allSatisfy { counts[$0] == 2 } && (8..<writers).allSatisfy { counts[$0] == 1 }, "\(counts.sorted { $0.key < $1.key })")
            let stored = try await database.readStatement("SELECT name FROM group_probe ORDER BY name", [])
            #expect(Set(stored.map { $0.string(0) }) == Set((0..<writers).filter { $0 != 7 && $0 != 11 }.map { "w\($0)" }))

            // A write alone in its group gets its own error back, unchanged.
            await #expect(throws: Refused.self) {
                try await database.write(serializing: "tenant-\(UUID().uuidString)") { _ in throw Refused() }
            }
        }
    }

    @Test("SQLite: a body after which the transaction is gone fails its whole group at once, without running it again")
    func transactionLostFailsTheGroup() async throws {
        // SQLite rolls a whole transaction back on a full disk or an I/O error; a body that ends
        // the transaction itself stands in for that here.
        try await withTestStore(server: nil) { store in
            let writer = try Writer(store)
            let database = writer.database
            try await database.write { try await $0.execute("CREATE TABLE lost_probe (name TEXT PRIMARY KEY)") }
            let (outcomes, counts) = await writer.runGrouped(key: GroupCommitWriter.key, writers: 5) { index, connection in
                try await connection.execute("INSERT INTO lost_probe (name) VALUES (?)", [.text("w\(index)")])
                if index == 2 {
                    try await connection.execute("ROLLBACK")
                    throw Refused()
                }
                return Int64(index)
            }
            #expect(try outcomes[0]?.get() == 0)
            for index in 1..<5 {
                #expect(throws: StoreError.self, "write \(index)") { try outcomes[index]?.get() }
            }
            // Writes 1 and 2 ran once; 3 and 4 never: nothing ran outside a transaction, or twice.
            #expect(counts == [0: 1, 1: 1, 2: 1], "\(counts.sorted { $0.key < $1.key })")
            let stored = try await database.readStatement("SELECT name FROM lost_probe ORDER BY name", [])
            #expect(stored.map { $0.string(0) } == ["w0"])
        }
    }
}
