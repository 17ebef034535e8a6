//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension DatabaseService {
    /// Asks to join a share that takes requests (`requestsEnabled`; a Nimbus extension), by its
    /// short GUID. Asking again while pending changes nothing.
    /// - Throws: `.permissionFailure` when the share takes no requests, or its owner denied the
    ///   caller's; `.badRequest` for a caller who is a participant already; `.unknownItem` for an
    ///   unknown short GUID.
    public func requestAccess(shortGUID: String, access: DatabaseAccess) async throws(NimbusError) -> ShareRequest {
        guard access.caller.kind == .user, let user = access.caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "asking to join a share needs a signed-in user")
        }
        let container = ContainerEnvironment(container: access.caller.container, environment: access.caller.environment)
        guard let located = try await store({ try await shares.share(shortGUID: shortGUID, in: container) }), located.link == nil else {
            throw NimbusError(.unknownItem, "no share has this short GUID")
        }
        guard located.share.requestsEnabled else { throw .permissionFailure("this share does not take requests to join; ask its owner") }
        if let entry = located.share.participant(userRecordName: user), entry.acceptance == .accepted || entry.role == .owner {
            throw .badRequest("you are a participant of this share already")
        }
        let shareName = located.share.recordName
        let request = ShareRequest(shareName: shareName, userRecordName: user, status: .pending, requestedAt: clock.millisecondsSince1970)
        return try await store {
            try await records.write(zone: located.zoneName, of: located.tenant) { transaction in
                if let known = try await transaction.shareRequests(of: shareName).first(where: { $0.userRecordName == user }) {
                    guard known.status == .pending else { throw NimbusError.permissionFailure("the share's owner declined your request") }
                    return known
                }
                try await transaction.saveShareRequest(request)
                return request
            }
        }
    }

    /// The requests to join a share, oldest first, for its owner or administrators.
    public func shareRequests(shareName: String, inZone zoneID: ZoneID?, access: DatabaseAccess) async throws(NimbusError) -> [ShareRequest] {
        let (target, _) = try await shareManager(of: shareName, inZone: zoneID, access: access, managing: .requests)
        return try await store { try await shares.shareRequests(of: shareName, inZone: target.zoneName, of: target.tenant) }
    }

    /// Approves a pending request: the requester becomes an accepted participant (a private
    /// user) with `permission`, and the share appears in their shared database.
    /// - Throws: `.unknownItem` when there is no pending request from that user.
    public func approveShareRequest(
        shareName: String,
        inZone zoneID: ZoneID?,
        from requester: String,
        permission: SharePermission,
        access: DatabaseAccess
    ) async throws(NimbusError) {
        guard permission == .readOnly || permission == .readWrite else {
            throw .badRequest("a participant's permission must be READ_ONLY or READ_WRITE")
        }
        let (target, manager) = try await shareManager(of: shareName, inZone: zoneID, access: access, managing: .requests)
        let stamp = ChangeStamp(timestamp: clock.millisecondsSince1970, userRecordName: manager)
        try await store {
            try await records.write(zone: target.zoneName, of: target.tenant) { transaction in
                guard try await transaction.shareRequests(of: shareName).contains(where: { $0.userRecordName == requester && $0.status == .pending }),
                    var share = try await transaction.shares(named: [shareName])[NameKey(shareName)],
                    var record = try await transaction.records(named: [shareName])[NameKey(shareName)]
                else { throw NimbusError(.unknownItem, "no pending request from this user") }
                Self.admit(
                    requester,
                    entry: share.participant(userRecordName: requester),
                    to: &share,
                    role: .privateUser,
                    permission: permission,
                    overriding: true
                )
                try await transaction.saveShare(share)
                record.modified = stamp
                _ = try await transaction.save([record])
                try await transaction.deleteShareRequest(of: requester, toShare: shareName)
                // The requester's database subscriptions hear of the zone they joined.
                try await transaction.recordChange(ChangeNote(writer: manager, deviceID: access.caller.deviceID, created: [], deleted: []))
            }
        }
    }

    /// Denies a pending request: the requester cannot ask again.
    /// - Throws: `.unknownItem` when there is no pending request from that user.
    public func denyShareRequest(shareName: String, inZone zoneID: ZoneID?, from requester: String, access: DatabaseAccess)
        async throws(NimbusError)
    {
        let (target, _) = try await shareManager(of: shareName, inZone: zoneID, access: access, managing: .requests)
        try await store {
            try await records.write(zone: target.zoneName, of: target.tenant) { transaction in
                guard var request = try await transaction.shareRequests(of: shareName).first(where: { $0.userRecordName == requester }),
                    request.status == .pending
                else { throw NimbusError(.unknownItem, "no pending request from this user") }
                request.status = .denied
                try await transaction.saveShareRequest(request)
            }
        }
    }
}
