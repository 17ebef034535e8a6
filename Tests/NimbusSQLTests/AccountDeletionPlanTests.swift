//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusSQL

@Suite("deleting an account in the SQL store")
struct AccountDeletionPlanTests {
    /// The deletion is one write, and on SQLite the deployment's only writer: a statement that
    /// read a whole table, or a whole container of it, would hold every other write for as long
    /// as that took. PostgreSQL runs the same text, and its B-tree, too, bounds a search only by
    /// the leading key columns it is given (version 15 has no skip scan).
    @Test("each statement reaches the user's rows through an index, past the container")
    func everyStatementSearchesAnIndex() async throws {
        try await withTemporarySQLiteConnection { connection in
            try await SQLMigrations.migrate(connection, dialect: .sqlite)
            let statements = SQLStore.userDeletion(of: "_" + String(repeating: "a", count: 32), inContainer: "c")
            #expect(statements.count == 19)
            for statement in statements {
                let plan = try connection.query("EXPLAIN QUERY PLAN " + statement.sql, statement.binds).map { $0.string(3) }
                // Sign-in codes are keyed by address and live for minutes: the one table read whole.
                if statement.sql.contains("FROM sign_in_codes ") { continue }
                #expect(!plan.isEmpty)
                for step in plan where !step.hasPrefix("LIST SUBQUERY") {
                    #expect(!step.hasPrefix("SCAN "), "\(statement.sql): \(step)")
                    // The search's key names the user (or, for support reads, the user's grants), not
                    // only the container and environment, which would leave their whole range to read.
                    let namesUser = ["owner=?", "user_record_name=?", "grant_id=?"].contains { step.contains($0) }
                    #expect(namesUser, "reads more than the user's rows: \(statement.sql): \(step)")
                }
            }
        }
    }
}
