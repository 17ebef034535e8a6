//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A point in a zone's change feed: everything up to and including `counter` has been seen.
///
/// The incarnation ties the position to one life of the zone: a zone deleted and created again
/// starts a new feed, and a position from the old one cannot be resumed in it.
public struct ZoneChangePosition: Sendable, Hashable {
    /// The zone's incarnation when the position was taken.
    public var incarnation: Int64
    /// The change counter of the last change seen.
    public var counter: Int64
    /// The zone's counter when the client's sync from scratch began: tombstones up to it are of
    /// records the client never received, so they are left out.
    public var initialSyncThrough: Int64

    /// Creates a position.
    public init(incarnation: Int64, counter: Int64, initialSyncThrough: Int64 = 0) {
        self.incarnation = incarnation
        self.counter = counter
        self.initialSyncThrough = initialSyncThrough
    }
}

/// What to read from a zone's change feed.
public struct ZoneChangesRequest: Sendable, Hashable {
    /// Whose zone.
    public var tenant: Tenant
    /// The zone's name.
    public var zoneName: String
    /// Where to resume; `nil` starts from the zone's creation, leaving out the tombstones that
    /// exist at the start.
    public var after: ZoneChangePosition?
    /// The most changes to return; 0 returns none and only says whether more are waiting.
    public var limit: Int
    /// Only changes to records of these types; `nil` for all.
    public var recordTypes: [String]?

    /// Creates a request.
    public init(tenant: Tenant, zoneName: String, after: ZoneChangePosition?, limit: Int, recordTypes: [String]? = nil) {
        self.tenant = tenant
        self.zoneName = zoneName
        self.after = after
        self.limit = limit
        self.recordTypes = recordTypes
    }
}

/// One page of a zone's change feed.
public struct ZoneChanges: Sendable, Hashable {
    /// The zone as of the page's snapshot.
    public var zone: Zone
    /// The records changed since the request's position, each once in its latest state, in
    /// change order.
    public var changes: [RecordChange]
    /// Where the next page starts: just after the last change on this page, or the zone's
    /// current position when nothing more is to come.
    public var position: ZoneChangePosition
    /// Whether changes past ``position`` exist already.
    public var moreComing: Bool

    /// Creates a page.
    public init(zone: Zone, changes: [RecordChange], position: ZoneChangePosition, moreComing: Bool) {
        self.zone = zone
        self.changes = changes
        self.position = position
        self.moreComing = moreComing
    }
}
