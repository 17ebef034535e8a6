//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A notification to write into a recipient's inbox; the store numbers it.
public struct NotificationDraft: Sendable, Hashable {
    /// The recipient.
    public var userRecordName: String
    /// The notification's stable ID (`ck.nid`).
    public var notificationID: String
    /// The device whose change caused it, which is not sent it.
    public var originDeviceID: String?
    /// The message members other than `id` and `sequence`, as one JSON object: `ck`, and `aps`
    /// where an APNs payload would have one.
    public var payload: [UInt8]
    /// The subscription's `collapseIDKey`: a device shows only the latest push of one ID.
    public var collapseID: String?

    /// Creates a draft.
    public init(userRecordName: String, notificationID: String, originDeviceID: String?, payload: [UInt8], collapseID: String? = nil) {
        self.userRecordName = userRecordName
        self.notificationID = notificationID
        self.originDeviceID = originDeviceID
        self.payload = payload
        self.collapseID = collapseID
    }
}

/// A notification in a recipient's inbox.
public struct InboxEntry: Sendable, Hashable {
    /// The container and environment.
    public var container: ContainerEnvironment
    /// The recipient.
    public var userRecordName: String
    /// Its place in the recipient's inbox: 1, 2, 3, ... without gaps.
    public var sequence: Int64
    /// The notification's stable ID.
    public var notificationID: String
    /// The device whose change caused it.
    public var originDeviceID: String?
    /// When it was written, in milliseconds since 1970.
    public var createdAt: Int64
    /// `ck` (and `aps`) as one JSON object.
    public var payload: [UInt8]
    /// The collapse ID pushes of it carry, if its subscription names one.
    public var collapseID: String?

    /// Creates an entry.
    public init(
        container: ContainerEnvironment,
        userRecordName: String,
        sequence: Int64,
        notificationID: String,
        originDeviceID: String?,
        createdAt: Int64,
        payload: [UInt8],
        collapseID: String? = nil
    ) {
        self.container = container
        self.userRecordName = userRecordName
        self.sequence = sequence
        self.notificationID = notificationID
        self.originDeviceID = originDeviceID
        self.createdAt = createdAt
        self.payload = payload
        self.collapseID = collapseID
    }
}

/// A zone by its owner, in a container environment the context gives.
public struct OwnedZone: Sendable, Hashable {
    /// The owner's user record name.
    public var owner: String
    /// The zone's name.
    public var zoneName: String

    /// Creates a zone's key.
    public init(owner: String, zoneName: String) {
        self.owner = owner
        self.zoneName = zoneName
    }
}

/// A participant of a share in a zone, as the dispatcher needs them.
public struct ZoneParticipant: Sendable, Hashable {
    /// The participant.
    public var userRecordName: String
    /// The share they accepted (``Share/zoneShareName`` for a zone share).
    public var shareName: String

    /// Creates a participant entry.
    public init(userRecordName: String, shareName: String) {
        self.userRecordName = userRecordName
        self.shareName = shareName
    }
}

/// The notification outbox and inboxes.
public protocol NotificationStore: Sendable {
    /// Runs `body` in one write transaction: taking events out of the outbox, reading what they
    /// need and writing inbox entries commit together, or not at all.
    func dispatch<Result: Sendable>(_ body: @escaping @Sendable (any NotificationTransaction) async throws -> Result) async throws -> Result

    /// Whether the outbox holds anything: a cheap read before a dispatch transaction.
    func hasPendingEvents() async throws -> Bool

    /// The recipient's inbox entries after `sequence`, oldest first, at most `limit`.
    func inbox(of userRecordName: String, in container: ContainerEnvironment, after sequence: Int64, limit: Int) async throws -> [InboxEntry]

    /// The recipient's last sequence number (0 before their first notification).
    func lastSequence(of userRecordName: String, in container: ContainerEnvironment) async throws -> Int64

