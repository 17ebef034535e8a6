//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore {
    public func zones(of tenant: Tenant) async throws -> [Zone] {
        let rows = try await database.readStatement(
            """
            SELECT zone_name, change_counter, incarnation FROM zones
            WHERE container = ? AND environment = ? AND owner = ? AND is_deleted = 0
            ORDER BY zone_name
            """,
            Self.binds(tenant)
        )
        var zones = rows.map {
            Zone(zoneID: ZoneID(zoneName: $0.string(0), ownerRecordName: tenant.owner), changeCounter: $0.int(1), incarnation: $0.int(2))
        }
        // The default zone exists from the start; its row is only written with its first record.
        if let index = zones.firstIndex(where: \.zoneID.isDefaultZone) {
            zones.insert(zones.remove(at: index), at: 0)
        } else {
            zones.insert(Zone(zoneID: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: tenant.owner), changeCounter: 0), at: 0)
        }
        return zones
    }

    public func zone(named name: String, of tenant: Tenant) async throws -> Zone? {
        let rows = try await database.readStatement(Self.liveZoneSQL, Self.binds(tenant, zone: name))
        if let row = rows.first { return Self.zone(name, of: tenant, from: row) }
        let zoneID = ZoneID(zoneName: name, ownerRecordName: tenant.owner)
        return zoneID.isDefaultZone ? Zone(zoneID: zoneID, changeCounter: 0) : nil
    }

    /// A live zone's row, or `nil` if there is none (the default zone has no row until its first
    /// record is written).
    static func liveZone(_ name: String, of tenant: Tenant, on connection: any SQLConnection) async throws -> Zone? {
        try await connection.query(liveZoneSQL, binds(tenant, zone: name)).first.map { zone(name, of: tenant, from: $0) }
    }

    /// Selects a live zone's counters by its key (``binds(_:zone:)``).
    private static let liveZoneSQL = """
        SELECT change_counter, incarnation FROM zones
        WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0
        """

    private static func zone(_ name: String, of tenant: Tenant, from row: SQLRow) -> Zone {
        Zone(zoneID: ZoneID(zoneName: name, ownerRecordName: tenant.owner), changeCounter: row.int(0), incarnation: row.int(1))
    }

    public func createZone(named name: String, of tenant: Tenant) async throws -> Zone {
        // The default zone always exists, with or without its row.
        if ZoneID(zoneName: name, ownerRecordName: tenant.owner).isDefaultZone {
            throw StoreError(.alreadyExists, detail: "the default zone")
        }
        let createdAt = clock.millisecondsSince1970
        let counter: (Int64, Int64) = try await database.write(serializing: Self.writeKey(tenant)) { connection in
            // A deleted zone's row stays as a tombstone; re-creating it starts a new incarnation
            // but keeps the counter growing, so change tags never repeat.
            let position = try await Self.nextDatabaseCounter(of: tenant, on: connection)
            let rows = try await connection.query(
                """
                INSERT INTO zones (container, environment, owner, zone_name, change_counter, incarnation, is_deleted, created_at,
                    database_counter)
                VALUES (?, ?, ?, ?, 1, 1, 0, ?, ?)
                ON CONFLICT (container, environment, owner, zone_name) DO UPDATE
                    SET change_counter = zones.change_counter + 1, incarnation = zones.incarnation + 1,
                        is_deleted = 0, created_at = excluded.created_at, database_counter = excluded.database_counter,
                        pruned_through = 0
                    WHERE zones.is_deleted = 1
                RETURNING change_counter, incarnation
                """,
                Self.binds(tenant, zone: name) + [.integer(createdAt), .integer(position)]
            )
            // A failed create leaves no trace: its rollback (a savepoint's, or its group's) takes
            // the counter back too.
            guard let row = rows.first else { throw StoreError(.alreadyExists, detail: "zone \(name)") }
            return (row.int(0), row.int(1))
        }
        return Zone(zoneID: ZoneID(zoneName: name, ownerRecordName: tenant.owner), changeCounter: counter.0, incarnation: counter.1)
    }

    public func deleteZone(
        named name: String,
        of tenant: Tenant,
        notice: @escaping @Sendable (_ shares: [Share]) -> ChangeNote
    ) async throws -> Bool {
        // The default zone is never deleted: it is no custom zone. (Marking its row deleted
        // would leave a zone that still takes writes, but whose feed never moves.)
        if ZoneID(zoneName: name, ownerRecordName: tenant.owner).isDefaultZone { return false }
        let dialect = database.dialect
        let quota = tenant.isPublic ? nil : try await userQuota(of: tenant.container)
        let counted = quota != nil
        let deleted = try await database.write(serializing: Self.writeKey(tenant)) { connection in
            let rows = try await connection.query(
                """
                UPDATE zones SET is_deleted = 1, change_counter = change_counter + 1
                WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0
                RETURNING change_counter
                """,
                Self.binds(tenant, zone: name)
            )
            guard let counter = rows.first?.int(0) else { return false }
            // The engine's note of the deletion, made from the shares before their rows go.
            let shareNames = try await connection.query(
                "SELECT share_name FROM shares WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?",
                Self.binds(tenant, zone: name)
            ).map { $0.string(0) }
            let shares = try await ShareRows.shares(named: shareNames, zone: name, tenant: tenant, on: connection, dialect: dialect)
            let note = notice(shares.values.sorted { $0.recordName < $1.recordName })
            try await connection.execute(
                Self.changeEventStatement(note, zone: name, of: tenant, from: counter - 1, through: counter, dialect: dialect)
            )
            // Only a delete that happened moves the database feed.
            let position = try await Self.nextDatabaseCounter(of: tenant, on: connection)
            try await connection.execute(
                "UPDATE zones SET database_counter = ? WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?",
                [.integer(position)] + Self.binds(tenant, zone: name)
            )
            // Its records no longer count against their owner's storage.
            if counted {
                try await connection.execute(
                    """
                    UPDATE storage_usage SET bytes = bytes - (
                        SELECT COALESCE(SUM(\(dialect.recordSize)), 0) FROM records
                        WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0)
                    WHERE container = ? AND environment = ? AND owner = ?
                    """,
                    Self.binds(tenant, zone: name) + [.text(tenant.container), .text(tenant.environment.rawValue), .text(tenant.owner)]
                )
            }
            try await connection.execute(
                "DELETE FROM records WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?",
                Self.binds(tenant, zone: name)
            )
            // Its shares go with it: their participants lose access at once.
            for table in ["record_references", "record_assets", "shares", "share_participants", "share_exits", "share_links", "share_requests"] {
                try await connection.execute(
                    "DELETE FROM \(table) WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?",
                    Self.binds(tenant, zone: name)
                )
            }
            return true
        }
        if deleted { changeCommitted.fire() }
        return deleted
    }
}
