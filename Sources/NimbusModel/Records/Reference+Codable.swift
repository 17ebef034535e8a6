//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// References decode leniently (missing `action` is `NONE`, case is ignored) and encode as Apple does.
extension Reference {
    private enum CodingKeys: String, CodingKey {
        case recordName
        case zoneID
        case action
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try container.decode(String.self, forKey: .recordName)
        zoneID = try container.decodeIfPresent(ZoneID.self, forKey: .zoneID)
        let actionName = try container.decodeIfPresent(String.self, forKey: .action) ?? "NONE"
        guard let action = Action(rawValue: actionName.uppercased()) else {
            throw DecodingError.dataCorruptedError(
                forKey: .action, in: container, debugDescription: "unknown reference action '\(actionName)'")
        }
        self.action = action
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(recordName, forKey: .recordName)
        try container.encodeIfPresent(zoneID, forKey: .zoneID)
        try container.encode(action.rawValue, forKey: .action)
    }
}
