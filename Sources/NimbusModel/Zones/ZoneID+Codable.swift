//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Zone IDs decode from `ownerRecordName` or MistKit's and CloudyKit's `ownerName`; a missing
/// owner decodes as the empty string, which the server reads as "the caller".
extension ZoneID {
    private enum CodingKeys: String, CodingKey {
        case zoneName
        case ownerRecordName
        case ownerName
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        zoneName = try container.decodeIfPresent(String.self, forKey: .zoneName) ?? ZoneID.defaultZoneName
        ownerRecordName =
            try container.decodeIfPresent(String.self, forKey: .ownerRecordName)
            ?? container.decodeIfPresent(String.self, forKey: .ownerName) ?? ""
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encode(ownerRecordName, forKey: .ownerRecordName)
    }
}
