//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusStore
import NimbusTestSupport
import Testing

@testable import NimbusSQL

@Suite(
    "prepared statements on PostgreSQL",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts")
)
struct PostgresPreparedStatementTests {
    /// The statements this session has prepared under the store's names.
    static let preparedCount = "SELECT COUNT(*) FROM pg_prepared_statements WHERE name LIKE 'nimbus\\_%'"

    /// A database of one connection, so every statement runs on the same session.
    static func withDatabase(_ settings: String, _ body: (PostgreSQLDatabase) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-prepared-\(UUID().uuidString)")
        let url = try #require(TestDatabase(directory: directory).postgresURL) + "&pool_size=1" + settings
        let (database, _) = try await PostgreSQLDatabase.open(PostgresLocation(url: url), logger: Logger(label: "test"))
        let running = Task { await database.run() }
        defer { running.cancel() }
        try await body(database)
    }

    static func count(_ database: PostgreSQLDatabase) async throws -> Int64 {
        try await database.readStatement(preparedCount, []).first?.int(0) ?? -1
    }

    @Test(
        "a connection prepares each statement once and runs it by name after, but not one planned per run or taking a list; prepared_statements=0 prepares none"
    )
    func preparesOnce() async throws {
        try await Self.withDatabase("") { database async throws in
            for value in 1...3 {
                let rows = try await database.readStatement("SELECT ? + 1", [.integer(Int64(value))])
                #expect(rows.first?.int(0) == Int64(value) + 1)
            }
            // The addition and the count itself: once each, however often they ran.
            #expect(try await Self.count(database) == 2)
            #expect(try await Self.count(database) == 2)
            // A statement whose plan must fit its values (a record query) is never prepared,
            // nor one that takes a list, whose length its best plan depends on.
            #expect(try await database.readStatement("SELECT ? + 2", [.integer(1)], reusingPlan: false).first?.int(0) == 3)
            let list = "SELECT COUNT(*) FROM pg_class WHERE \(database.dialect.isAmong("relname::text"))"
            #expect(try await database.readStatement(list, [.textList(["pg_class", "pg_index"])]).first?.int(0) == 2)
            #expect(try await Self.count(database) == 2)
        }
        try await Self.withDatabase("&prepared_statements=0") { database async throws in
            #expect(try await database.readStatement("SELECT ? + 1", [.integer(1)]).first?.int(0) == 2)
            #expect(try await Self.count(database) == 0)
        }
    }

    @Test("the same text bound with values of other types is another statement, with parameters of those types")
    func typesArePartOfTheStatement() async throws {
        try await Self.withDatabase("") { database async throws in
            let sql = "SELECT pg_typeof(?)::text"
            #expect(try await database.readStatement(sql, [.integer(1)]).first?.string(0) == "bigint")
            #expect(try await database.readStatement(sql, [.text("a")]).first?.string(0) == "text")
            #expect(try await database.readStatement(sql, [.blob([1, 2])]).first?.string(0) == "bytea")
            #expect(try await database.readStatement(sql, [.integer(2)]).first?.string(0) == "bigint")
        }
    }

    @Test("a statement whose preparation failed is prepared again, and works once it can")
    func failedPreparationIsRetried() async throws {
        try await Self.withDatabase("") { database async throws in
            let table = "later_\(UUID().uuidString.prefix(8).lowercased())"
            await #expect(throws: StoreError.self) { try await database.readStatement("SELECT COUNT(*) FROM \(table) WHERE ? > 0", [.integer(1)]) }
            try await database.write { try await $0.execute("CREATE TABLE \(table) (id bigint)") }
            let rows = try await database.readStatement("SELECT COUNT(*) FROM \(table) WHERE ? > 0", [.integer(1)])
            #expect(rows.first?.int(0) == 0)
        }
    }

    @Test("past its capacity a connection sends statements unnamed, and they still work")
    func capacity() async throws {
        try await Self.withDatabase("&prepared_statements=2") { database async throws in
            for offset in 1...4 {
                #expect(try await database.readStatement("SELECT ? + \(offset)", [.integer(1)]).first?.int(0) == 1 + Int64(offset))
            }
            #expect(try await Self.count(database) == 2)
        }
    }
}
