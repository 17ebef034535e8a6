//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// `{"records": [...]}` with records, tombstones and per-record errors mixed, in request order.
public struct RecordsResponse: Encodable, Sendable {
    public var records: [RecordsResponseItem]
    public var continuationMarker: String?

    public init(records: [RecordsResponseItem], continuationMarker: String? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
    }
}

/// One element of a `records` array.
public enum RecordsResponseItem: Encodable, Sendable {
    case record(WireRecord)
    case tombstone(WireTombstone)
    case error(WireError)

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .record(let record): try record.encode(to: encoder)
        case .tombstone(let tombstone): try tombstone.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        }
    }
}

/// `{"zones": [...]}`.
public struct ZonesResponse: Encodable, Sendable {
    public var zones: [ZonesResponseItem]

    public init(zones: [ZonesResponseItem]) {
        self.zones = zones
    }
}

/// One element of a `zones` array.
public enum ZonesResponseItem: Encodable, Sendable {
    case zone(WireZone)
    case deleted(WireZoneID)
    case error(WireError)

    private struct Deleted: Encodable {
        var zoneID: WireZoneID
        var deleted = true
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .zone(let zone): try zone.encode(to: encoder)
        case .deleted(let zoneID): try Deleted(zoneID: zoneID).encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        }
    }
}

/// A zone dictionary: `{zoneID, syncToken, atomic}`.
public struct WireZone: Encodable, Sendable {
    public var zoneID: WireZoneID
    public var syncToken: String
    public var atomic: Bool

    public init(zoneID: ZoneID, syncToken: String, atomic: Bool) {
        self.zoneID = WireZoneID(zoneID)
        self.syncToken = syncToken
        self.atomic = atomic
    }
}

/// `users/current`: the legacy user dictionary.
public struct WireUser: Encodable, Sendable {
    public var userRecordName: String
    public var firstName: String?
    public var lastName: String?

    public init(_ user: UserIdentity) {
        userRecordName = user.userRecordName
        let parts = user.name.split(separator: " ", maxSplits: 1).map(String.init)
        firstName = parts.first
        lastName = parts.count > 1 ? parts[1] : nil
    }
}

/// `users/caller`: `{"users": [identity]}`, with the identity's keys also at the top level for
/// clients that expect a bare identity.
public struct WireCallerResponse: Encodable, Sendable {
    public struct Identity: Encodable, Sendable {
        public struct NameComponents: Encodable, Sendable {
            public var givenName: String?
            public var familyName: String?
        }

        public struct LookupInfo: Encodable, Sendable {
            public var emailAddress: String?
            public var phoneNumber: String?
            public var userRecordName: String
        }

        public var userRecordName: String
        public var nameComponents: NameComponents
        public var lookupInfo: LookupInfo
    }

    public var users: [Identity]
    public var userRecordName: String
    public var nameComponents: Identity.NameComponents
    public var lookupInfo: Identity.LookupInfo

    public init(_ user: UserIdentity) {
        let legacy = WireUser(user)
        let identity = Identity(
            userRecordName: user.userRecordName,
            nameComponents: .init(givenName: legacy.firstName, familyName: legacy.lastName),
            lookupInfo: .init(emailAddress: user.emailAddress, phoneNumber: user.phoneNumber, userRecordName: user.userRecordName))
        users = [identity]
        userRecordName = identity.userRecordName
        nameComponents = identity.nameComponents
        lookupInfo = identity.lookupInfo
    }
}
