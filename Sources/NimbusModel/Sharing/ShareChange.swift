//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// What a `records/modify` operation on a share record asks to change, beyond its fields.
///
/// Each member left `nil` keeps what the share has (or the default, on a create).
public struct ShareChange: Sendable, Hashable {
    /// For a new record share: the root record (`forRecord`).
    public var rootRecordName: String?
    /// The new public permission.
    public var publicPermission: SharePermission?
    /// The complete participant list the share should have; participants it leaves out are
    /// removed. The owner need not be listed.
    public var participants: [ParticipantInput]?
    /// Whether signed-in users who are not participants may ask to join (a Nimbus extension).
    public var requestsEnabled: Bool?

    /// Creates a share change.
    public init(rootRecordName: String? = nil, publicPermission: SharePermission? = nil, participants: [ParticipantInput]? = nil) {
        self.rootRecordName = rootRecordName
        self.publicPermission = publicPermission
        self.participants = participants
    }
}

/// A participant as a client lists it when saving a share.
public struct ParticipantInput: Sendable, Hashable {
    /// The identifier of a participant the share has, if the client knows it.
    public var participantID: String?
    /// How to find the user: email, phone or user record name.
    public var lookupInfo: LookupInfo?
    /// The role asked for; `nil` keeps the current one (`PRIVATE_USER` for new participants).
    public var role: ShareRole?
    /// The permission asked for; `nil` keeps the current one (`READ_ONLY` for new participants).
    public var permission: SharePermission?

    /// Creates a participant input.
    public init(participantID: String? = nil, lookupInfo: LookupInfo?, role: ShareRole? = nil, permission: SharePermission? = nil) {
        self.participantID = participantID
        self.lookupInfo = lookupInfo
        self.role = role
        self.permission = permission
    }
}
