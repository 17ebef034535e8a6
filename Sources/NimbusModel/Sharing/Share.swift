//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A share: the record that opens a record hierarchy or a whole zone to other users.
///
/// The share record itself is an ordinary record of the owner's zone (type recordType,
/// fields such as `cloudkit.title`); this value holds what only shares have. A record share
/// covers its root and every record whose `parent` chain leads to it, up to the next root of
/// another share; a zone share (record name zoneShareName) covers every record of its zone.
public struct Share: Sendable, Hashable {
    /// The record type of every share record, as Nimbus writes it.
    public static let recordType = "cloudkit.share"
    /// The record name of a zone share; a zone has at most one.
    public static let zoneShareName = "cloudkit.zoneshare"
    /// The share record's field holding its title, shown in invitations.
    public static let titleField: NameKey = "cloudkit.title"

    /// The share record's name.
    public var recordName: String
    /// The root of a record share; `nil` for a zone share.
    public var rootRecordName: String?
    /// The share's public identifier, the last part of its URL.
    public var shortGUID: String
    /// What anyone signed in who has the URL may do after accepting.
    public var publicPermission: SharePermission
    /// Everyone the share names: the owner, invited users and users who joined by URL.
    public var participants: [ShareParticipant]
    /// Whether a signed-in user who is not a participant may ask to join (Nimbus extension).
    public var requestsEnabled: Bool

    /// Creates a share.
    public init(
        recordName: String,
        rootRecordName: String?,
        shortGUID: String,
        publicPermission: SharePermission = .none,
        participants: [ShareParticipant] = [],
        requestsEnabled: Bool = false
    ) {
        self.recordName = recordName
        self.rootRecordName = rootRecordName
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.participants = participants
        self.requestsEnabled = requestsEnabled
    }

    /// Whether the share covers a whole zone.
    public var isZoneShare: Bool { rootRecordName == nil }

    /// The owner's participant entry.
    public var owner: ShareParticipant? { participants.first { $0.role == .owner } }

    /// The participant entry of a user, if the share names them.
    public func participant(userRecordName: String) -> ShareParticipant? {
        participants.first { $0.userRecordName == userRecordName }
    }

    /// Whether a record type names a share (CloudKit's own example spells it `cloudKit.share`).
    ///
    /// Any ASCII case counts. Compared byte by byte, without making a lowercased copy: the
    /// server and the SDK ask this of every record they save.
    public static func isShareType(_ recordType: String) -> Bool {
        let expected = Self.recordType.utf8
        guard recordType.utf8.count == expected.count else { return false }
        return zip(recordType.utf8, expected).allSatisfy { byte, wanted in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == wanted
        }
    }
}

extension Record {
    /// On a share record: the share's title (``Share/titleField``), if it has one.
    public var shareTitle: String? {
        if case .string(let title)? = fields[Share.titleField] { return title }
        return nil
    }
}
