//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore {
    public func sharedZoneChanges(_ request: SharedZoneChangesRequest) async throws -> SharedZoneChanges {
        let tenant = request.tenant
        let dialect = database.dialect
        let codec = RecordRowCodec(cipher: cipher, tenant: tenant, zoneName: request.zoneName)
        return try await database.read { connection in
            let (zone, prunedThrough) = try await Self.feedZone(request.zoneName, of: tenant, on: connection)
            if let incarnation = request.incarnation, incarnation != zone.incarnation {
                throw StoreError(.zoneRecreated, detail: "position of incarnation \(incarnation), zone is at \(zone.incarnation)")
            }
            // A strand begun now leaves out what exists as tombstones or exits at its start.
            let strands = request.strands.map { strand in
                var strand = strand
                strand.initialSyncThrough = strand.initialSyncThrough ?? zone.changeCounter
                return strand
            }
            for (strand, requested) in zip(strands, request.strands) where requested.initialSyncThrough != nil {
                guard max(strand.after, strand.initialSyncThrough ?? 0) >= prunedThrough, strand.after <= zone.changeCounter else {
                    throw StoreError(.changesPruned, detail: "position \(strand.after), pruned through \(prunedThrough)")
                }
            }
            let fetch = Int64(request.limit) + 1
            var records = SharedFeedSQL(dialect: dialect, tenant: tenant, zoneName: request.zoneName)
            let recordRows = try await connection.query(
                records.recordsQuery(strands, recordTypes: request.recordTypes),
                records.binds + [.integer(fetch)]
            )
            // Exits matter only to record shares: a zone share holds every record of its zone.
            var exitRows: [SQLRow] = []
            if strands.allSatisfy({ $0.shareNames != nil }) {
                var exits = SharedFeedSQL(dialect: dialect, tenant: tenant, zoneName: request.zoneName)
                let sql = exits.exitsQuery(strands, recordTypes: request.recordTypes)
                exitRows = try await connection.query(sql, exits.binds + [.integer(fetch)])
            }

            // Merge both in counter order. Each list holds at most limit + 1 rows, so the first
            // `limit` of the merge are the first `limit` of everything.
            let isDeleted = RecordRowCodec.columnCount
            var changes: [RecordChange] = []
            var last: Int64 = 0
            var recordIndex = 0
            var exitIndex = 0
            while changes.count < request.limit, recordIndex < recordRows.count || exitIndex < exitRows.count {
                let takesExit =
                    recordIndex == recordRows.count
                    || (exitIndex < exitRows.count && exitRows[exitIndex].int(1) < recordRows[recordIndex].int(isDeleted + 1))
                if takesExit {
                    let row = exitRows[exitIndex]
                    changes.append(.deleted(Tombstone(recordName: row.string(0), recordType: row[2].text ?? "")))
                    last = row.int(1)
                    exitIndex += 1
                } else {
                    let row = recordRows[recordIndex]
                    if row.int(isDeleted) != 0 {
                        changes.append(.deleted(Tombstone(recordName: row.string(0), recordType: row.string(1))))
                    } else {
                        changes.append(.saved(try codec.record(from: row, zoneID: zone.zoneID)))
                    }
                    last = row.int(isDeleted + 1)
                    recordIndex += 1
                }
            }
            let moreComing = recordIndex < recordRows.count || exitIndex < exitRows.count
            return SharedZoneChanges(zone: zone, changes: changes, through: moreComing ? last : zone.changeCounter, moreComing: moreComing)
        }
    }

    public func sharedZoneStates(of userRecordName: String, in container: ContainerEnvironment) async throws -> [SharedZoneState] {
        try await database.read { connection in
            // One row per accepted share, with the latest change inside it and the latest exit
            // from it: index seeks on records_by_share and share_exits' key.
            let rows = try await connection.query(
                """
                SELECT p.owner, p.zone_name, p.share_name, z.change_counter, z.incarnation,
                    (SELECT MAX(r.change_counter) FROM records r
                     WHERE r.container = p.container AND r.environment = p.environment AND r.owner = p.owner
                       AND r.zone_name = p.zone_name AND r.share_name = p.share_name),
                    (SELECT MAX(e.change_counter) FROM share_exits e
                     WHERE e.container = p.container AND e.environment = p.environment AND e.owner = p.owner
                       AND e.zone_name = p.zone_name AND e.share_name = p.share_name)
                FROM share_participants p
                JOIN zones z ON z.container = p.container AND z.environment = p.environment AND z.owner = p.owner
                    AND z.zone_name = p.zone_name AND z.is_deleted = 0
                WHERE p.container = ? AND p.environment = ? AND p.user_record_name = ?
                  AND p.acceptance = 'ACCEPTED' AND p.role <> 'OWNER'
                ORDER BY p.owner, p.zone_name, p.share_name
                """,
                [.text(container.container), .text(container.environment.rawValue), .text(userRecordName)]
            )
            var states: [SharedZoneState] = []
            for row in rows {
                let zoneID = ZoneID(zoneName: row.string(1), ownerRecordName: row.string(0))
                let shareName = row.string(2)
                // A zone share opens every record: any change in the zone is the participant's.
                let latest =
                    shareName == Share.zoneShareName ? row.int(3) : max(row[5].integer ?? 0, row[6].integer ?? 0)
                if let index = states.indices.last, states[index].zone.zoneID == zoneID {
                    states[index].shareNames.append(shareName)
                    states[index].latestChange = max(states[index].latestChange, latest)
                } else {
                    states.append(
                        SharedZoneState(
                            zone: Zone(zoneID: zoneID, changeCounter: row.int(3), incarnation: row.int(4)),
                            shareNames: [shareName],
                            latestChange: latest
                        )
                    )
                }
            }
            return states
        }
    }
}

