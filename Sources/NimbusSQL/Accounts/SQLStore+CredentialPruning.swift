//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

extension SQLStore {
    /// The expiring credentials, each by the key a batch is deleted by: every sign-in leaves web
    /// auth tokens behind, every sign-up that was never finished a code with its name and
    /// password hash, and every address a user began to prove and never did its code; without
    /// pruning, the tables would grow for as long as the deployment runs.
    static let expiringCredentials: [(table: String, key: String)] = [
        ("web_auth_tokens", "token_hash"),
        ("sign_in_codes", "container, email"),
        ("contact_verifications", "container, user_record_name, kind, value"),
    ]

    public func pruneExpiredCredentials(expiredBefore cutoff: Int64) async throws -> Int {
        try await pruneExpiredCredentials(expiredBefore: cutoff, batchSize: Self.pruneBatchSize)
    }

    func pruneExpiredCredentials(expiredBefore cutoff: Int64, batchSize: Int) async throws -> Int {
        precondition(batchSize > 0, "a batch of no rows would never end")
        var removed = 0
        for credential in Self.expiringCredentials {
            while true {
                let count = try await database.write { connection in
                    try await connection.query(
                        Self.expiredCredentialsSQL(credential),
                        [.integer(cutoff), .integer(Int64(batchSize)), .integer(cutoff)]
                    ).count
                }
                removed += count
                if count < batchSize { break }
            }
        }
        return removed
    }

    /// Deletes a batch of a table's expired rows, found through its index on `expires_at`, so a
    /// batch holds the writer only briefly. The expiry is checked again on the rows deleted: a
    /// code saved anew, with a new expiry, between the batch's read and its delete stays.
    static func expiredCredentialsSQL(_ credential: (table: String, key: String)) -> String {
        """
        DELETE FROM \(credential.table) WHERE (\(credential.key)) IN (
            SELECT \(credential.key) FROM \(credential.table) WHERE expires_at < ? ORDER BY expires_at LIMIT ?)
          AND expires_at < ?
        RETURNING expires_at
        """
    }
}
