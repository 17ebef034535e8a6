//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/lookup`.
public struct RecordsLookupRequest: WireRequest {
    public struct Item: Sendable {
        public var recordName: String
        public var desiredKeys: [String]?
    }

    public var records: [Item]
    public var zoneID: ZoneID?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        let list = try members.required("records", at: "").array(at: "records")
        records = []
        for (index, element) in list.enumerated() {
            let path = jsonPath("records", index)
            let item = try element.object(at: path)
            records.append(
                Item(
                    recordName: try item.required("recordName", at: path).string(at: jsonPath(path, "recordName")),
                    desiredKeys: try item.stringList("desiredKeys", at: path)
                )
            )
        }
        zoneID = try members.zoneID()
        desiredKeys = try members.stringList("desiredKeys", at: "")
        numbersAsStrings = try members.optionalBool("numbersAsStrings")
    }
}
