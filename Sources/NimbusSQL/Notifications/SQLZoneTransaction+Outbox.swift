//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusStore

extension SQLZoneTransaction {
    /// One outbox row per transaction, in the transaction: it commits with the change or not
    /// at all, so a crash after commit still leaves it for the dispatcher.
    func recordChange(_ note: ChangeNote) async throws {
        guard let (from, through) = spentCounters else { return }
        try await connection.execute(
            """
            INSERT INTO change_events (container, environment, owner, zone_name, counter_through, counter_from, body, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, \(dialect.currentTimeMilliseconds))
            """,
            // The time is taken now, under the zone's lock: a zone's rows are then in commit order.
            zoneBinds + [.integer(through), .integer(from), .text(ChangeNoteCoding.encode(note))]
        )
    }
}
