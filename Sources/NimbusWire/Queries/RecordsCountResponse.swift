//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// `records/count` (a Nimbus extension): `{"count": N}`. Its request is a `records/query` body;
/// only `query` and `zoneID` matter.
public struct RecordsCountResponse: WireResponse {
    /// How many records match.
    public var count: Int

    /// Creates the response.
    public init(count: Int) {
        self.count = count
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("count")
        writer.integer(Int64(count))
        writer.endObject()
    }
}
