//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The connection a zone transaction's statements go through, which makes sure of the zone
/// before the first of them: reads its counters, writes the default zone's row on its first
/// use, and fails with `zoneNotFound` for a zone that is not there.
///
/// A write's first statement is nearly always its record read, which can ask for the zone row
/// in the same statement (``SQLZoneTransaction/records(named:)``) and hand it over with
/// ``learn(_:)``: on PostgreSQL, a round trip fewer per write. Any other first statement, or a
/// transaction that sent none (``checkedZone()``), reads the zone by itself first.
final class ZoneCheckingConnection: SQLConnection {
    let base: any SQLConnection
    let zoneID: ZoneID
    private let tenant: Tenant
    private let createdAt: Int64
    /// The zone as the transaction found it, once checked.
    private(set) var zone: Zone?

    init(_ base: any SQLConnection, zone zoneID: ZoneID, of tenant: Tenant, createdAt: Int64) {
        self.base = base
        self.zoneID = zoneID
        self.tenant = tenant
        self.createdAt = createdAt
    }

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        _ = try await checkedZone()
        return try await base.query(sql, binds)
    }

    func query(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow] {
        _ = try await checkedZone()
        return try await base.query(sql, binds, reusingPlan: reusingPlan)
    }

    func send(_ statement: SQLStatement) async throws {
        _ = try await checkedZone()
        try await base.send(statement)
    }

    /// The zone, read now if no statement has read it yet.
    func checkedZone() async throws -> Zone {
        if let zone { return zone }
        return try await learn(SQLStore.liveZone(zoneID.zoneName, of: tenant, on: base))
    }

    /// Takes the zone's live row as a statement sent through ``base`` read it; `nil`, none, is
    /// the default zone before its first record (whose row this writes) or a missing zone.
    @discardableResult
    func learn(_ live: Zone?) async throws -> Zone {
        if let live {
            zone = live
            return live
        }
        guard zoneID.isDefaultZone else { throw StoreError(.zoneNotFound, detail: "zone \(zoneID.zoneName)") }
        try await base.execute(
            """
            INSERT INTO zones (container, environment, owner, zone_name, change_counter, incarnation, is_deleted, created_at)
            VALUES (?, ?, ?, ?, 0, 1, 0, ?)
            ON CONFLICT (container, environment, owner, zone_name) DO NOTHING
            """,
            SQLStore.binds(tenant, zone: zoneID.zoneName) + [.integer(createdAt)]
        )
        let created = Zone(zoneID: zoneID, changeCounter: 0)
        zone = created
        return created
    }
}
