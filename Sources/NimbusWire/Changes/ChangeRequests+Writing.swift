//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension ZoneFeedRequest {
    /// One zone's feed from a token (`nil`: from scratch).
    public init(
        zoneID: ZoneID?,
        syncToken: String? = nil,
        resultsLimit: Int? = nil,
        desiredKeys: [String]? = nil,
        desiredRecordTypes: [String]? = nil
    ) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
        self.desiredRecordTypes = desiredRecordTypes
    }

    /// Writes the feed's members into the object being written.
    func writeMembers(to writer: inout JSONWriter) {
        if let zoneID { writer.field("zoneID", zoneID) }
        if let syncToken { writer.field("syncToken", syncToken) }
        if let resultsLimit { writer.field("resultsLimit", Int64(resultsLimit)) }
        if let desiredKeys { writer.stringArray("desiredKeys", desiredKeys) }
        if let desiredRecordTypes { writer.stringArray("desiredRecordTypes", desiredRecordTypes) }
    }
}

extension RecordsChangesRequest: WireRequestBody {
    /// A `records/changes` request.
    public init(feed: ZoneFeedRequest, numbersAsStrings: Bool? = nil) {
        self.feed = feed
        self.numbersAsStrings = numbersAsStrings
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        feed.writeMembers(to: &writer)
        if let numbersAsStrings { writer.field("numbersAsStrings", numbersAsStrings) }
        writer.endObject()
    }
}

extension DatabaseChangesRequest: WireRequestBody {
    /// A `changes/database` request from a token (`nil`: every zone).
    public init(syncToken: String?, resultsLimit: Int? = nil) {
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let syncToken { writer.field("syncToken", syncToken) }
        if let resultsLimit { writer.field("resultsLimit", Int64(resultsLimit)) }
        writer.endObject()
    }
}
