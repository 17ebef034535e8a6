//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// One strand of a participant's zone feed: the records of some shares, from a position on.
///
/// A participant's feed of an owner's zone is the merge of strands: the shares they have
/// followed all along share one position, and a share accepted later starts its own strand
/// from the beginning until it catches up.
public struct ShareFeedStrand: Sendable, Hashable {
    /// The record shares whose hierarchies the strand follows; `nil` follows the whole zone
    /// (a zone share).
    public var shareNames: [String]?
    /// The zone counter of the last change the participant has of these shares.
    public var after: Int64
    /// The zone's counter when the participant's sync of these shares began: tombstones and
    /// exits up to it are of records they never received. `nil` begins the sync now.
    public var initialSyncThrough: Int64?

    /// Creates a strand.
    public init(shareNames: [String]?, after: Int64, initialSyncThrough: Int64?) {
        self.shareNames = shareNames
        self.after = after
        self.initialSyncThrough = initialSyncThrough
    }
}

/// What to read from a participant's view of an owner's zone.
public struct SharedZoneChangesRequest: Sendable, Hashable {
    /// The owner's private database.
    public var tenant: Tenant
    /// The zone's name.
    public var zoneName: String
    /// The zone incarnation the participant's position belongs to; `nil` from scratch.
    public var incarnation: Int64?
    /// The strands to merge.
    public var strands: [ShareFeedStrand]
    /// The most changes to return.
    public var limit: Int
    /// Only changes to records of these types; `nil` for all.
    public var recordTypes: [String]?

    /// Creates a request.
    public init(
        tenant: Tenant,
        zoneName: String,
        incarnation: Int64?,
        strands: [ShareFeedStrand],
        limit: Int,
        recordTypes: [String]? = nil
    ) {
        self.tenant = tenant
        self.zoneName = zoneName
        self.incarnation = incarnation
        self.strands = strands
        self.limit = limit
        self.recordTypes = recordTypes
    }
}

/// One page of a participant's view of a zone.
public struct SharedZoneChanges: Sendable, Hashable {
    /// The zone as of the page's snapshot.
    public var zone: Zone
    /// Records of the followed shares in their latest state; tombstones for records deleted
    /// or moved out of them; in change order.
    public var changes: [RecordChange]
    /// The zone counter every strand has reached: the last change on the page, or the zone's
    /// counter when nothing more is to come.
    public var through: Int64
    /// Whether changes past ``through`` exist already.
    public var moreComing: Bool

    /// Creates a page.
    public init(zone: Zone, changes: [RecordChange], through: Int64, moreComing: Bool) {
        self.zone = zone
        self.changes = changes
        self.through = through
        self.moreComing = moreComing
    }
}

/// Where one owner's zone stands for a participant, as the shared database's feed compares it.
public struct SharedZoneState: Sendable, Hashable {
    /// The zone, named by its owner.
    public var zone: Zone
    /// The accepted shares that open it to the participant.
    public var shareNames: [String]
    /// The zone counter of the latest change the participant may see in it: a record of
    /// those shares saved or deleted, or one leaving them.
    public var latestChange: Int64

    /// Creates a state.
    public init(zone: Zone, shareNames: [String], latestChange: Int64) {
        self.zone = zone
        self.shareNames = shareNames
        self.latestChange = latestChange
    }
}
