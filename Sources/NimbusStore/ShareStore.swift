//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Reads shares and who takes part in them, outside zone transactions.
///
/// Shares change only inside ``RecordStore/write(zone:of:_:)`` (with ``ZoneTransaction``'s
/// share methods), so a share and its share record always commit together.
public protocol ShareStore: Sendable {
    /// Returns the share with this short GUID, or whose extra invitation link has it (in any
    /// state: the caller decides what a revoked or expired link means), with the tenant and zone
    /// it lives in; `nil` if there is none (in `container`, when one is given).
    func share(shortGUID: String, in container: ContainerEnvironment?) async throws -> LocatedShare?

    /// Returns shares of a zone by record name; absent names are left out.
    func shares(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [NameKey: Share]

    /// Returns the extra invitation links of a share, oldest first.
    func shareLinks(of shareName: String, inZone zoneName: String, of tenant: Tenant) async throws -> [ShareLink]

    /// Returns the requests to join a share, oldest first.
    func shareRequests(of shareName: String, inZone zoneName: String, of tenant: Tenant) async throws -> [ShareRequest]

    /// Returns the shares a user accepted in a container environment, whoever owns them.
    func acceptedShares(of userRecordName: String, in container: ContainerEnvironment) async throws -> [Participation]

    /// Returns every share a user owns or is listed in (in any state), for operators.
    func sharesInvolving(_ userRecordName: String, in container: ContainerEnvironment) async throws -> [LocatedShare]

    /// Returns the shares of one owner's zone that a user accepted.
    func acceptedShares(of userRecordName: String, inZone zoneName: String, of tenant: Tenant) async throws -> [Participation]

    /// Returns one page of a participant's view of an owner's zone, read from one snapshot:
    /// the records of the strands' shares changed after their positions, merged with
    /// tombstones for records that left those shares (unless they are in one of them again).
    ///
    /// - Throws: ``StoreError`` `.zoneNotFound`; `.zoneRecreated` for a position in an earlier
    ///   incarnation; `.changesPruned` when changes after a strand's position were pruned.
    func sharedZoneChanges(_ request: SharedZoneChangesRequest) async throws -> SharedZoneChanges

    /// Returns, for every live zone in which a user accepted a share, where it stands for them.
    func sharedZoneStates(of userRecordName: String, in container: ContainerEnvironment) async throws -> [SharedZoneState]
}

/// A share with where it lives.
public struct LocatedShare: Sendable, Hashable {
    /// The owner's private database.
    public var tenant: Tenant
    /// The zone of the share record (and of everything it shares).
    public var zoneName: String
    /// The share.
    public var share: Share
    /// The extra invitation link the short GUID named, if it named one rather than the share.
    public var link: ShareLink?

    /// Creates a located share.
    public init(tenant: Tenant, zoneName: String, share: Share, link: ShareLink? = nil) {
        self.tenant = tenant
        self.zoneName = zoneName
        self.share = share
        self.link = link
    }
}

/// One user's accepted place in one share: what their shared database opens to them.
public struct Participation: Sendable, Hashable {
    /// The owner of the shared data.
    public var owner: String
    /// The owner's zone that holds the share.
    public var zoneName: String
    /// The share record's name (``Share/zoneShareName`` for a zone share).
    public var shareName: String
    /// The user's role in the share.
    public var role: ShareRole
    /// What the user may do with the shared records.
    public var permission: SharePermission

    /// Creates a participation.
    public init(owner: String, zoneName: String, shareName: String, role: ShareRole, permission: SharePermission) {
        self.owner = owner
        self.zoneName = zoneName
        self.shareName = shareName
        self.role = role
        self.permission = permission
    }

    /// Whether this is a whole-zone share.
    public var isZoneShare: Bool { shareName == Share.zoneShareName }
}

/// Which kinds of share a zone has: a zone with a zone share cannot also have record shares.
public struct ZoneShareKinds: Sendable, Hashable {
    /// Whether the zone has a zone share.
    public var hasZoneShare: Bool
    /// Whether any record of the zone is the root of a share.
    public var hasRecordShares: Bool

    /// Creates the summary.
    public init(hasZoneShare: Bool, hasRecordShares: Bool) {
        self.hasZoneShare = hasZoneShare
        self.hasRecordShares = hasRecordShares
    }
}
