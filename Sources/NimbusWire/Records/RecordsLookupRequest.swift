//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/lookup`.
public struct RecordsLookupRequest: WireRequest {
    /// One record to look up.
    public struct Item: Sendable, Hashable {
        /// The name of the record.
        public var recordName: String
        /// The fields to return for this record; overrides the request's `desiredKeys` when given.
        public var desiredKeys: [String]?

        /// One record to look up.
        public init(recordName: String, desiredKeys: [String]? = nil) {
            self.recordName = recordName
            self.desiredKeys = desiredKeys
        }
    }

    /// The records to look up, answered in this order.
    public var records: [Item]
    /// The zone of the records; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// The fields to return; `nil` returns all, `[]` only the system fields.
    public var desiredKeys: [String]?
    /// CKWS `numbersAsStrings`: write 64-bit integers and timestamps as JSON strings.
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
