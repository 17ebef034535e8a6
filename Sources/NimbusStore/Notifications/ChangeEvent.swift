//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// What a write tells the notification outbox, beside the rows it changed.
public struct ChangeNote: Sendable, Hashable {
    /// The user who wrote.
    public var writer: String
    /// The device the write came from, if the client said; it is not notified of its own change.
    public var deviceID: String?
    /// Names of the records the write created (the others it saved were updated).
    public var created: Set<NameKey>
    /// The records the write deleted, as they were (unencrypted fields only): what query
    /// subscriptions match deletions against.
    public var deleted: [Record]
    /// Whether the write deleted the whole zone.
    public var zoneDeleted: Bool
    /// For a deleted zone, the participants of its shares, who lose it: their share rows go
    /// with the zone.
    public var formerParticipants: [String]

    /// Creates a note.
    public init(
        writer: String,
        deviceID: String?,
        created: Set<NameKey>,
        deleted: [Record],
        zoneDeleted: Bool = false,
        formerParticipants: [String] = []
    ) {
        self.writer = writer
        self.deviceID = deviceID
        self.created = created
        self.deleted = deleted
        self.zoneDeleted = zoneDeleted
        self.formerParticipants = formerParticipants
    }
}

/// One committed write transaction on one zone, waiting in the outbox to be turned into
/// notifications: the zone counters it spent, and its note.
public struct ChangeEvent: Sendable, Hashable {
    /// The database the zone belongs to.
    public var tenant: Tenant
    /// The zone.
    public var zoneName: String
    /// The zone counter before the write.
    public var counterFrom: Int64
    /// The last zone counter the write spent; unique in the zone, so it names the event.
    public var counterThrough: Int64
    /// The write's note.
    public var note: ChangeNote
    /// When the write committed, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates an event.
    public init(tenant: Tenant, zoneName: String, counterFrom: Int64, counterThrough: Int64, note: ChangeNote, createdAt: Int64) {
        self.tenant = tenant
        self.zoneName = zoneName
        self.counterFrom = counterFrom
        self.counterThrough = counterThrough
        self.note = note
        self.createdAt = createdAt
    }
}

/// The rows an event's counters cover, as they are now. A record changed again since is left
/// out: the later event covers it.
public struct ChangeEventRows: Sendable {
    /// A record the event saved and nobody changed since; `share` is the share it is in.
    public var saved: [Record]
    /// Records the event deleted: name, type and the share they were in.
    public var deleted: [(tombstone: Tombstone, share: String?)]
    /// Records that left a share in the event: name and the share left.
    public var exits: [(recordName: String, share: String)]

    /// Creates the rows of an event.
    public init(saved: [Record], deleted: [(tombstone: Tombstone, share: String?)], exits: [(recordName: String, share: String)]) {
        self.saved = saved
        self.deleted = deleted
        self.exits = exits
    }
}
