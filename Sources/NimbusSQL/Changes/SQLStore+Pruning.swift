//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

extension SQLStore {
    /// The most rows a pruner (of tombstones, of expired credentials) removes in one transaction,
    /// so pruning holds the writer only briefly.
    static let pruneBatchSize = 2_000

    public func pruneTombstones(deletedBefore cutoff: Int64) async throws -> Int {
        var removed = 0
        while true {
            let count = try await pruneBatch(deletedBefore: cutoff)
            removed += count
            if count < Self.pruneBatchSize { return removed }
        }
    }

    /// The oldest tombstones deleted before a time, answered by the covering tombstone index.
    static let oldestTombstonesSQL = """
        SELECT container, environment, owner, zone_name, change_counter, record_name FROM records
        WHERE is_deleted = 1 AND modified_at < ?
        ORDER BY modified_at LIMIT ?
        """

    /// Removes up to ``pruneBatchSize`` of the oldest tombstones in one transaction.
    private func pruneBatch(deletedBefore cutoff: Int64) async throws -> Int {
        let dialect = database.dialect
        return try await database.write { connection in
            // The covering tombstone index answers the query: live records are never read.
            let rows = try await connection.query(Self.oldestTombstonesSQL, [.integer(cutoff), .integer(Int64(Self.pruneBatchSize))])
            // First remember, per zone, the newest change about to be forgotten: a feed position
            // before it would otherwise silently miss a delete.
            var newest: [[SQLValue]: Int64] = [:]
            for row in rows {
                let zone = Array(row.values[0..<4])
                newest[zone] = max(newest[zone] ?? 0, row.int(4))
            }
            for (zone, counter) in newest {
                try await connection.execute(
                    """
                    UPDATE zones SET pruned_through = \(dialect.greatest("pruned_through", "?"))
                    WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
                    """,
                    [.integer(counter)] + zone
                )
            }
            for row in rows {
                try await connection.execute(
                    """
                    DELETE FROM records
                    WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND record_name = ? AND is_deleted = 1
                    """,
                    Array(row.values[0..<4]) + [row[5]]
                )
            }
            return rows.count
        }
    }
}
