//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How far a page of a zone's change feed is through the zone's changes: positions in the zone's
/// sequence of changes, for a progress bar over a long fetch (a Nimbus extension, written as
/// `nimbusProgress` in `records/changes` and `changes/zone` responses).
///
/// Every change to a zone takes the next position, so the distance between two positions counts
/// changes, including changes to records later changed again (which a page reports once).
/// Feeds of the private and public databases carry it; the shared database's do not, since the
/// owner's zone may hold changes the participant may not know of.
public struct FeedProgress: Sendable, Hashable, Codable {
    /// Where the request's token stood: 0 for a fetch from scratch.
    public var from: Int64
    /// Where this page ends: the next page starts after it.
    public var through: Int64
    /// Where the zone's changes stood when the page was read.
    public var latest: Int64

    /// Creates a progress report.
    public init(from: Int64, through: Int64, latest: Int64) {
        self.from = from
        self.through = through
        self.latest = latest
    }

    /// The share, from 0 to 1, of the changes from `start` to ``latest`` that are behind this
    /// page. For a fetch of several pages, `start` is the first page's ``from``.
    public func fractionCompleted(since start: Int64) -> Double {
        guard latest > start else { return 1 }
        return min(1, max(0, Double(through - start) / Double(latest - start)))
    }
}
