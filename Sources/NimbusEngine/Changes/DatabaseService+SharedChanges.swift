//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The shared database's change feeds: each participant's own view of the zones shared with
/// them, read from the owners' zones (there are no copies) and filtered to the shares they
/// accepted.
extension DatabaseService {
    /// A page of the participant's view of an owner's zone.
    ///
    /// Records of the accepted shares come as in the owner's feed; a record that moves out of
    /// them (or whose share is deleted) comes as a tombstone. A share accepted after the
    /// participant's token was issued is fetched from its beginning within the same feed. A
    /// token that follows a share the participant no longer has is refused as expired: the
    /// client must drop its copy of the zone and sync it from scratch, as it would after
    /// losing the whole zone.
    func sharedFeedPage(_ query: ZoneFeedQuery, limit: Int, access: DatabaseAccess) async throws(NimbusError) -> RecordChangesPage {
        let target = try await target(zone: query.zoneID, access: access)
        guard let shareAccess = target.shareAccess, let reader = access.caller.userRecordName else { throw NimbusError.zoneNotFound }
        let zoneID = ZoneID(zoneName: target.zoneName, ownerRecordName: target.tenant.owner)
        let scope = SyncTokens.ZoneScope(
            container: target.tenant.container,
            environment: target.tenant.environment,
            database: .shared,
            zoneID: zoneID,
            reader: reader
        )
        let tokens = SyncTokens(sealer: sealer)
        let following = shareAccess.readableShares
        var position = SharedZonePosition(incarnation: 0, strands: [])
        var incarnation: Int64?
        if let token = query.syncToken {
            position = try tokens.sharedZonePosition(token, scope: scope)
            incarnation = position.incarnation
            let followed = position.followedShares
            guard followed.isSubset(of: following.map(Set.init) ?? [Share.zoneShareName]) else {
                throw NimbusError(
                    .changeTokenExpired,
                    "syncToken follows a share you no longer take part in; drop your copy of this zone and sync it from scratch by leaving out syncToken"
                )
            }
            if let following {
                let added = Set(following).subtracting(followed)
                if !added.isEmpty { position.strands.append(ShareFeedStrand(shareNames: added.sorted(), after: 0, initialSyncThrough: nil)) }
            }
        } else {
            position.strands = [ShareFeedStrand(shareNames: following, after: 0, initialSyncThrough: nil)]
        }
        let strands = position.strands
        let page = try await store {
            try await shares.sharedZoneChanges(
                SharedZoneChangesRequest(
                    tenant: target.tenant,
                    zoneName: target.zoneName,
                    incarnation: incarnation,
                    strands: strands,
                    limit: limit,
                    recordTypes: query.recordTypes
                )
            )
        }
        position.incarnation = page.zone.incarnation
        let next = position.advanced(through: page.through, zoneCounter: page.zone.changeCounter)
        return RecordChangesPage(
            zoneID: zoneID,
            changes: try await withShareDetails(page.changes, in: target, reader: reader),
            syncToken: tokens.sharedZoneToken(next, scope: scope),
            moreComing: page.moreComing
        )
    }

    /// A page of the participant's shared database feed: zones that appeared or changed for
    /// them, and zones they lost (left, removed, unshared, or deleted by the owner).
    ///
    /// The token holds, per zone, a stamp of how it stood for the participant; a page lists the
    /// zones whose stamp differs now, so accepting, leaving and every change inside the
    /// accepted shares show up without any write per participant.
    func sharedDatabaseChanges(after syncToken: String?, limit: Int, access: DatabaseAccess, tenant: Tenant) async throws(NimbusError)
        -> DatabaseChangesPage
    {
        let tokens = SyncTokens(sealer: sealer)
        let scope = SyncTokens.databaseScope(container: tenant.container, environment: tenant.environment, database: .shared, owner: tenant.owner)
        var known = try syncToken.map { (token) throws(NimbusError) in try tokens.sharedDatabasePosition(token, scope: scope) } ?? [:]
        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        let states = try await store { try await shares.sharedZoneStates(of: tenant.owner, in: container) }

        var differences: [(ZoneID, DatabaseChangesPage.ZoneChange, String?)] = []
        var current: Set<ZoneID> = []
        for state in states {
            current.insert(state.zone.zoneID)
            let stamp = SyncTokens.sharedZoneStamp(state)
            if known[state.zone.zoneID] != stamp { differences.append((state.zone.zoneID, .changed(state.zone), stamp)) }
        }
        for zoneID in known.keys where !current.contains(zoneID) { differences.append((zoneID, .deleted(zoneID), nil)) }
        differences.sort { ($0.0.ownerRecordName, $0.0.zoneName) < ($1.0.ownerRecordName, $1.0.zoneName) }

        let page = differences.prefix(limit)
        for (zoneID, _, stamp) in page { known[zoneID] = stamp }
        return DatabaseChangesPage(
            zones: page.map(\.1),
            syncToken: tokens.sharedDatabaseToken(known, scope: scope),
            moreComing: differences.count > limit
        )
    }
}
