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

    /// What a deletion leaves of what names the user, and why; every other table with an owner or
    /// a user column is one the deletion must empty of them.
    private static let kept: [String: String] = [
        "assets": "blobs go once no record holds them (record_assets is deleted)",
        "change_events": "the notification outbox, pruned by age",
        "server_keys": "a container's keys belong to its developer, who is never deleted this way",
        "shares": "the user's shares went with their custom zones; others' shares are their owners'",
        "share_participants": "invitations never accepted stay in their owners' shares (docs/accounts.md)",
        "share_links": "went with the custom zones whose shares they open",
        "share_exits": "went with the custom zones they record leaving",
    ]

    @Test("every table that names an owner or a user is either emptied of the user or kept for a stated reason")
    func everyTableNamingTheUserIsCovered() async throws {
        try await withTemporarySQLiteConnection { connection in
            try await SQLMigrations.migrate(connection, dialect: .sqlite)
            let naming = try connection.query(
                """
                SELECT DISTINCT m.name FROM sqlite_master m, pragma_table_info(m.name) c
                WHERE m.type = 'table' AND c.name IN ('owner', 'user_record_name')
                """,
                []
            ).map { $0.string(0) }
            let deleted = SQLStore.userDeletion(of: "_u", inContainer: "c").map { statement in
                String(statement.sql.split(separator: " ")[2])
            }
            #expect(Set(deleted).isDisjoint(with: Self.kept.keys))
            // Support reads name the user through their grant, not a column of their own.
            #expect(Set(naming) == Set(deleted).union(Self.kept.keys).subtracting(["support_reads"]))
        }
    }
}
