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
    struct Refused: Error {}

    @Test("statements sent unawaited run in the order sent, prepared or not: each sees the rows the ones before it wrote")
    func sentInOrder() async throws {
        try await withProbeTable { database in
            let seen = try await database.write(serializing: "tenant-\(UUID().uuidString)") { connection in
                for index in 0..<50 {
                    // A prepared statement, then one sent unnamed (a list is never prepared),
                    // which must find the row the first wrote.
                    try await connection.send(Self.insert("r\(index)")) { _ in }
                    let mark = SQLStatement(
                        sql: "UPDATE unawaited_probe SET seen = true WHERE name = ANY(?) RETURNING name",
                        binds: [.textList(["r\(index)"])]
                    )
                    try await connection.send(mark) { rows in
                        guard rows.count == 1 else { throw Refused() }
                    }
                }
                return try await connection.query("SELECT count(*) FROM unawaited_probe WHERE seen", []).first?.int(0)
            }
            #expect(seen == 50)
        }
    }

    @Test("a statement sent unawaited that fails, or whose rows fail their check, fails its write alone and writes nothing of it")
    func failuresStayWithTheirWrite() async throws {
        try await withProbeTable { database in
            try await database.write { try await $0.execute("INSERT INTO unawaited_probe (name) VALUES ('taken')") }
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
                                try await connection.send(Self.insert("w\(index)-a")) { _ in }
                                // Write 4 repeats a name the table holds: the server refuses it.
                                try await connection.send(Self.insert(index == 4 ? "taken" : "w\(index)-b")) { _ in }
                                // Write 8's statement succeeds, but its rows fail the check.
                                try await connection.send(Self.insert("w\(index)-c")) { rows in
                                    if index == 8 || rows.count != 1 { throw Refused() }
                                }
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
            #expect(throws: Refused.self) { try outcomes[8]?.get() }
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
