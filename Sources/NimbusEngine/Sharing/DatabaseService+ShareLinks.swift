//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension DatabaseService {
    /// The most extra links one share may have, revoked and used ones included.
    static let maximumLinksPerShare = 100

    /// Makes an extra invitation link to a share (a Nimbus extension).
    ///
    /// The share's owner (through the private database) or an administrator (through the shared
    /// database) may. Whoever opens the link may join as a participant with `permission` until
    /// it expires, is used (`singleUse`), or is revoked.
    /// - Throws: `.badRequest` for a permission other than read-only or read-write, or an expiry
    ///   in the past; `.permissionFailure` for a participant who is not an administrator;
    ///   `.unknownItem` when the zone has no such share; `.limitExceeded` past
    ///   ``maximumLinksPerShare``.
    public func createShareLink(
        shareName: String,
        inZone zoneID: ZoneID?,
        permission: SharePermission,
        expiresAt: Int64?,
        singleUse: Bool,
        access: DatabaseAccess
    ) async throws(NimbusError) -> ShareLink {
        guard permission == .readOnly || permission == .readWrite else {
            throw .badRequest("a link's permission must be READ_ONLY or READ_WRITE")
        }
        let now = clock.millisecondsSince1970
        if let expiresAt, expiresAt <= now { throw .badRequest("expiresAt must be in the future") }
        let (target, user) = try await shareManager(of: shareName, inZone: zoneID, access: access)
        let link = ShareLink(
            shortGUID: ShareIdentifiers.shortGUID(),
            shareName: shareName,
            permission: permission,
            expiresAt: expiresAt,
            isSingleUse: singleUse,
            createdBy: user,
            createdAt: now
        )
        try await store {
            try await records.write(zone: target.zoneName, of: target.tenant) { transaction in
                guard try await transaction.shares(named: [shareName])[NameKey(shareName)] != nil else {
                    throw NimbusError(.unknownItem, "no such share")
                }
                guard try await transaction.shareLinks(of: shareName).count < Self.maximumLinksPerShare else {
                    throw NimbusError.limitExceeded("a share may have at most \(Self.maximumLinksPerShare) extra links")
                }
                try await transaction.saveShareLink(link)
            }
        }
        return link
    }

    /// The extra invitation links of a share, oldest first, for its owner or administrators.
    public func shareLinks(shareName: String, inZone zoneID: ZoneID?, access: DatabaseAccess) async throws(NimbusError) -> [ShareLink] {
        let (target, _) = try await shareManager(of: shareName, inZone: zoneID, access: access)
        return try await store { try await shares.shareLinks(of: shareName, inZone: target.zoneName, of: target.tenant) }
    }

    /// Revokes an extra invitation link: it admits nobody more; who joined through it stays.
    /// - Throws: `.unknownItem` for a link the caller does not manage (or that does not exist).
    public func revokeShareLink(shortGUID: String, access: DatabaseAccess) async throws(NimbusError) -> ShareLink {
        let container = ContainerEnvironment(container: access.caller.container, environment: access.caller.environment)
        guard let located = try await store({ try await shares.share(shortGUID: shortGUID, in: container) }), var link = located.link else {
            throw NimbusError(.unknownItem, "no invitation link has this short GUID")
        }
        let zoneID = ZoneID(zoneName: located.zoneName, ownerRecordName: access.scope == .shared ? located.tenant.owner : "")
        let target: ZoneTarget
        do {
            (target, _) = try await shareManager(of: link.shareName, inZone: zoneID, access: access)
        } catch  where [.permissionFailure, .unknownItem, .zoneNotFound].contains(error.code) {
            // A caller who does not manage the share does not learn the link exists; a store
            // failure stays what it is.
            throw NimbusError(.unknownItem, "no invitation link has this short GUID")
        }
        guard target.tenant == located.tenant else { throw NimbusError(.unknownItem, "no invitation link has this short GUID") }
        if link.revokedAt == nil { link.revokedAt = clock.millisecondsSince1970 }
        let revoked = link
        try await store {
            try await records.write(zone: target.zoneName, of: target.tenant) { transaction in try await transaction.saveShareLink(revoked) }
        }
        return revoked
    }

    /// Gives a share a new main short GUID: the old URL stops working; participants stay.
    /// - Returns: the new short GUID.
    public func rotateShareLink(shareName: String, inZone zoneID: ZoneID?, access: DatabaseAccess) async throws(NimbusError) -> String {
        let (target, _) = try await shareManager(of: shareName, inZone: zoneID, access: access)
        let shortGUID = ShareIdentifiers.shortGUID()
        try await store {
            try await records.write(zone: target.zoneName, of: target.tenant) { transaction in
                guard var share = try await transaction.shares(named: [shareName])[NameKey(shareName)] else {
                    throw NimbusError(.unknownItem, "no such share")
                }
                share.shortGUID = shortGUID
                try await transaction.saveShare(share)
            }
        }
        return shortGUID
    }

    // MARK: - Private

    /// What of a share its managers manage, in the words of refusals.
    enum ManagedPart: String {
        case links
        case requests = "requests to join"
    }

    /// The zone of a share the caller manages (its owner, or an administrator of it), and the caller.
    func shareManager(
        of shareName: String,
        inZone zoneID: ZoneID?,
        access: DatabaseAccess,
        managing part: ManagedPart = .links
    ) async throws(NimbusError) -> (ZoneTarget, String) {
        guard access.caller.kind == .user, let user = access.caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "managing a share's \(part.rawValue) needs a signed-in user")
        }
        guard access.scope != .public else { throw .permissionFailure("shares live in the private database (owners) and the shared one") }
        let target = try await target(zone: zoneID, access: access)
        if let shareAccess = target.shareAccess {
            guard let participation = shareAccess.participation(inShare: shareName) else { throw NimbusError(.unknownItem, "no such share") }
            guard participation.role == .administrator else {
                throw .permissionFailure("only the share's owner and administrators manage its \(part.rawValue)")
            }
        }
        return (target, user)
    }
}
