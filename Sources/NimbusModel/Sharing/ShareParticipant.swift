//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// One user a share names, with their role, permission and acceptance.
public struct ShareParticipant: Sendable, Hashable, Codable {
    /// The participant's stable identifier within the share.
    public var participantID: String
    /// The user, once known: at once for users found by lookup, on acceptance for placeholders.
    public var userRecordName: String?
    /// How the owner found the participant (email, phone or user record name).
    public var lookupInfo: LookupInfo?
    /// The user's name, once the participant is a known user.
    public var name: String?
    /// What the participant is to the share.
    public var role: ShareRole
    /// Whether the participant accepted.
    public var acceptance: ShareAcceptance
    /// What the participant may do with the shared records.
    public var permission: SharePermission

    /// Creates a participant.
    public init(
        participantID: String,
        userRecordName: String?,
        lookupInfo: LookupInfo?,
        name: String? = nil,
        role: ShareRole,
        acceptance: ShareAcceptance,
        permission: SharePermission
    ) {
        self.participantID = participantID
        self.userRecordName = userRecordName
        self.lookupInfo = lookupInfo
        self.name = name
        self.role = role
        self.acceptance = acceptance
        self.permission = permission
    }

    /// Whether this participant is the one a lookup names: by the lookup they were invited
    /// with, or by their user record name, compared in normal form.
    public func isInvited(by lookup: LookupInfo) -> Bool {
        let wanted = lookup.normalized
        if let lookupInfo, lookupInfo.normalized == wanted { return true }
        if case .userRecordName(let user) = wanted, let userRecordName { return user == userRecordName }
        return false
    }
}

/// What a participant is to a share.
public enum ShareRole: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user who owns the shared data.
    case owner = "OWNER"
    /// A user the owner or an administrator invited (`USER` on the wire).
    case privateUser = "PRIVATE_USER"
    /// A user who joined a public share by its URL.
    case publicUser = "PUBLIC_USER"
    /// A user who may also change the share and its participants (not the owner).
    case administrator = "ADMINISTRATOR"
}

/// Whether a participant accepted a share.
public enum ShareAcceptance: String, Sendable, Hashable, CaseIterable, Codable {
    /// Invited, not yet accepted (CloudKit's live service says `INVITED`).
    case pending = "PENDING"
    /// Accepted: the shared zone is in the participant's shared database.
    case accepted = "ACCEPTED"
    /// Left or removed: the participant has no access.
    case removed = "REMOVED"
}

/// What a participant, or the public, may do with shared records.
public enum SharePermission: String, Sendable, Hashable, CaseIterable, Comparable, Codable {
    /// Nothing (for `publicPermission`: the share is private).
    case none = "NONE"
    /// Read the shared records.
    case readOnly = "READ_ONLY"
    /// Read, change, delete and add shared records.
    case readWrite = "READ_WRITE"

    private var rank: Int {
        switch self {
        case .none: 0
        case .readOnly: 1
        case .readWrite: 2
        }
    }

    public static func < (lhs: SharePermission, rhs: SharePermission) -> Bool { lhs.rank < rhs.rank }
}
