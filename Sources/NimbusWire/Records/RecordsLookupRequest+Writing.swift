//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension RecordsLookupRequest: WireRequestBody {
    /// A `records/lookup` request.
    public init(records: [Item], zoneID: ZoneID?, desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil) {
        self.records = records
        self.zoneID = zoneID
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let zoneID { writer.field("zoneID", zoneID) }
        writer.key("records")
        writer.beginArray()
        for item in records {
            writer.beginObject()
            writer.field("recordName", item.recordName)
            if let keys = item.desiredKeys { writer.stringArray("desiredKeys", keys) }
            writer.endObject()
        }
        writer.endArray()
        if let desiredKeys { writer.stringArray("desiredKeys", desiredKeys) }
        if let numbersAsStrings { writer.field("numbersAsStrings", numbersAsStrings) }
        writer.endObject()
    }
}
