//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

/// Someone to invite to a share: who, and what they may do.
public struct ShareInvitation: Sendable, Hashable {
    /// How the server finds them: an email address, a phone number or a user record name. An
    /// address with no account yet becomes a placeholder participant the server verifies later.
    public var lookupInfo: LookupInfo
    /// `.readOnly` or `.readWrite`.
    public var permission: SharePermission

    /// Creates an invitation.
    public init(_ lookupInfo: LookupInfo, permission: SharePermission = .readOnly) {
        self.lookupInfo = lookupInfo
        self.permission = permission
    }

    /// The invitation as a share save sends it: a new private participant.
    var participantInput: ParticipantInput {
        ParticipantInput(lookupInfo: lookupInfo, role: .privateUser, permission: permission)
    }
}

/// A share as its owner or a participant sees it.
public struct ShareInfo: Sendable, Hashable, Codable {
    /// The share record's name (`cloudkit.zoneshare` for a zone share).
    public var recordName: String
    /// The zone holding the share and its records, in the owner's private database.
    public var zoneID: ZoneID
    /// The share's short GUID: what invitation URLs carry and ``Container/acceptShare(shortGUID:)`` takes.
    public var shortGUID: String
    /// What anyone with the URL may do (`.none` for a private share).
    public var publicPermission: SharePermission
    /// The participants the caller may see, the owner included.
    public var participants: [ShareParticipant]
    /// The share record's change tag, for updating the share.
    public var recordChangeTag: String
    /// Whether signed-in users who are not participants may ask to join (a Nimbus extension).
    public var requestsEnabled: Bool = false
}

extension Database {
    // MARK: - Sharing

    /// Shares a whole custom zone of the private database (a `cloudkit.zoneshare`): participants
    /// who accept see every record of the zone in their shared database.
    /// - Parameters:
    ///   - zoneID: the custom zone.
    ///   - title: the title invitations show.
    ///   - publicPermission: what anyone with the URL may do; `.none` keeps the share private.
    ///   - invitations: the participants to add.
    ///
    /// Sharing a zone that is shared already returns its share as it stands (its title and
    /// public permission unchanged), after inviting those of `invitations` it does not list, so
    /// "get or create the zone's share" is one call and never takes anyone's access away.
    /// - Throws: `.permissionFailure` outside the private database or for the default zone;
    ///   `.badRequest` when adding participants to a public share.
    public func shareZone(
        _ zoneID: ZoneID,
        title: String? = nil,
        publicPermission: SharePermission = .none,
        inviting invitations: [ShareInvitation] = []
    ) async throws -> ShareInfo {
        try await saveShare(named: Share.zoneShareName, root: nil, in: zoneID, title: title, publicPermission, invitations)
    }

    /// Shares a record and the records below it (those whose `parent` chain leads to it).
    ///
    /// Sharing a record that this call shared before returns its share as it stands, after
    /// inviting those of `invitations` it does not list, as ``shareZone(_:title:publicPermission:inviting:)`` does.
    /// - Parameters:
    ///   - root: the record, as last fetched or saved (its change tag must be current).
    ///   - title: the title invitations show.
    ///   - publicPermission: what anyone with the URL may do; `.none` keeps the share private.
    ///   - invitations: the participants to add.
    /// - Throws: `.badRequest` when the record is already in a share; the errors of ``shareZone(_:title:publicPermission:inviting:)``.
    public func shareRecord(
        _ root: Record,
        title: String? = nil,
        publicPermission: SharePermission = .none,
        inviting invitations: [ShareInvitation] = []
    ) async throws -> ShareInfo {
        try await saveShare(
            named: "share-\(root.recordID.recordName)",
            root: root,
            in: root.recordID.zoneID,
            title: title,
            publicPermission,
            invitations
        )
    }

    private func saveShare(
        named name: String,
        root: Record?,
        in zoneID: ZoneID,
        title: String?,
        _ publicPermission: SharePermission,
        _ invitations: [ShareInvitation]
    ) async throws -> ShareInfo {
        var share = ShareChange(rootRecordName: root?.recordID.recordName, publicPermission: publicPermission)
        share.participants = invitations.map(\.participantInput)
        let operation = RecordOperation(
            kind: .create,
            recordName: name,
            recordType: Share.recordType,
            fields: title.map { ["cloudkit.title": FieldInput(.string($0))] } ?? [:],
            share: share
        )
        let request = RecordsModifyRequest(operations: [operation], zoneID: zoneID)
        let response = try await post("records/modify", idempotent: false) { writer in request.write(to: &writer) }
        let items = try recordItems(response)
        guard let item = items.first else { throw NimbusError(.internalError, "the server did not answer for the share") }
        guard WireError.isError(item) else { return try ShareJSON.share(item, in: zoneID, at: "records[0]") }
        let error = WireError.nimbusError(from: item, in: zoneID)
        guard error.code == .alreadyExists, case .object(let members) = item, let server = members["serverRecord"] else { throw error }
        // The share exists (this call ran before, or another device made it): it is the share
        // asked for, and only the invitations it lacks are sent, so nobody's access changes.
        let existing = try ShareJSON.share(server, in: zoneID, at: "records[0].serverRecord")
        let missing = invitations.filter { invitation in
            !existing.participants.contains { $0.acceptance != .removed && $0.isInvited(by: invitation.lookupInfo) }
        }
        return missing.isEmpty ? existing : try await save(existing, inviting: missing)
    }
}

extension Container {
    /// Accepts a share by its short GUID (`records/accept`): its zone then appears in the caller's
    /// shared database.
    /// - Returns: the accepted share and the zone to read it through ``sharedCloudDatabase``.
    /// - Throws: `.permissionFailure` when the caller is not invited to a private share;
    ///   `.unknownItem` for an unknown (or revoked) short GUID.
    public func acceptShare(shortGUID: String) async throws -> (share: ShareInfo, zoneID: ZoneID) {
        let request = RecordsResolveRequest(shortGUIDs: [.init(value: shortGUID)])
        let response = try await perform("records/accept", in: .shared, body: request.jsonBody, idempotent: true)
        let answer = try serverAnswer { () throws(NimbusError) in try ShareMetadataResponse(json: response) }
        switch answer.results.first {
        case .metadata(let metadata)?:
            return (ShareJSON.share(metadata.share, details: metadata.share.shareDetails), metadata.zoneID)
        case .error(let error)?:
            throw error.nimbusError
        case nil:
            throw NimbusError(.internalError, "the server's records/accept response has no results")
        }
    }
}

extension Database {
    /// Leaves a share the caller accepted: deletes it through the shared database, which for a
    /// participant removes only their own access. Its zone then drops out of the caller's shared
    /// database.
    /// - Parameter share: the share, as ``Container/acceptShare(shortGUID:)`` returned it.
    /// - Throws: `.permissionFailure` outside the shared database.
    public func leaveShare(_ share: ShareInfo) async throws {
        try await leaveShare(named: share.recordName, in: share.zoneID)
    }

    /// Leaves a share the caller accepted, by its record name and its owner-qualified zone.
    /// - Throws: `.permissionFailure` outside the shared database; `.unknownItem` for a share the
    ///   caller is not in.
    public func leaveShare(named recordName: String = Share.zoneShareName, in zoneID: ZoneID) async throws {
        guard scope == .shared else {
            throw NimbusError.permissionFailure("leave a share through the shared database; its owner deletes it instead")
        }
        try await deleteRecord(RecordID(recordName: recordName, zoneID: zoneID))
    }
}
