//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SQLStore: RecordStore {
    public func records(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [NameKey: Record] {
        let dialect = database.dialect
        let codec = RecordRowCodec(cipher: cipher, tenant: tenant, zoneName: zoneName)
        let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: tenant.owner)
        // One statement answers both "does the zone exist" and "which records does it hold", in
        // one snapshot: its first column says whether the zone is live, and the records come
        // joined to a single anchor row, so a live zone without the records still answers a row.
        // The default zone always exists, even before its row does.
        let membership = names.count <= 1 ? "r.record_name = ?" : dialect.isAmong("r.record_name")
        let rows = try await database.readStatement(
            """
            SELECT (SELECT 1 FROM zones
                    WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0) AS zone_live,
                   \(RecordRowCodec.columnsOfAliasR)
            FROM (SELECT 1 AS anchor) AS one
            LEFT JOIN records AS r
              ON r.container = ? AND r.environment = ? AND r.owner = ? AND r.zone_name = ? AND r.is_deleted = 0
             AND \(membership)
            """,
            Self.binds(tenant, zone: zoneName) + Self.binds(tenant, zone: zoneName)
                + [names.count == 1 ? .text(names[0]) : names.isEmpty ? .null : .textList(names)]
        )
        if !zoneID.isDefaultZone, case .null? = rows.first?[0] {
            throw StoreError(.zoneNotFound, detail: "zone \(zoneName)")
        }
        var records: [NameKey: Record] = [:]
        for row in rows {
            if case .null = row[1] { continue }
            let record = try codec.record(from: SQLRow(values: Array(row.values.dropFirst())), zoneID: zoneID)
            records[NameKey(record.recordID.recordName)] = record
        }
        return records
    }

    public func write<Result: Sendable>(
        zone zoneName: String,
        of tenant: Tenant,
        _ body: @escaping @Sendable (any ZoneTransaction) async throws -> Result
    ) async throws -> Result {
        let createdAt = clock.millisecondsSince1970
        let dialect = database.dialect
        let codec = RecordRowCodec(cipher: cipher, tenant: tenant, zoneName: zoneName)
        // The public database has no per-user quota.
        let quota = tenant.isPublic ? nil : try await userQuota(of: tenant.container)
        let (result, recordedChange) = try await database.write(serializing: Self.writeKey(tenant)) { connection in
            let checking = ZoneCheckingConnection(
                connection,
                zone: ZoneID(zoneName: zoneName, ownerRecordName: tenant.owner),
                of: tenant,
                createdAt: createdAt
            )
            let transaction = SQLZoneTransaction(
                tenant: tenant,
                connection: checking,
                dialect: dialect,
                codec: codec,
                startedAt: createdAt,
                quota: quota
            )
            let result = try await body(transaction)
            // A body that sent no statement has not checked the zone yet: a write to a zone that
            // is not there fails all the same.
            _ = try await checking.checkedZone()
            try await transaction.settleStorage()
            return (result, transaction.recordedChange)
        }
        if recordedChange { changeCommitted.fire() }
        return result
    }

    static func liveRecords(
        named names: [String],
        zone zoneName: String,
        tenant: Tenant,
        on connection: any SQLConnection,
        dialect: SQLDialect,
        codec: RecordRowCodec
    ) async throws -> [String: Record] {
        // A single name (the common case) needs no JSON list to bind.
        let membership = names.count == 1 ? "record_name = ?" : dialect.isAmong("record_name")
        let rows = try await connection.query(
            """
            SELECT \(RecordRowCodec.columns) FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0
              AND \(membership)
            """,
            binds(tenant, zone: zoneName) + [names.count == 1 ? .text(names[0]) : .textList(names)]
        )
        let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: tenant.owner)
        var records: [String: Record] = [:]
        for row in rows {
            let record = try codec.record(from: row, zoneID: zoneID)
            records[record.recordID.recordName] = record
        }
        return records
    }
}
