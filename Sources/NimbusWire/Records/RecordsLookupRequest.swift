//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/lookup`.
public struct RecordsLookupRequest: Decodable, Sendable {
    public struct Item: Decodable, Sendable {
        public var recordName: String
        public var desiredKeys: [String]?
    }

    public var records: [Item]
    public var zoneID: ZoneID?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}
