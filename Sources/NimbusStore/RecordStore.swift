//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Stores zones and records of every tenant.
///
/// Reads see committed data only. Writes to a zone happen inside ``write(zone:of:_:)``, which
/// serialises writers of that zone: a write's change counters are therefore allocated in commit
/// order, so a reader can never see a counter value and later find a smaller one committed.
public protocol RecordStore: Sendable {
    /// Fires after every commit that put a change in the notification outbox: a zone write
    /// that called ``ZoneTransaction/recordChange(_:)``, or a zone deletion. It is the store's
    /// commit hook, so no writer can forget to wake the notification dispatcher.
    var changeCommitted: ChangeSignal { get }

    /// Returns the tenant's live zones, the default zone first (it always exists).
    func zones(of tenant: Tenant) async throws -> [Zone]

    /// Returns a live zone, or `nil` if there is none of that name. The default zone always exists.
    func zone(named name: String, of tenant: Tenant) async throws -> Zone?

    /// Creates a custom zone.
    /// - Throws: ``StoreError`` `.alreadyExists` if a live zone has that name.
    func createZone(named name: String, of tenant: Tenant) async throws -> Zone

    /// Deletes a custom zone and every record in it; returns `false` if there was no such zone.
    ///
    /// The deletion goes into the notification outbox with the note `notice` makes from the
    /// zone's shares as they were (with every participant), read in the same transaction: the
    /// engine decides who hears of it.
    func deleteZone(
        named name: String,
        of tenant: Tenant,
        notice: @escaping @Sendable (_ shares: [Share]) -> ChangeNote
    ) async throws -> Bool

    /// Returns the live records of a zone with the given names, by name; absent names are left out.
    /// - Throws: ``StoreError`` `.zoneNotFound` if the zone does not exist.
    func records(named names: [String], inZone zoneName: String, of tenant: Tenant) async throws -> [NameKey: Record]

    /// Runs `body` as one transaction on a zone: everything it writes commits together or not at all.
    ///
    /// The body may run on another task than the caller's: a store may run the bodies of
    /// concurrent writers together and commit them at once (group commit). It may also run more
    /// than once (when a body grouped with it fails, or the database aborts a transaction that
    /// collided with another), so it must do nothing but work on the transaction.
    /// - Throws: ``StoreError`` `.zoneNotFound` if the zone does not exist; whatever `body` throws.
    func write<Result: Sendable>(
        zone zoneName: String,
        of tenant: Tenant,
        _ body: @escaping @Sendable (any ZoneTransaction) async throws -> Result
    ) async throws -> Result

    /// Returns one page of a query's results, in the query's order.
    func query(_ query: RecordQuery) async throws -> [Record]

    /// How many records match a query's filters (its sort, limit and position do not count).
    func count(_ query: RecordQuery) async throws -> Int

    /// Returns one page of a zone's change feed, read from one snapshot.
    ///
    /// - Throws: ``StoreError`` `.zoneNotFound`; `.zoneRecreated` if the position belongs to an
    ///   earlier incarnation of the zone; `.changesPruned` if tombstones after the position have
    ///   been pruned (or the position is ahead of the zone, as after a restore from backup).
    func zoneChanges(_ request: ZoneChangesRequest) async throws -> ZoneChanges

    /// Returns the zones of a tenant that changed after `position` (`nil`: every live zone),
    /// at most `limit` of them, in the order of their latest change.
    func databaseChanges(of tenant: Tenant, after position: Int64?, limit: Int) async throws -> DatabaseChanges

    /// Removes the tombstones of records deleted before `cutoff` (milliseconds since 1970) and
    /// remembers, per zone, the last change removed, so positions before it are refused.
    /// Returns how many tombstones were removed.
    func pruneTombstones(deletedBefore cutoff: Int64) async throws -> Int
}

/// The operations available inside a zone write transaction. It must not escape its closure.
public protocol ZoneTransaction {
    /// The zone being written, as of the start of the transaction.
    func zone() async throws -> Zone

