//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

extension SQLZoneTransaction {
    func shares(named names: [String]) async throws -> [NameKey: Share] {
        try await ShareRows.shares(named: names, zone: zoneID.zoneName, tenant: tenant, on: connection, dialect: dialect)
    }

    func shareKinds() async throws -> ZoneShareKinds {
        let rows = try await connection.query(
            """
            SELECT
                EXISTS (SELECT 1 FROM shares WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
                    AND root_name IS NULL),
                EXISTS (SELECT 1 FROM shares WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
                    AND root_name IS NOT NULL)
            """,
            zoneBinds + zoneBinds
        )
        return ZoneShareKinds(hasZoneShare: rows.first?.int(0) == 1, hasRecordShares: rows.first?.int(1) == 1)
    }

    func saveShare(_ share: Share) async throws {
        knownUnheard = false
        try await ShareRows.save(share, zone: zoneID.zoneName, tenant: tenant, on: connection)
    }

    func shareLinks(of shareName: String) async throws -> [ShareLink] {
        try await ShareLinkRows.links(of: shareName, zone: zoneID.zoneName, tenant: tenant, on: connection)
    }

    func saveShareLink(_ link: ShareLink) async throws {
        knownUnheard = false
        try await ShareLinkRows.save(link, zone: zoneID.zoneName, tenant: tenant, on: connection)
    }

    func shareRequests(of shareName: String) async throws -> [ShareRequest] {
        try await ShareRequestRows.requests(of: shareName, zone: zoneID.zoneName, tenant: tenant, on: connection)
    }

    func saveShareRequest(_ request: ShareRequest) async throws {
        knownUnheard = false
        try await connection.execute(
            """
            INSERT INTO share_requests (container, environment, owner, zone_name, share_name, user_record_name, status, requested_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (container, environment, owner, zone_name, share_name, user_record_name) DO UPDATE SET
                status = excluded.status, requested_at = excluded.requested_at
            """,
            zoneBinds + [.text(request.shareName), .text(request.userRecordName), .text(request.status.rawValue), .integer(request.requestedAt)]
        )
    }

    func deleteShareRequest(of userRecordName: String, toShare shareName: String) async throws {
        knownUnheard = false
        try await connection.execute(
            """
            DELETE FROM share_requests
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND share_name = ? AND user_record_name = ?
            """,
            zoneBinds + [.text(shareName), .text(userRecordName)]
        )
    }

    func deleteShare(named name: String) async throws {
        knownUnheard = false
        try await ShareRows.delete(named: name, zone: zoneID.zoneName, tenant: tenant, on: connection)
    }

    /// One recursive walk finds the subtree (through the partial `records_by_parent` index),
    /// a second moves it: both are set-based, so a 10,000-record hierarchy is two statements.
    /// `UNION` (not `UNION ALL`) ends the walk on a parent cycle.
    func moveDescendants(of rootName: String, from oldShare: String?, to newShare: String?) async throws -> Int {
        knownUnheard = false
        let subtree = """
            WITH RECURSIVE subtree(name) AS (
                SELECT ?
                UNION
                SELECT r.record_name FROM records r JOIN subtree s ON r.parent_name = s.name
                WHERE r.container = ? AND r.environment = ? AND r.owner = ? AND r.zone_name = ?
                  AND r.parent_name IS NOT NULL AND r.is_deleted = 0 AND r.is_share_root = 0
            ),
            numbered(name, position) AS (
                SELECT name, ROW_NUMBER() OVER (ORDER BY name) FROM subtree WHERE name <> ?
            )
            """
        let walkBinds: [SQLValue] = [.text(rootName)] + zoneBinds + [.text(rootName)]
        let counted = try await connection.query("\(subtree) SELECT COUNT(*) FROM numbered", walkBinds)
        let count = counted.first?.int(0) ?? 0
        // Nothing left a share and nothing moves: no counter to spend.
        if count == 0, oldShare == nil { return 0 }
        // One counter for the root's exit, then one per moved record.
        let base = try await allocateCounters(Int(count) + 1)
        if let oldShare {
            try await connection.execute(
                """
                INSERT INTO share_exits (container, environment, owner, zone_name, share_name, change_counter, record_name)
                VALUES (?, ?, ?, ?, ?, ? + 1, ?)
                """,
                zoneBinds + [.text(oldShare), .integer(base), .text(rootName)]
            )
        }
        guard count > 0 else { return 0 }
        // Each descendant leaves the share it is in itself, which need not be the root's: a record
        // whose parent was deleted keeps the share it had, and joins the subtree of a record
        // saved later under that name. Reading the share per record keeps every departure in
        // some participant's feed.
        try await connection.execute(
            """
            \(subtree)
            INSERT INTO share_exits (container, environment, owner, zone_name, share_name, change_counter, record_name)
            SELECT r.container, r.environment, r.owner, r.zone_name, r.share_name, ? + 1 + numbered.position, r.record_name
            FROM numbered JOIN records r
              ON r.container = ? AND r.environment = ? AND r.owner = ? AND r.zone_name = ? AND r.record_name = numbered.name
            WHERE r.share_name IS NOT NULL AND r.share_name <> ?
            """,
            walkBinds + [.integer(base)] + zoneBinds + [.text(newShare ?? "")]
        )
        try await connection.execute(
            """
            \(subtree)
            UPDATE records SET share_name = ?, change_counter = ? + 1 + numbered.position
            FROM numbered
            WHERE records.container = ? AND records.environment = ? AND records.owner = ? AND records.zone_name = ?
              AND records.record_name = numbered.name
            """,
            walkBinds + [newShare.map(SQLValue.text) ?? .null, .integer(base)] + zoneBinds
        )
        return Int(count)
    }
}
