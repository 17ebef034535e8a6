//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// `{"records": [...]}` with records, tombstones and per-record errors mixed, in request order.
public struct RecordsResponse: WireResponse {
    /// The records, tombstones and per-record errors.
    public var records: [RecordsResponseItem]
    /// Present when more query results follow: the cursor for the next page.
    public var continuationMarker: String?

    /// Creates a records response.
    public init(records: [RecordsResponseItem], continuationMarker: String? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("records")
        writer.beginArray()
        for item in records { item.write(to: &writer, options: options) }
        writer.endArray()
        if let continuationMarker { writer.field("continuationMarker", continuationMarker) }
        writer.endObject()
    }
}

/// One element of a `records` array.
public enum RecordsResponseItem: Sendable {
    /// A record that was found or saved.
    case record(WireRecord)
    /// A record that was deleted.
    case tombstone(WireTombstone)
    /// An error about one record.
    case error(WireError)

    func write(to writer: inout JSONWriter, options: WireOptions) {
        switch self {
        case .record(let record): record.write(to: &writer, options: options)
        case .tombstone(let tombstone): tombstone.write(to: &writer, options: options)
        case .error(let error): error.write(to: &writer, options: options)
        }
    }
}

/// `{"zones": [...]}`; for the database change feeds also `syncToken` and `moreComing`.
public struct ZonesResponse: WireResponse {
    /// The zones, deleted zones and per-zone errors.
    public var zones: [ZonesResponseItem]
    /// For `changes/database` and `zones/changes`: resumes the feed after this page.
    public var syncToken: String?
    /// For `changes/database` and `zones/changes`: whether more changes follow.
    public var moreComing: Bool?

    /// Creates a zones response.
    public init(zones: [ZonesResponseItem], syncToken: String? = nil, moreComing: Bool? = nil) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("zones")
        writer.beginArray()
        for item in zones {
            switch item {
            case .zone(let zone):
                writer.beginObject()
                writer.key("zoneID")
                WireZoneID(zone.zoneID).write(to: &writer, options: options)
                if let syncToken = zone.syncToken { writer.field("syncToken", syncToken) }
                writer.key("atomic")
                writer.bool(zone.atomic)
                writer.endObject()
            case .deleted(let zoneID):
                writer.beginObject()
                writer.key("zoneID")
                WireZoneID(zoneID).write(to: &writer, options: options)
                writer.key("deleted")
                writer.bool(true)
                writer.endObject()
            case .error(let error): error.write(to: &writer, options: options)
            }
        }
        writer.endArray()
        if let syncToken { writer.field("syncToken", syncToken) }
        if let moreComing {
            writer.key("moreComing")
            writer.bool(moreComing)
        }
        writer.endObject()
    }
}

/// One element of a `zones` array.
public enum ZonesResponseItem: Sendable {
    /// A zone that was found or created.
    case zone(WireZone)
    /// A zone that was deleted, written with `"deleted": true`.
    case deleted(ZoneID)
    /// An error about one zone.
    case error(WireError)
}

/// A zone dictionary: `{zoneID, syncToken, atomic}`.
public struct WireZone: Sendable {
    /// The zone's ID.
    public var zoneID: ZoneID
    /// The zone's current sync token, for fetching its changes from now on (absent in the
    /// database change feeds).
    public var syncToken: String?
    /// Whether the zone supports atomic batches (custom zones do; the default zone does not).
    public var atomic: Bool

    /// Creates a zone dictionary.
    public init(zoneID: ZoneID, syncToken: String?, atomic: Bool) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
    }
}

/// `users/current`: the legacy user dictionary.
public struct WireUser: WireResponse {
    /// The user's record name.
    public var userRecordName: String
    /// The first word of the user's name.
    public var firstName: String?
    /// The rest of the user's name after the first word, if any.
    public var lastName: String?

    /// Creates the legacy dictionary of a user, splitting the name at its first space.
    public init(_ user: UserIdentity) {
        userRecordName = user.userRecordName
        let parts = user.name.split(separator: " ", maxSplits: 1).map(String.init)
        firstName = parts.first
        lastName = parts.count > 1 ? parts[1] : nil
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.field("userRecordName", userRecordName)
        if let firstName { writer.field("firstName", firstName) }
        if let lastName { writer.field("lastName", lastName) }
        writer.endObject()
    }

    /// Writes the keys a user identity starts with: `userRecordName` and `nameComponents`.
    func writeIdentityName(to writer: inout JSONWriter) {
        writer.field("userRecordName", userRecordName)
        writer.key("nameComponents")
        writer.beginObject()
        if let firstName { writer.field("givenName", firstName) }
        if let lastName { writer.field("familyName", lastName) }
        writer.endObject()
    }
}

/// `users/caller`: `{"users": [identity]}`, with the identity's keys also at the top level for
/// clients that expect a bare identity.
public struct WireCallerResponse: WireResponse {
    /// The calling user's identity.
    public var user: UserIdentity

    /// Creates the response for a user.
    public init(_ user: UserIdentity) {
        self.user = user
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("users")
        writer.beginArray()
        writeIdentityObject(to: &writer)
        writer.endArray()
        writeIdentityKeys(to: &writer)
        writer.endObject()
    }

    private func writeIdentityObject(to writer: inout JSONWriter) {
        writer.beginObject()
        writeIdentityKeys(to: &writer)
        writer.endObject()
    }

    private func writeIdentityKeys(to writer: inout JSONWriter) {
        WireUser(user).writeIdentityName(to: &writer)
        writer.key("lookupInfo")
        writer.beginObject()
        if let email = user.emailAddress { writer.field("emailAddress", email) }
        if let phone = user.phoneNumber { writer.field("phoneNumber", phone) }
        writer.field("userRecordName", user.userRecordName)
        writer.endObject()
    }
}
