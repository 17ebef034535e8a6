//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Identifies a record zone: its name and the user record name of its owner.
///
/// Every database has the zone named ``defaultZoneName``, which always exists and cannot be
/// deleted. Custom zone names are unique per owner.
public struct ZoneID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The name CloudKit gives the zone every database starts with.
    public static let defaultZoneName = "_defaultZone"

    /// The zone's name.
    public var zoneName: String
    /// The user record name of the zone's owner.
    public var ownerRecordName: String

    /// Creates a zone ID.
    public init(zoneName: String, ownerRecordName: String) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    /// Whether this is the default zone, which is never atomic and never deleted.
    public var isDefaultZone: Bool { zoneName == Self.defaultZoneName }

    /// Whether a user record name is one of the placeholders clients send for "the caller"
    /// (`__defaultOwner__`, CloudKit's `CKCurrentUserDefaultName`, and `_defaultOwner`), in a
    /// zone's owner or a share participant's lookup.
    public static func isCallerPlaceholder(_ userRecordName: String) -> Bool {
        userRecordName == "__defaultOwner__" || userRecordName == "_defaultOwner"
    }

    public var description: String { "\(zoneName):\(ownerRecordName)" }
}

/// Zone IDs are equal when their names are the same bytes, as the stores compare them
/// (``NameKey`` says why `String`'s equality is not that).
extension ZoneID {
    public static func == (lhs: ZoneID, rhs: ZoneID) -> Bool {
        lhs.zoneName.isSameName(as: rhs.zoneName) && lhs.ownerRecordName.isSameName(as: rhs.ownerRecordName)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(NameKey(zoneName))
        hasher.combine(NameKey(ownerRecordName))
    }
}
