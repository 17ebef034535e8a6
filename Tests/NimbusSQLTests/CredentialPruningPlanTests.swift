//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore
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
                    [.integer(0), .integer(10), .integer(0)]
                ).map { $0.string(3) }
                let detail = plan.joined(separator: "; ")
                #expect(detail.contains("USING INDEX \(credential.table)_by_expiry (expires_at<?)"), "\(detail)")
                // The batch's rows are then deleted by key, not every expired row read again.
                #expect(plan.first?.contains("USING INDEX sqlite_autoindex_\(credential.table)_1") == true, "\(detail)")
                #expect(!plan.contains { $0.hasPrefix("SCAN ") || $0.contains("TEMP B-TREE") }, "\(detail)")
            }
        }
    }

    @Test("pruning runs batch after batch until a short one, for every kind of credential")
    func batchesUntilNoneAreLeft() async throws {
        try await withTestStore { store in
            let cutoff: Int64 = 1_000_000
            for index in 0..<5 {
                let token = WebAuthTokenRecord(
                    hash: "t\(index)",
                    container: "c",
                    userRecordName: "_u",
                    issuedAt: 0,
                    expiresAt: cutoff - 1,
                    lifetime: cutoff - 1
                )
                try await store.addWebAuthToken(token)
            }
            for index in 0..<3 {
                let code = SignInCode(container: "c", email: "\(index)@example.com", purpose: .signUp, codeHash: "h", expiresAt: cutoff - 1)
                try await store.saveSignInCode(code)
            }
            for index in 0..<2 {
                let verification = ContactVerification(
                    container: "c",
                    userRecordName: "_u",
                    address: .emailAddress("\(index)@example.com"),
                    codeHash: "v",
                    expiresAt: cutoff - 1
                )
                try await store.saveVerification(verification)
            }
            // Batches of two: three of tokens, two of codes, two of verifications (the second
            // one empty).
            #expect(try await store.pruneExpiredCredentials(expiredBefore: cutoff, batchSize: 2) == 10)
            #expect(try await store.pruneExpiredCredentials(expiredBefore: cutoff, batchSize: 2) == 0)
        }
    }
}
