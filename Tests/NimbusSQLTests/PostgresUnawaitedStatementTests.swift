//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusStore
import NimbusTestSupport
import Testing

@testable import NimbusSQL

@Suite(
    "statements a PostgreSQL write sends without waiting",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"),
    .timeLimit(.minutes(1))
)
struct PostgresUnawaitedStatementTests {
    @Test("statements sent unawaited run in the order sent, prepared or not: each sees the rows the ones before it wrote")
    func sentInOrder() async throws {
        try await withProbeTable { database in
            let seen = try await database.write(serializing: "tenant-\(UUID().uuidString)") { connection in
                for index in 0..<50 {
                    // A prepared statement, then one sent unnamed (a list is never prepared),
                    // which must find the row the first wrote.
                    try await connection.send(Self.insert("r\(index)"))
                    try await connection.send(
                        SQLStatement(sql: "UPDATE unawaited_probe SET seen = true WHERE name = ANY(?)", binds: [.textList(["r\(index)"])])
                    )
                }
                return try await connection.query("SELECT count(*) FROM unawaited_probe WHERE seen", []).first?.int(0)
            }
            #expect(seen == 50)
        }
    }

    @Test("a statement sent unawaited that fails, refused or failing as it runs, fails its write alone, which writes nothing")
    func failuresStayWithTheirWrite() async throws {
        try await withProbeTable { database in
            try await database.write { try await $0.execute("INSERT INTO unawaited_probe (name) VALUES ('taken')") }
            // A write alone is told its statement's own error, and commits nothing.
            do {
                try await database.write(serializing: "tenant-\(UUID().uuidString)") { connection in
                    try await connection.send(Self.insert("alone"))
                    try await connection.send(Self.insert("taken"))
                }
                Issue.record("a write whose statement was refused succeeded")
            } catch let error as StoreError {
                #expect(error.kind == .alreadyExists)
            }
            let key = "tenant-\(UUID().uuidString)"
            let writers = 12
            // The first write holds its group open until every other has queued behind it, so
            // the others commit as one group.
            let outcomes = await withTaskGroup(of: (Int, Result<Void, any Error>).self) { group in
                for index in 0..<writers {
                    group.addTask {
                        do {
                            try await database.write(serializing: key) { connection in
                                if index == 0 {
                                    let deadline = ContinuousClock.now + .seconds(30)
                                    while database.groups.waitingCount(of: key) < writers - 1, ContinuousClock.now < deadline {
                                        try await Task.sleep(for: .milliseconds(1))
                                    }
                                }
                                try await connection.send(Self.insert("w\(index)-a"))
                                // Write 4 repeats a name the table holds: the server refuses it.
                                try await connection.send(Self.insert(index == 4 ? "taken" : "w\(index)-b"))
                                // Write 8's last statement fails as it runs (a cast of a bound value).
                                let failing = "INSERT INTO unawaited_probe (name) VALUES (CAST(CAST(? AS BIGINT) AS TEXT))"
                                let last = index == 8 ? failing : Self.insert("").sql
                                try await connection.send(SQLStatement(sql: last, binds: [.text("w\(index)-c")]))
                            }
                            return (index, .success(()))
                        } catch {
                            return (index, .failure(error))
                        }
                    }
                }
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            #expect(throws: StoreError.self) { try outcomes[4]?.get() }
            if case .failure(let error as StoreError)? = outcomes[4] { #expect(error.kind == .alreadyExists) }
            #expect(throws: StoreError.self) { try outcomes[8]?.get() }
            if case .failure(let error as StoreError)? = outcomes[8] { #expect(error.kind == .database) }
            for index in 0..<writers where index != 4 && index != 8 {
                #expect(throws: Never.self, "write \(index)") { try outcomes[index]?.get() }
            }
            let stored = Set(try await database.readStatement("SELECT name FROM unawaited_probe", []).map { $0.string(0) })
            let expected = (0..<writers).filter { $0 != 4 && $0 != 8 }.flatMap { ["w\($0)-a", "w\($0)-b", "w\($0)-c"] }
            #expect(stored == Set(expected + ["taken"]))
        }
    }

    @Test("a write whose body caught a failed statement and went on fails, and commits none of its rows")
    func caughtFailureCommitsNothing() async throws {
        try await withProbeTable { database in
            await #expect(throws: StoreError.self) {
                try await database.write(serializing: "tenant-\(UUID().uuidString)") { connection in
                    try await connection.execute("INSERT INTO unawaited_probe (name) VALUES ('before')")
                    // Division by zero aborts the transaction; a body may catch the error.
                    _ = try? await connection.query("SELECT 1 / (SELECT count(*) - 1 FROM unawaited_probe)", [])
                }
            }
            let stored = try await database.readStatement("SELECT name FROM unawaited_probe", [])
            #expect(stored.isEmpty)
        }
    }

    private static func insert(_ name: String) -> SQLStatement {
        SQLStatement(sql: "INSERT INTO unawaited_probe (name) VALUES (?) RETURNING name", binds: [.text(name)])
    }

    private func withProbeTable(_ body: (PostgreSQLDatabase) async throws -> Void) async throws {
        try await withTestStore { store in
            let database = try #require(store.database as? PostgreSQLDatabase)
            try await database.write {
                try await $0.execute("CREATE TABLE unawaited_probe (name TEXT PRIMARY KEY, seen BOOLEAN NOT NULL DEFAULT false)")
            }
            try await body(database)
        }
    }
}