    /// Removes inbox entries written before `cutoff` (milliseconds since 1970).
    func pruneInboxes(before cutoff: Int64) async throws -> Int

    /// Whether other server instances may share the store and announce their entries.
    var announcesAcrossInstances: Bool { get }

    /// Calls `receive` for every announcement another instance commits (see
    /// ``NotificationTransaction/announce(_:from:)``) until cancelled; throws when the
    /// channel is lost. Returns at once where instances cannot share a database (SQLite).
    func followAnnouncements(_ receive: @escaping @Sendable (InboxAnnouncement) -> Void) async throws
}

/// Word from a server instance that it wrote inbox entries: instances that hold connections
/// of those recipients read the entries from the inbox.
public struct InboxAnnouncement: Sendable, Hashable {
    /// The instance that wrote them.
    public var instance: String
    /// The recipients, with their container.
    public var recipients: [InboxRecipient]

    /// Creates an announcement.
    public init(instance: String, recipients: [InboxRecipient]) {
        self.instance = instance
        self.recipients = recipients
    }
}

/// A recipient in a container environment.
public struct InboxRecipient: Sendable, Hashable {
    /// The container and environment.
    public var container: ContainerEnvironment
    /// The user.
    public var userRecordName: String

    /// Creates a recipient.
    public init(container: ContainerEnvironment, userRecordName: String) {
        self.container = container
        self.userRecordName = userRecordName
    }
}

/// The dispatcher's view of the store inside one transaction.
public protocol NotificationTransaction {
    /// Takes up to `limit` events out of the outbox, oldest first: another server instance
    /// skips them, and they return should the transaction roll back. A row nothing can read
    /// is taken too, and dropped.
    ///
    /// A store may read the private databases' audiences in the same statement
    /// (``TakenEvents/audiences``): one round trip where there would be three.
    func takeEvents(limit: Int) async throws -> TakenEvents

    /// The rows the event's counters cover.
    ///
    /// - Parameter decodingFields: whether saved records come with their fields (decrypted
    ///   ones included). Without, they carry only their system fields: enough to learn who
    ///   could hear of the event, at a fraction of the cost, before reading what it changed.
    func rows(of event: ChangeEvent, decodingFields: Bool) async throws -> ChangeEventRows

    /// Who accepted a share of each of these zones, other than its owner; a zone nobody joined
    /// is absent. One read for a whole batch's zones.
    func participants(ofZones zones: Set<OwnedZone>, in container: ContainerEnvironment) async throws -> [OwnedZone: [ZoneParticipant]]

    /// The subscriptions of these users in one database.
    func subscriptions(
        of users: [String],
        scope: DatabaseScope,
        in container: ContainerEnvironment
    ) async throws -> [(userRecordName: String, subscription: Subscription)]

    /// Every query subscription on these record types in the public database, and every zone
    /// subscription there (a server-to-server key's: the zone is the public database's).
    func publicQuerySubscriptions(
        recordTypes: [String],
        in container: ContainerEnvironment
    ) async throws -> [(userRecordName: String, subscription: Subscription)]

    /// Writes the drafts into their recipients' inboxes, numbering each recipient's entries.
    func deliver(_ drafts: [NotificationDraft], in container: ContainerEnvironment) async throws -> [InboxEntry]

    /// Removes a subscription that fired once.
    func deleteSubscription(_ id: String, of subscriber: Subscriber) async throws

    /// Removes events from the outbox without taking them: one that cannot be handled.
    func finish(_ events: [ChangeEvent]) async throws

    /// Tells other instances, when the transaction commits, that these entries exist.
    func announce(_ entries: [InboxEntry], from instance: String) async throws

    /// Live records of a zone by name, for rules that read a changed record's parent.
    func records(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [String: Record]

    /// The first live record of a zone matching a query, for rules that read the recipient's
    /// own records.
    func firstRecord(matching query: Query, inZone zoneName: String, of tenant: Tenant) async throws -> Record?
}
