//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

extension Database {
    /// Fetches a share as it stands: its participants (those the caller may see), public
    /// permission and change tag.
    /// - Parameters:
    ///   - recordName: the share record's name; `cloudkit.zoneshare` for a zone share.
    ///   - zoneID: its zone (owner-qualified in the shared database).
    /// - Throws: `.unknownItem` when there is no such share, or the caller may not read it.
    public func fetchShare(named recordName: String = Share.zoneShareName, in zoneID: ZoneID) async throws -> ShareInfo {
        let request = RecordsLookupRequest(records: [.init(recordName: recordName)], zoneID: zoneID)
        let response = try await post("records/lookup", idempotent: true) { request.write(to: &$0) }
        guard let item = try recordItems(response).first else { throw NimbusError(.internalError, "the server did not answer for the share") }
        if WireError.isError(item) { throw WireError.nimbusError(from: item, in: zoneID) }
        return try ShareJSON.share(item, in: zoneID, at: "records[0]")
    }

    /// Saves changes to a share, as CloudKit apps change a `CKShare` and save it: its
    /// ``ShareInfo/publicPermission`` and ``ShareInfo/requestsEnabled``, the permission of each participant in
    /// ``ShareInfo/participants``, and the removal of any participant no longer listed (never
    /// the owner, who cannot be removed). `invitations` add new participants, who must accept.
    ///
    /// Only the owner (or an administrator) may change a share.
    /// - Parameters:
    ///   - share: the share as fetched or last saved, changed; its change tag must be current.
    ///   - invitations: people to add.
    /// - Returns: the share as saved, with its new change tag.
    /// - Throws: `.serverRecordChanged` when someone changed the share since it was fetched;
    ///   `.permissionFailure` for a caller who may not change it; `.badRequest` when adding
    ///   participants to a public share.
    public func save(_ share: ShareInfo, inviting invitations: [ShareInvitation] = []) async throws -> ShareInfo {
        // The participants kept, by ID with their permissions (the server removes those left
        // out, never the owner), then the new invitations.
        let kept = share.participants.map { ParticipantInput(participantID: $0.participantID, lookupInfo: nil, permission: $0.permission) }
        var change = ShareChange(publicPermission: share.publicPermission, participants: kept + invitations.map(\.participantInput))
        change.requestsEnabled = share.requestsEnabled
        let operation = RecordOperation(
            kind: .update,
            recordName: share.recordName,
            recordType: Share.recordType,
            recordChangeTag: share.recordChangeTag,
            share: change
        )
        let request = RecordsModifyRequest(operations: [operation], zoneID: share.zoneID)
        let response = try await post("records/modify", idempotent: false) { writer in request.write(to: &writer) }
        guard let item = try recordItems(response).first else { throw NimbusError(.internalError, "the server did not answer for the share") }
        if WireError.isError(item) { throw WireError.nimbusError(from: item, in: share.zoneID) }
        return try ShareJSON.share(item, in: share.zoneID, at: "records[0]")
    }

    /// Stops sharing: the owner deletes the share, and every participant loses access at once.
    /// The records stay in the owner's zone.
    /// - Throws: `.permissionFailure` outside the private database (a participant leaves with
    ///   ``leaveShare(_:)``); `.unknownItem` when there is no such share.
    public func deleteShare(_ share: ShareInfo) async throws {
        guard scope == .private else {
            throw NimbusError.permissionFailure("the owner deletes a share through the private database; a participant leaves it")
        }
        try await deleteRecord(RecordID(recordName: share.recordName, zoneID: share.zoneID))
    }
}
