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

    @Test("concurrent writes commit together, without savepoints until one fails; one that throws, and one refused, roll back alone")
    func groupedWritesFailAlone() async throws {
        try await withTestStore { store in
            if let postgres = store.database as? PostgreSQLDatabase {
                try await check(postgres, transactionID: "txid_current()") { postgres.groups.waitingCount(of: $0) }
            } else {
                let sqlite = try #require(store.database as? SQLiteDatabase)
                // SQLite has one writer, so one queue whatever the key, and no transaction number.
                try await check(sqlite, transactionID: nil) { _ in sqlite.writer.groups.waitingCount(of: GroupCommitWriter.key) }
            }
        }
    }

    /// - Parameters:
    ///   - transactionID: SQL for the number of the transaction running it, where there is one.
    ///   - waitingCount: how many writers of a key wait for the group running to end.
    private func check(
        _ database: any SQLDatabase,
        transactionID: String?,
        waitingCount: @escaping @Sendable (String) -> Int
    ) async throws {
        try await database.write { try await $0.execute("CREATE TABLE group_probe (name TEXT PRIMARY KEY, transaction_id BIGINT NOT NULL)") }

        let key = "tenant-\(UUID().uuidString)"
        let writers = 20
        // The first write holds its group open until every other has queued behind it, so they
        // all fall into the next group, deterministically.
        let (firstRuns, firstRunning) = AsyncStream<Void>.makeStream()
        let runs = RunCounts()
        let outcomes = await withTaskGroup(of: (Int, Result<Int64, any Error>).self) { group in
            func start(_ index: Int) {
                group.addTask {
                    do {
                        let transaction = try await database.write(serializing: key) { connection in
                            runs.counts.withLock { $0[index, default: 0] += 1 }
                            if index == 0 {
                                firstRunning.yield()
                                let deadline = ContinuousClock.now + .seconds(30)
                                while waitingCount(key) < writers - 1, ContinuousClock.now < deadline {
                                    try await Task.sleep(for: .milliseconds(1))
                                }
                            }
                            // Write 11 repeats write 0's name: the database refuses it.
                            let name = index == 11 ? "w0" : "w\(index)"
                            let transaction = try await connection.query(
                                "INSERT INTO group_probe (name, transaction_id) VALUES (?, \(transactionID ?? "0")) RETURNING transaction_id",
                                [.text(name)]
                            )
                            if index == 7 { throw Refused() }
                            return try #require(transaction.first?.int(0))
                        }
                        return (index, .success(transaction))
                    } catch {
                        return (index, .failure(error))
                    }
                }
            }
            start(0)
            var running = firstRuns.makeAsyncIterator()
            _ = await running.next()
            // One at a time, so they queue in the order the expectations below name them (tasks
            // started together may reach the queue in any order on a loaded machine).
            for index in 1..<writers {
                start(index)
                let deadline = ContinuousClock.now + .seconds(30)
                while waitingCount(key) < index, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(1))
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
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
        let counts = runs.counts.withLock { $0 }
        #expect(counts[0] == 1)
        #expect((1...7).allSatisfy { counts[$0] == 2 } && (8..<writers).allSatisfy { counts[$0] == 1 }, "\(counts.sorted { $0.key < $1.key })")
        let stored = try await database.readStatement("SELECT name FROM group_probe ORDER BY name", [])
        #expect(Set(stored.map { $0.string(0) }) == Set((0..<writers).filter { $0 != 7 && $0 != 11 }.map { "w\($0)" }))
    }
}
