//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore {
    public func databaseChanges(of tenant: Tenant, after position: Int64?, limit: Int) async throws -> DatabaseChanges {
        try await database.read { connection in
            let current =
                try await connection.query(
                    "SELECT change_counter FROM databases WHERE container = ? AND environment = ? AND owner = ?",
                    Self.binds(tenant)
                ).first?.int(0) ?? 0
            // From scratch, zones deleted before the client ever saw them are left out.
            let rows = try await connection.query(
                Self.databaseChangesSQL(fromScratch: position == nil),
                Self.binds(tenant) + [.integer(position ?? 0), .integer(Int64(limit) + 1)]
            )
            let moreComing = rows.count > limit
            let page = rows.prefix(limit)
            return DatabaseChanges(
                zones: page.map { row in
                    DatabaseChanges.ZoneChange(
                        zone: Zone(
                            zoneID: ZoneID(zoneName: row.string(0), ownerRecordName: tenant.owner),
                            changeCounter: row.int(3),
                            incarnation: row.int(4)
                        ),
                        isDeleted: row.int(1) != 0
                    )
                },
                position: moreComing ? page.last?.int(2) ?? current : current,
                moreComing: moreComing
            )
        }
    }

    /// The page query of a database feed: zones by their position in it, from the position on.
    /// From scratch, zones deleted before the client ever saw them are left out.
    static func databaseChangesSQL(fromScratch: Bool) -> String {
        """
        SELECT zone_name, is_deleted, database_counter, change_counter, incarnation FROM zones
        WHERE container = ? AND environment = ? AND owner = ? AND database_counter > ?
        \(fromScratch ? "AND is_deleted = 0" : "")
        ORDER BY database_counter LIMIT ?
        """
    }
}
