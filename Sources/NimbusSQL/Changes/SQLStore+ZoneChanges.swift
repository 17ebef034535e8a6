//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore {
    public func zoneChanges(_ request: ZoneChangesRequest) async throws -> ZoneChanges {
        let tenant = request.tenant
        let zoneName = request.zoneName
        let dialect = database.dialect
        let codec = RecordRowCodec(cipher: cipher, tenant: tenant, zoneName: zoneName)
        return try await database.read { connection in
            // The zone row and the records come from one snapshot: the zone's counter then covers
            // exactly the changes this read can see.
            let (zone, prunedThrough) = try await Self.feedZone(zoneName, of: tenant, on: connection)
            let zoneID = zone.zoneID
            if let after = request.after {
                guard after.incarnation == zone.incarnation else {
                    throw StoreError(.zoneRecreated, detail: "position of incarnation \(after.incarnation), zone is at \(zone.incarnation)")
                }
                // Pruned tombstones up to the initial-sync mark were never going to be sent.
                guard max(after.counter, after.initialSyncThrough) >= prunedThrough, after.counter <= zone.changeCounter else {
                    throw StoreError(.changesPruned, detail: "position \(after.counter), pruned through \(prunedThrough)")
                }
            }
            // A sync from scratch leaves out the tombstones that exist when it starts, on every
            // one of its pages: the client never had those records.
            let initialSyncThrough = request.after?.initialSyncThrough ?? zone.changeCounter
            let skipsOldTombstones = initialSyncThrough > (request.after?.counter ?? 0)
            let sql = Self.zoneChangesSQL(skipsOldTombstones: skipsOldTombstones, filtersTypes: request.recordTypes != nil, dialect: dialect)
            var binds = Self.binds(tenant, zone: zoneName) + [.integer(request.after?.counter ?? 0)]
            if skipsOldTombstones { binds.append(.integer(initialSyncThrough)) }
            if let types = request.recordTypes { binds.append(.textList(types)) }
            binds.append(.integer(Int64(request.limit) + 1))
            let rows = try await connection.query(sql, binds)

            let moreComing = rows.count > request.limit
            var changes: [RecordChange] = []
            changes.reserveCapacity(min(rows.count, request.limit))
            var last = request.after?.counter ?? 0
            let isDeleted = RecordRowCodec.columnCount
            for row in rows.prefix(request.limit) {
                if row.int(isDeleted) != 0 {
                    changes.append(.deleted(Tombstone(recordName: row.string(0), recordType: row.string(1))))
                } else {
                    changes.append(.saved(try codec.record(from: row, zoneID: zoneID)))
                }
                last = row.int(isDeleted + 1)
            }
            return ZoneChanges(
                zone: zone,
                changes: changes,
                position: ZoneChangePosition(
                    incarnation: zone.incarnation,
                    counter: moreComing ? last : zone.changeCounter,
                    initialSyncThrough: initialSyncThrough
                ),
                moreComing: moreComing
            )
        }
    }

    /// The zone a feed reads, from the reader's snapshot, with the counter through which its
    /// tombstones were pruned. The default zone exists even before its first write.
    static func feedZone(_ zoneName: String, of tenant: Tenant, on connection: any SQLConnection) async throws
        -> (zone: Zone, prunedThrough: Int64)
    {
        let rows = try await connection.query(
            """
            SELECT change_counter, incarnation, pruned_through FROM zones
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND is_deleted = 0
            """,
            binds(tenant, zone: zoneName)
        )
        let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: tenant.owner)
        if let row = rows.first {
            return (Zone(zoneID: zoneID, changeCounter: row.int(0), incarnation: row.int(1)), row.int(2))
        }
        guard zoneID.isDefaultZone else { throw StoreError(.zoneNotFound, detail: "zone \(zoneName)") }
        return (Zone(zoneID: zoneID, changeCounter: 0), 0)
    }

    /// The page query of a zone feed: the `(tenant, zone, change_counter)` index from the
    /// position on, so only changed rows are read.
    static func zoneChangesSQL(skipsOldTombstones: Bool, filtersTypes: Bool, dialect: SQLDialect) -> String {
        var sql = """
            SELECT \(RecordRowCodec.columns), is_deleted, change_counter FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND change_counter > ?
            """
        if skipsOldTombstones { sql += " AND (is_deleted = 0 OR change_counter > ?)" }
        if filtersTypes { sql += " AND " + dialect.isAmong("record_type") }
        return sql + " ORDER BY change_counter LIMIT ?"
    }
}
