//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension RecordsResolveRequest: WireRequestBody {
    /// A `records/resolve` or `records/accept` request for the shares of these short GUIDs.
    public init(shortGUIDs: [Item]) {
        self.shortGUIDs = shortGUIDs
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("shortGUIDs")
        writer.beginArray()
        for item in shortGUIDs {
            writer.beginObject()
            writer.field("value", item.value)
            if item.shouldFetchRootRecord {
                writer.field("shouldFetchRootRecord", true)
            }
            if let keys = item.rootRecordDesiredKeys { writer.stringArray("rootRecordDesiredKeys", keys) }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
