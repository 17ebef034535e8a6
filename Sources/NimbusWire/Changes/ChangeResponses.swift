//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// One page of a zone's change feed: `{records, syncToken, moreComing}`, the body of
/// `records/changes` and, with `zoneID`, an element of `changes/zone`'s `zones`.
public struct ZoneFeedPage: WireResponse {
    /// The zone, written as `zoneID` when set (in `changes/zone`).
    public var zoneID: ZoneID?
    /// Changed records and tombstones (`{recordName, recordType, deleted: true}`).
    public var records: [RecordsResponseItem]
    /// Resumes the feed after this page.
    public var syncToken: String
    /// Whether more changes follow.
    public var moreComing: Bool
    /// How far the page is through the zone's changes (`nimbusProgress`), when the caller may know.
    public var progress: FeedProgress?

    /// Creates a page.
    public init(zoneID: ZoneID?, records: [RecordsResponseItem], syncToken: String, moreComing: Bool, progress: FeedProgress? = nil) {
        self.zoneID = zoneID
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
        self.progress = progress
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        if let zoneID {
            writer.key("zoneID")
            WireZoneID(zoneID).write(to: &writer, options: options)
        }
        writer.key("records")
        writer.beginArray()
        for item in records { item.write(to: &writer, options: options) }
        writer.endArray()
        // Before the token and `moreComing`, which stay last as in CloudKit's answers: clients
        // that read a page's tail find them where they always were.
        if let progress {
            writer.key("nimbusProgress")
            writer.beginObject()
            writer.field("from", progress.from)
            writer.field("through", progress.through)
            writer.field("latest", progress.latest)
            writer.endObject()
        }
        writer.field("syncToken", syncToken)
        writer.key("moreComing")
        writer.bool(moreComing)
        writer.endObject()
    }
}

/// The body of `changes/zone`: `{"zones": [page | zone error]}`.
public struct ZoneChangesResponse: WireResponse {
    /// One element per requested zone, in request order.
    public enum Item: Sendable {
        case page(ZoneFeedPage)
        case error(WireError)
    }

    /// The pages and per-zone errors.
    public var zones: [Item]

    /// Creates a response.
    public init(zones: [Item]) {
        self.zones = zones
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("zones")
        writer.beginArray()
        for item in zones {
            switch item {
            case .page(let page): page.write(to: &writer, options: options)
            case .error(let error): error.write(to: &writer, options: options)
            }
        }
        writer.endArray()
        writer.endObject()
    }
}
