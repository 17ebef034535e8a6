//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Reads and writes the `shares` and `share_participants` rows of shares.
///
/// A share's participants are kept in the order they were added (`position`), so every reader
/// lists them alike.
enum ShareRows {
    /// Returns shares of one zone by name, with every participant and the names of known users.
    static func shares(
        named names: [String],
        zone zoneName: String,
        tenant: Tenant,
        on connection: any SQLConnection,
        dialect: SQLDialect
    ) async throws -> [NameKey: Share] {
        guard !names.isEmpty else { return [:] }
        let binds = SQLStore.binds(tenant, zone: zoneName) + [.textList(names)]
        let shareRows = try await connection.query(
            """
            SELECT share_name, root_name, short_guid, public_permission, requests_enabled FROM shares
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND \(dialect.isAmong("share_name"))
            """,
            binds
        )
        var shares: [NameKey: Share] = [:]
        for row in shareRows {
            shares[NameKey(row.string(0))] = Share(
                recordName: row.string(0),
                rootRecordName: row[1].text,
                shortGUID: row.string(2),
                publicPermission: SharePermission(rawValue: row.string(3)) ?? .none,
                requestsEnabled: row.int(4) != 0
            )
        }
        guard !shares.isEmpty else { return [:] }
        let participantRows = try await connection.query(
            """
            SELECT p.share_name, p.participant_id, p.user_record_name, p.lookup_kind, p.lookup_value, p.role,
                p.permission, p.acceptance, u.name
            FROM share_participants p
            LEFT JOIN users u ON u.container = p.container AND u.user_record_name = p.user_record_name
            WHERE p.container = ? AND p.environment = ? AND p.owner = ? AND p.zone_name = ?
              AND \(dialect.isAmong("p.share_name"))
            ORDER BY p.share_name, p.position
            """,
            binds
        )
        for row in participantRows {
            shares[NameKey(row.string(0))]?.participants.append(
                ShareParticipant(
                    participantID: row.string(1),
                    userRecordName: row[2].text,
                    lookupInfo: lookupInfo(kind: row[3].text, value: row[4].text),
                    name: row[8].text,
                    role: ShareRole(rawValue: row.string(5)) ?? .privateUser,
                    acceptance: ShareAcceptance(rawValue: row.string(7)) ?? .pending,
                    permission: SharePermission(rawValue: row.string(6)) ?? .none
                )
            )
        }
        return shares
    }

    /// Creates or replaces a share and its participant list.
    static func save(_ share: Share, zone zoneName: String, tenant: Tenant, on connection: any SQLConnection) async throws {
        let zoneBinds = SQLStore.binds(tenant, zone: zoneName)
        try await connection.execute(
            """
            INSERT INTO shares (container, environment, owner, zone_name, share_name, root_name, short_guid,
                public_permission, requests_enabled)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (container, environment, owner, zone_name, share_name) DO UPDATE SET
                root_name = excluded.root_name, short_guid = excluded.short_guid,
                public_permission = excluded.public_permission, requests_enabled = excluded.requests_enabled
            """,
            zoneBinds + [
                .text(share.recordName), share.rootRecordName.map(SQLValue.text) ?? .null, .text(share.shortGUID),
                .text(share.publicPermission.rawValue), .integer(share.requestsEnabled ? 1 : 0),
            ]
        )
        try await connection.execute(
            """
            DELETE FROM share_participants
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND share_name = ?
            """,
            zoneBinds + [.text(share.recordName)]
        )
        for (position, participant) in share.participants.enumerated() {
            let lookup = lookupColumns(participant.lookupInfo)
            try await connection.execute(
                """
                INSERT INTO share_participants (container, environment, owner, zone_name, share_name, participant_id,
                    position, user_record_name, lookup_kind, lookup_value, role, permission, acceptance)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                zoneBinds + [
                    .text(share.recordName), .text(participant.participantID), .integer(Int64(position)),
                    participant.userRecordName.map(SQLValue.text) ?? .null, lookup.kind, lookup.value,
                    .text(participant.role.rawValue), .text(participant.permission.rawValue),
                    .text(participant.acceptance.rawValue),
                ]
            )
        }
    }

    /// Removes a share and its participants.
    static func delete(named name: String, zone zoneName: String, tenant: Tenant, on connection: any SQLConnection) async throws {
        // Its extra invitation links go with it.
        for table in ["shares", "share_participants", "share_links", "share_requests"] {
            try await connection.execute(
                """
                DELETE FROM \(table)
                WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND share_name = ?
                """,
                SQLStore.binds(tenant, zone: zoneName) + [.text(name)]
            )
        }
    }

    // MARK: - Private

    private static func lookupInfo(kind: String?, value: String?) -> LookupInfo? {
        guard let kind, let value else { return nil }
        switch kind {
        case "email": return .emailAddress(value)
        case "phone": return .phoneNumber(value)
        case "user": return .userRecordName(value)
        default: return nil
        }
    }

    private static func lookupColumns(_ lookup: LookupInfo?) -> (kind: SQLValue, value: SQLValue) {
        switch lookup {
        case .emailAddress(let address): (.text("email"), .text(address))
        case .phoneNumber(let number): (.text("phone"), .text(number))
        case .userRecordName(let name): (.text("user"), .text(name))
        case nil: (.null, .null)
        }
    }
}
