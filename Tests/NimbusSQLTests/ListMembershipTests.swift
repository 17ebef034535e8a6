//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusTestSupport
import Testing

@testable import NimbusSQL

/// `SQLDialect.isAmong` with bound lists: PostgreSQL reads them as arrays, SQLite as JSON.
@Suite("bound lists: membership on both databases")
struct ListMembershipTests {
    /// Values a list must carry unchanged: the characters of either encoding's syntax, and more.
    static let awkward = ["plain", "a,b", "{braced}", "\"quoted\"", "back\\slash", "NULL", "", " spaced ", "ünï©ødé 🎈"]

    /// Checks membership through `run`, which runs a statement with its binds.
    static func check(_ dialect: SQLDialect, _ run: (String, [SQLValue]) async throws -> [SQLRow]) async throws {
        let values = awkward.map { SQLValue.text($0) }
        let table = awkward.map { _ in "SELECT CAST(? AS TEXT) AS v" }.joined(separator: " UNION ALL ")
        let select = "SELECT v FROM (\(table)) AS t WHERE \(dialect.isAmong("v")) ORDER BY v"
        let all = try await run(select, values + [.textList(awkward.reversed() + ["absent"])]).map { $0.string(0) }
        #expect(all.sorted() == awkward.sorted())
        #expect(try await run(select, values + [.textList(["a,b", "\"quoted\""])]).map { $0.string(0) }.sorted() == ["\"quoted\"", "a,b"])
        #expect(try await run(select, values + [.textList([])]).isEmpty)
        let numbers = "SELECT n FROM (SELECT 1 AS n UNION ALL SELECT 2 UNION ALL SELECT 3) AS t WHERE \(dialect.isAmong("n")) ORDER BY n"
        #expect(try await run(numbers, [.integerList([3, 1, 7])]).map { $0.int(0) } == [1, 3])
    }

    @Test("SQLite: text and integer lists, with every character either encoding treats specially")
    func sqlite() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-lists-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let connection = try SQLiteConnection(path: path, readOnly: false)
        defer { connection.close() }
        try await Self.check(.sqlite) { sql, binds in try connection.query(sql, binds) }
    }

    @Test(
        "PostgreSQL: text and integer lists, with every character either encoding treats specially",
        .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts")
    )
    func postgres() async throws {
        try await PostgresPreparedStatementTests.withDatabase("") { database in
            try await Self.check(.postgres) { sql, binds in try await database.readStatement(sql, binds) }
        }
    }
}
