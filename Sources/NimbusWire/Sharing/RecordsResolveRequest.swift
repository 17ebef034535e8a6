//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// The body of `records/resolve` and `records/accept`:
/// `{"shortGUIDs": [{"value", "shouldFetchRootRecord", "rootRecordDesiredKeys"}]}`.
public struct RecordsResolveRequest: WireRequest {
    /// One element per share, in request order.
    public struct Item: Sendable, Hashable {
        /// The short GUID.
        public var value: String
        /// Whether to return the root record.
        public var shouldFetchRootRecord: Bool
        /// The root record's fields to return.
        public var rootRecordDesiredKeys: [String]?

        /// One share to resolve or accept.
        public init(value: String, shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [String]? = nil) {
            self.value = value
            self.shouldFetchRootRecord = shouldFetchRootRecord
            self.rootRecordDesiredKeys = rootRecordDesiredKeys
        }
    }

    /// The shares named.
    public var shortGUIDs: [Item]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        let list = try members.required("shortGUIDs", at: "").array(at: "shortGUIDs")
        shortGUIDs = []
        for (index, element) in list.enumerated() {
            let path = jsonPath("shortGUIDs", index)
            // Some clients send bare strings.
            if case .string(let value) = element {
                shortGUIDs.append(Item(value: value, shouldFetchRootRecord: false))
                continue
            }
            let item = try element.object(at: path)
            shortGUIDs.append(
                Item(
                    value: try item.required("value", at: path).string(at: jsonPath(path, "value")),
                    shouldFetchRootRecord: try item.optional("shouldFetchRootRecord")?.bool(at: jsonPath(path, "shouldFetchRootRecord"))
                        ?? false,
                    rootRecordDesiredKeys: try item.stringList("rootRecordDesiredKeys", at: path)
                )
            )
        }
    }
}
