//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `zones/lookup`: zone IDs, bare or wrapped as `{"zoneID": ...}` (CloudKitPy).
public struct ZonesLookupRequest: WireRequest {
    /// The zones to look up, answered in this order.
    public var zones: [ZoneID]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zones = try members.required("zones", at: "").array(at: "zones").enumerated().map { (index, element) throws(NimbusError) in
            try zoneReference(element, at: jsonPath("zones", index))
        }
    }
}

/// The body of `zones/modify`.
public struct ZonesModifyRequest: WireRequest {
    /// One zone operation.
    public struct Operation: Sendable, Hashable {
        /// `create` or `delete`, as the client spelled it.
        public var operationType: String
        /// The zone to create or delete, read from the operation's `zone`.
        public var zoneID: ZoneID

        /// One zone operation: `create` or `delete`.
        public init(operationType: String, zoneID: ZoneID) {
            self.operationType = operationType
            self.zoneID = zoneID
        }
    }

    /// The operations, applied in order.
    public var operations: [Operation]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        operations = try members.required("operations", at: "").array(at: "operations").enumerated().map {
            (index, element) throws(NimbusError) in
            let path = jsonPath("operations", index)
            let operation = try element.object(at: path)
            return Operation(
                operationType: try operation.required("operationType", at: path).string(at: jsonPath(path, "operationType")),
                zoneID: try zoneReference(try operation.required("zone", at: path), at: jsonPath(path, "zone"))
            )
        }
    }
}

/// A zone named either as `{"zoneID": {...}}` or as a bare zone ID.
private func zoneReference(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> ZoneID {
    let members = try json.object(at: path())
    if let wrapped = members.optional("zoneID") { return try ZoneID.read(wrapped, at: jsonPath(path(), "zoneID")) }
    return try ZoneID.read(json, at: path())
}
