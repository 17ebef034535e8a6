//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Identifies a record: its name, unique within its zone, and the zone.
public struct RecordID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The record's name, unique within its zone.
    public var recordName: String
    /// The zone that holds the record.
    public var zoneID: ZoneID

    /// Creates a record ID.
    public init(recordName: String, zoneID: ZoneID) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    public var description: String { "\(recordName)@\(zoneID)" }
}

/// Record IDs are equal when their names are the same bytes, as the stores compare them
/// (``NameKey`` says why `String`'s equality is not that).
extension RecordID {
    public static func == (lhs: RecordID, rhs: RecordID) -> Bool {
        lhs.recordName.isSameName(as: rhs.recordName) && lhs.zoneID == rhs.zoneID
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(NameKey(recordName))
        hasher.combine(zoneID)
    }
}
