//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: ShareStore {
    public func share(shortGUID: String, in container: ContainerEnvironment?) async throws -> LocatedShare? {
        let dialect = database.dialect
        return try await database.read { connection in
            // Short GUIDs are unique across containers: the unique index answers either way.
            // The share's own link, or else an extra one.
            var rows = try await connection.query(
                "SELECT container, environment, owner, zone_name, share_name FROM shares WHERE short_guid = ?",
                [.text(shortGUID)]
            )
            var link: ShareLink?
            if rows.isEmpty {
                rows = try await connection.query(
                    "SELECT container, environment, owner, zone_name, \(ShareLinkRows.columns) FROM share_links WHERE short_guid = ?",
                    [.text(shortGUID)]
                )
                link = rows.first.flatMap { ShareLinkRows.link(from: $0, at: 4) }
                guard link != nil else { return nil }
            }
            guard let row = rows.first, let environment = Environment(rawValue: row.string(1)) else { return nil }
            let tenant = Tenant(container: row.string(0), environment: environment, owner: row.string(2))
            if let container, container.container != tenant.container || container.environment != environment { return nil }
            let zoneName = row.string(3)
            let shareName = link?.shareName ?? row.string(4)
            let shares = try await ShareRows.shares(named: [shareName], zone: zoneName, tenant: tenant, on: connection, dialect: dialect)
            return shares.values.first.map { LocatedShare(tenant: tenant, zoneName: zoneName, share: $0, link: link) }
        }
    }

    public func shares(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [NameKey: Share] {
        let dialect = database.dialect
        return try await database.read { connection in
            try await ShareRows.shares(named: names, zone: zoneName, tenant: tenant, on: connection, dialect: dialect)
        }
    }

    public func shareLinks(of shareName: String, inZone zoneName: String, of tenant: Tenant) async throws -> [ShareLink] {
        try await database.read { connection in
            try await ShareLinkRows.links(of: shareName, zone: zoneName, tenant: tenant, on: connection)
        }
    }

    public func shareRequests(of shareName: String, inZone zoneName: String, of tenant: Tenant) async throws -> [ShareRequest] {
        try await database.read { connection in
            try await ShareRequestRows.requests(of: shareName, zone: zoneName, tenant: tenant, on: connection)
        }
    }

    public func acceptedShares(of userRecordName: String, in container: ContainerEnvironment) async throws -> [Participation] {
        try await participations(
            condition: "",
            binds: [.text(container.container), .text(container.environment.rawValue), .text(userRecordName)]
        )
    }

    public func acceptedShares(of userRecordName: String, inZone zoneName: String, of tenant: Tenant) async throws -> [Participation] {
        try await participations(
            condition: "AND owner = ? AND zone_name = ?",
            binds: [.text(tenant.container), .text(tenant.environment.rawValue), .text(userRecordName), .text(tenant.owner), .text(zoneName)]
        )
    }

    public func sharesInvolving(_ userRecordName: String, in container: ContainerEnvironment) async throws -> [LocatedShare] {
        let dialect = database.dialect
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT DISTINCT owner, zone_name, share_name FROM share_participants
                WHERE container = ? AND environment = ? AND user_record_name = ?
                ORDER BY owner, zone_name, share_name
                """,
                [.text(container.container), .text(container.environment.rawValue), .text(userRecordName)]
            )
            var located: [LocatedShare] = []
            for row in rows {
                let tenant = Tenant(container: container.container, environment: container.environment, owner: row.string(0))
                let shares = try await ShareRows.shares(named: [row.string(2)], zone: row.string(1), tenant: tenant, on: connection, dialect: dialect)
                located += shares.values.map { LocatedShare(tenant: tenant, zoneName: row.string(1), share: $0) }
            }
            return located
        }
    }

    // MARK: - Private

    /// The owner's own participant rows are left out: an owner reaches their data through
    /// their private database, never their shared one.
    private func participations(condition: String, binds: [SQLValue]) async throws -> [Participation] {
        let rows = try await database.readStatement(
            """
            SELECT owner, zone_name, share_name, role, permission FROM share_participants
            WHERE container = ? AND environment = ? AND user_record_name = ? \(condition)
              AND acceptance = 'ACCEPTED' AND role <> 'OWNER'
            ORDER BY owner, zone_name, share_name
            """,
            binds
        )
        return rows.map { row in
            Participation(
                owner: row.string(0),
                zoneName: row.string(1),
                shareName: row.string(2),
                role: ShareRole(rawValue: row.string(3)) ?? .privateUser,
                permission: SharePermission(rawValue: row.string(4)) ?? .none
            )
        }
    }
}
