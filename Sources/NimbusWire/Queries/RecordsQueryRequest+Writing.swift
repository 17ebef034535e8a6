//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension RecordsQueryRequest: WireRequestBody {
    /// A `records/query` (or `records/count`) request; a query of every zone names no zone and
    /// says `zoneWide`.
    public init(
        query: Query,
        zoneID: ZoneID?,
        resultsLimit: Int? = nil,
        continuationMarker: String? = nil,
        desiredKeys: [String]? = nil,
        numbersAsStrings: Bool? = nil
    ) {
        self.query = query
        self.zoneID = zoneID
        self.zoneWide = zoneID == nil ? true : nil
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let zoneID { writer.field("zoneID", zoneID) }
        if let zoneWide { writer.field("zoneWide", zoneWide) }
        writer.key("query")
        query.write(to: &writer)
        if let continuationMarker { writer.field("continuationMarker", continuationMarker) }
        if let resultsLimit { writer.field("resultsLimit", Int64(resultsLimit)) }
        if let desiredKeys { writer.stringArray("desiredKeys", desiredKeys) }
        if let numbersAsStrings { writer.field("numbersAsStrings", numbersAsStrings) }
        writer.endObject()
    }
}