/// Builds the two queries of a participant's zone feed, collecting their binds in order.
private struct SharedFeedSQL {
    let dialect: SQLDialect
    let tenant: Tenant
    let zoneName: String
    private(set) var binds: [SQLValue] = []

    init(dialect: SQLDialect, tenant: Tenant, zoneName: String) {
        self.dialect = dialect
        self.tenant = tenant
        self.zoneName = zoneName
    }

    /// Records of the strands' shares changed after each strand's position, through
    /// records_by_share (records_by_change for a zone share).
    mutating func recordsQuery(_ strands: [ShareFeedStrand], recordTypes: [String]?) -> String {
        binds = SQLStore.binds(tenant, zone: zoneName)
        var alternatives: [String] = []
        for strand in strands {
            var condition = "change_counter > ?"
            if let names = strand.shareNames {
                condition = dialect.isAmong("share_name") + " AND " + condition
                binds.append(.textList(names))
            }
            binds.append(.integer(strand.after))
            if let mark = strand.initialSyncThrough, mark > strand.after {
                condition += " AND (is_deleted = 0 OR change_counter > ?)"
                binds.append(.integer(mark))
            }
            alternatives.append("(\(condition))")
        }
        var sql = """
            SELECT \(RecordRowCodec.columns), is_deleted, change_counter FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ?
              AND (\(alternatives.joined(separator: " OR ")))
            """
        if let recordTypes {
            sql += " AND " + dialect.isAmong("record_type")
            binds.append(.textList(recordTypes))
        }
        return sql + " ORDER BY change_counter LIMIT ?"
    }

    /// Records that left the strands' shares after each strand's position (and after its
    /// initial-sync mark: the participant never had them), unless the record is in one of the
    /// followed shares again, where its own row reports it.
    mutating func exitsQuery(_ strands: [ShareFeedStrand], recordTypes: [String]?) -> String {
        binds = SQLStore.binds(tenant, zone: zoneName)
        var alternatives: [String] = []
        var followed: [String] = []
        for strand in strands {
            let names = strand.shareNames ?? []
            followed += names
            alternatives.append("(\(dialect.isAmong("e.share_name")) AND e.change_counter > ?)")
            binds += [.textList(names), .integer(max(strand.after, strand.initialSyncThrough ?? 0))]
        }
        var sql = """
            SELECT e.record_name, e.change_counter, r.record_type FROM share_exits e
            LEFT JOIN records r ON r.container = e.container AND r.environment = e.environment AND r.owner = e.owner
                AND r.zone_name = e.zone_name AND r.record_name = e.record_name
            WHERE e.container = ? AND e.environment = ? AND e.owner = ? AND e.zone_name = ?
              AND (\(alternatives.joined(separator: " OR ")))
              AND (r.share_name IS NULL OR NOT \(dialect.isAmong("r.share_name")))
            """
        binds.append(.textList(followed))
        if let recordTypes {
            sql += " AND " + dialect.isAmong("r.record_type")
            binds.append(.textList(recordTypes))
        }
        return sql + " ORDER BY e.change_counter LIMIT ?"
    }
}
