//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The zone a request addresses, after checking the caller may reach it.
struct ZoneTarget: Sendable {
    /// The database that holds the zone: the owner's private database for the shared scope.
    var tenant: Tenant
    /// The zone's name.
    var zoneName: String
    /// Through the shared database: what the caller may reach in the zone.
    var shareAccess: ShareAccess?
}

extension DatabaseService {
    /// Resolves the zone a request names, with the caller's access to it.
    ///
    /// In the shared database the zone is another user's, named by `(zoneName,
    /// ownerRecordName)`; it exists for the caller only while they have accepted a share in
    /// it. Anything else answers `.zoneNotFound`, as for a zone that does not exist.
    func target(zone zoneID: ZoneID?, access: DatabaseAccess) async throws(NimbusError) -> ZoneTarget {
        let tenant = try tenant(for: access)
        guard access.scope == .shared else {
            return ZoneTarget(tenant: tenant, zoneName: try zoneName(of: zoneID, in: tenant, access: access))
        }
        guard let zoneID, !zoneID.isDefaultZone, let user = access.caller.userRecordName,
            !zoneID.ownerRecordName.isEmpty, zoneID.ownerRecordName != user
        else { throw NimbusError.zoneNotFound }
        let owner = Tenant(container: tenant.container, environment: tenant.environment, owner: zoneID.ownerRecordName)
        let participations = try await store { try await shares.acceptedShares(of: user, inZone: zoneID.zoneName, of: owner) }
        guard !participations.isEmpty else { throw NimbusError.zoneNotFound }
        return ZoneTarget(tenant: owner, zoneName: zoneID.zoneName, shareAccess: ShareAccess(participations))
    }

    /// Gives share records their share, as the reader may see it.
    func withShareDetails(_ records: [Record], in target: ZoneTarget, reader: String?) async throws(NimbusError) -> [Record] {
        let names = records.indices.filter { Share.isShareType(records[$0].recordType) }.map { records[$0].recordID.recordName }
        guard !names.isEmpty else { return records }
        let found = try await store { try await shares.shares(named: names, inZone: target.zoneName, of: target.tenant) }
        // Changed where they lie, not copied out and back.
        var detailed = records
        for index in detailed.indices {
            guard let share = found[NameKey(detailed[index].recordID.recordName)] else { continue }
            detailed[index].shareDetails = ShareDetails.view(of: share, for: reader)
        }
        return detailed
    }

    /// Gives the share records among feed changes their share, as the reader may see it.
    func withShareDetails(_ changes: [RecordChange], in target: ZoneTarget, reader: String?) async throws(NimbusError) -> [RecordChange] {
        let saved = changes.compactMap { change -> Record? in if case .saved(let record) = change { record } else { nil } }
        guard saved.contains(where: { Share.isShareType($0.recordType) }) else { return changes }
        let detailed = try await withShareDetails(saved, in: target, reader: reader)
        let byName = Dictionary(detailed.map { (NameKey($0.recordID.recordName), $0) }) { first, _ in first }
        return changes.map { change in
            guard case .saved(let record) = change else { return change }
            return .saved(byName[NameKey(record.recordID.recordName)] ?? record)
        }
    }
}
