//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension ZonesModifyRequest: WireRequestBody {
    /// A `zones/modify` request.
    public init(operations: [Operation]) {
        self.operations = operations
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("operations")
        writer.beginArray()
        for operation in operations {
            writer.beginObject()
            writer.field("operationType", operation.operationType)
            writer.key("zone")
            writer.beginObject()
            writer.field("zoneID", operation.zoneID)
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

extension ZonesLookupRequest: WireRequestBody {
    /// A `zones/lookup` request.
    public init(zones: [ZoneID]) {
        self.zones = zones
    }

    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("zones")
        writer.beginArray()
        for zoneID in zones { RecordWireCoding.write(zoneID, to: &writer) }
        writer.endArray()
        writer.endObject()
    }
}
