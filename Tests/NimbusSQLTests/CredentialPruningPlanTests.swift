//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusSQL

@Suite("pruning expired credentials in the SQL store")
struct CredentialPruningPlanTests {
    /// The tables hold every sign-in ever made; a batch that read them whole would cost more as
    /// the deployment ages, in a write that on SQLite holds the only writer.
    @Test("each batch finds its expired rows through the expiry index, oldest first, without a sort")
    func batchesReadTheExpiryIndex() async throws {
        try await withTemporarySQLiteConnection { connection in
            try await SQLMigrations.migrate(connection, dialect: .sqlite)
            for credential in SQLStore.expiringCredentials {
                let plan = try connection.query(
                    "EXPLAIN QUERY PLAN " + SQLStore.expiredCredentialsSQL(credential),
                    [.integer(0), .integer(10)]
                ).map { $0.string(3) }
                let detail = plan.joined(separator: "; ")
                #expect(detail.contains("USING INDEX \(credential.table)_by_expiry (expires_at<?)"), "\(detail)")
                #expect(!plan.contains { $0.hasPrefix("SCAN ") || $0.contains("TEMP B-TREE") }, "\(detail)")
            }
        }
    }
}
