//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

extension SQLStore {
    public func pruneTombstones(deletedBefore cutoff: Int64) async throws -> Int {
        let dialect = database.dialect
        return try await database.write { connection in
            // First remember, per zone, the newest change about to be forgotten: a feed position
            // before it would otherwise silently miss a delete. The tombstone index drives both
            // statements, so live records are never scanned.
            let zones = try await connection.query(
                """
                SELECT container, environment, owner, zone_name, MAX(change_counter) FROM records
                WHERE is_deleted = 1 AND modified_at < ?
                GROUP BY container, environment, owner, zone_name
                """,
                [.integer(cutoff)]
            )
            for zone in zones {
                try await connection.execute(
                    """
                    UPDATE zones SET pruned_through = \(dialect.greatest("pruned_through", "?"))
                    WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
                    """,
                    [zone[4], zone[0], zone[1], zone[2], zone[3]]
                )
            }
            let removed = try await connection.query(
                "DELETE FROM records WHERE is_deleted = 1 AND modified_at < ? RETURNING record_name",
                [.integer(cutoff)]
            )
            return removed.count
        }
    }
}