    /// Returns live records of this zone by name.
    func records(named names: [String]) async throws -> [NameKey: Record]

    /// Returns which of `names` are the parent of a live record of this zone: a record created
    /// under such a name adopts records left behind by a deleted parent of that name.
    func parentsOfLiveRecords(among names: [String]) async throws -> Set<String>

    /// Returns the references held by live records of this zone that point at the given records.
    func referrers(to targetNames: [String]) async throws -> [ReferenceEdge]

    /// Saves whole records, inserting or replacing them. The store assigns each a new change
    /// counter and change tag, and returns the records as saved, in order.
    func save(_ records: [Record]) async throws -> [Record]

    /// Saves records as ``save(_:)`` does, as the transaction's last change, and puts the
    /// transaction's changes in the notification outbox as ``recordChange(_:)`` does: the store
    /// may write the outbox row in the same statement as the records.
    func save(_ records: [Record], recordingChange note: ChangeNote) async throws -> [Record]

    /// Deletes records, leaving tombstones for the change feed.
    func delete(_ records: [Tombstone]) async throws

    /// Returns the fields of a record type as this transaction sees them (including fields
    /// added earlier in it).
    func fields(ofRecordType recordType: String) async throws -> [NameKey: FieldSchema]

    /// Adds fields to a record type in this transaction, so they exist only if its records do.
    /// A field that exists already keeps its type.
    func addFields(_ fields: [NameKey: FieldSchema], toRecordType recordType: String) async throws

    // MARK: Sharing

    /// Returns shares of this zone by record name, with every participant (removed ones too).
    func shares(named names: [String]) async throws -> [NameKey: Share]

    /// Says whether this zone has a zone share and whether it has record shares.
    func shareKinds() async throws -> ZoneShareKinds

    /// Creates or replaces a share and its participant list. Its share record is saved with
    /// ``save(_:)``.
    func saveShare(_ share: Share) async throws

    /// The extra invitation links of a share of this zone, oldest first.
    func shareLinks(of shareName: String) async throws -> [ShareLink]

    /// Saves an extra invitation link of a share of this zone (a new one, or one used or revoked).
    func saveShareLink(_ link: ShareLink) async throws

    /// The requests to join a share of this zone, oldest first.
    func shareRequests(of shareName: String) async throws -> [ShareRequest]

    /// Saves a request to join a share of this zone (a new one, or one denied).
    func saveShareRequest(_ request: ShareRequest) async throws

    /// Removes a request to join a share of this zone (once approved).
    func deleteShareRequest(of userRecordName: String, toShare shareName: String) async throws

    /// Removes a share and its participants (its share record is deleted with ``delete(_:)``).
    func deleteShare(named name: String) async throws

    /// Moves the descendants of a record from one share's hierarchy to another's (`nil`: out of
    /// every share), stopping at roots of other shares. Each moved record gets a new change
    /// counter (its change tag stays), so participants' change feeds report it; one that leaves
    /// a share is remembered so that share's feeds can report it as deleted.
    /// Returns how many records moved.
    @discardableResult
    func moveDescendants(of rootName: String, from oldShare: String?, to newShare: String?) async throws -> Int

    // MARK: Notifications

    /// Puts the transaction's changes in the notification outbox, with `note`; does nothing
    /// if the transaction changed nothing. Call it last: it covers the counters spent so far.
    func recordChange(_ note: ChangeNote) async throws
}

/// A reference from one record to another in the same zone, as the store indexes it.
public struct ReferenceEdge: Sendable, Hashable {
    /// The name of the record that holds the reference.
    public var sourceName: String
    /// The name of the record the reference points at.
    public var targetName: String
    /// How the reference constrains its target: `NONE`, `DELETE_SELF` or `VALIDATE`.
    public var action: Reference.Action

    /// Creates a reference edge.
    public init(sourceName: String, targetName: String, action: Reference.Action) {
        self.sourceName = sourceName
        self.targetName = targetName
        self.action = action
    }
}
