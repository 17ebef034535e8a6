//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

extension SQLZoneTransaction {
    /// One outbox row per transaction, in the transaction: it commits with the change or not
    /// at all, so a crash after commit still leaves it for the dispatcher.
    func recordChange(_ note: ChangeNote) async throws {
        guard let (from, through) = spentCounters, needsOutboxRow(note) else { return }
        try await connection.execute(
            SQLStore.changeEventStatement(note, zone: zoneID.zoneName, of: tenant, from: from, through: through, dialect: dialect)
        )
        recordedChange = true
    }

    /// Whether the dispatcher could tell anyone of `note`: not if the transaction read that
    /// nobody listens (``knownUnheard``), unless participants left a share (their shared
    /// database changed) or the zone went.
    func needsOutboxRow(_ note: ChangeNote) -> Bool {
        !knownUnheard || note.zoneDeleted || !note.formerParticipants.isEmpty
    }
}

extension SQLStore {
    /// The statement that writes an outbox row. Its time is taken by the database as the row is
    /// written, under the zone's lock, so a zone's rows are in commit order.
    static func changeEventStatement(
        _ note: ChangeNote,
        zone zoneName: String,
        of tenant: Tenant,
        from: Int64,
        through: Int64,
        dialect: SQLDialect
    ) -> SQLStatement {
        SQLStatement(
            sql: """
                INSERT INTO change_events (container, environment, owner, zone_name, counter_through, counter_from, body, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, \(dialect.currentTimeMilliseconds))
                """,
            binds: binds(tenant, zone: zoneName) + [.integer(through), .integer(from), .text(ChangeNoteCoding.encode(note))]
        )
    }
}
