//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The `share_links` rows of extra invitation links.
enum ShareLinkRows {
    static let columns = "short_guid, share_name, permission, expires_at, single_use, created_by, created_at, used_by, revoked_at"

    static func link(from row: SQLRow, at start: Int = 0) -> ShareLink? {
        guard let permission = SharePermission(rawValue: row.string(start + 2)) else { return nil }
        return ShareLink(
            shortGUID: row.string(start),
            shareName: row.string(start + 1),
            permission: permission,
            expiresAt: row[start + 3].integer,
            isSingleUse: row.int(start + 4) != 0,
            createdBy: row.string(start + 5),
            createdAt: row.int(start + 6),
            usedBy: row[start + 7].text,
            revokedAt: row[start + 8].integer
        )
    }

    static func links(of shareName: String, zone zoneName: String, tenant: Tenant, on connection: any SQLConnection) async throws
        -> [ShareLink]
    {
        try await connection.query(
            """
            SELECT \(columns) FROM share_links
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND share_name = ?
            ORDER BY created_at, short_guid
            """,
            SQLStore.binds(tenant, zone: zoneName) + [.text(shareName)]
        ).compactMap { link(from: $0) }
    }

    static func save(_ link: ShareLink, zone zoneName: String, tenant: Tenant, on connection: any SQLConnection) async throws {
        try await connection.execute(
            """
            INSERT INTO share_links (container, environment, owner, zone_name, \(columns))
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (short_guid) DO UPDATE SET used_by = excluded.used_by, revoked_at = excluded.revoked_at
            """,
            SQLStore.binds(tenant, zone: zoneName) + [
                .text(link.shortGUID), .text(link.shareName), .text(link.permission.rawValue), link.expiresAt.map(SQLValue.integer) ?? .null,
                .integer(link.isSingleUse ? 1 : 0), .text(link.createdBy), .integer(link.createdAt),
                link.usedBy.map(SQLValue.text) ?? .null, link.revokedAt.map(SQLValue.integer) ?? .null,
            ]
        )
    }
}
