//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `zones/lookup`: zone IDs, bare or wrapped as `{"zoneID": ...}` (CloudKitPy).
public struct ZonesLookupRequest: Decodable, Sendable {
    public var zones: [WireZoneReference]
}

/// The body of `zones/modify`.
public struct ZonesModifyRequest: Decodable, Sendable {
    public struct Operation: Decodable, Sendable {
        public var operationType: String
        public var zone: WireZoneReference
    }

    public var operations: [Operation]
}

/// A zone named either as `{"zoneID": {...}}` or as a bare zone ID.
public struct WireZoneReference: Decodable, Sendable {
    public var zoneID: ZoneID

    private enum CodingKeys: String, CodingKey {
        case zoneID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.zoneID) {
            zoneID = try container.decode(ZoneID.self, forKey: .zoneID)
        } else {
            zoneID = try ZoneID(from: decoder)
        }
    }
}
