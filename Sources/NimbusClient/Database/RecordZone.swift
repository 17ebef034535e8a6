//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A zone of a database and what it supports, as CloudKit's `CKRecordZone`.
///
/// ```swift
/// let notes = RecordZone(zoneName: "Notes")
/// try await database.modifyRecordZones(saving: [notes], deleting: [])
/// ```
public struct RecordZone: Sendable, Hashable, Codable {
    /// What a zone supports, as CloudKit's `CKRecordZone.Capabilities`.
    public struct Capabilities: OptionSet, Sendable, Hashable, Codable {
        public let rawValue: Int

        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// The zone has a change feed. Every Nimbus zone has one, the default zones included.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// Batches in the zone may be all or nothing.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// Records of the zone, or the whole zone, may be shared.
        public static let sharing = Capabilities(rawValue: 1 << 2)
        /// A custom zone's: all of the above.
        public static let custom: Capabilities = [.fetchChanges, .atomic, .sharing]
    }

    /// The zone's ID.
    public var zoneID: ZoneID
    /// What the zone supports.
    public var capabilities: Capabilities

    /// A zone of the caller's private database, to save: a custom zone's capabilities.
    public init(zoneName: String) {
        self.init(zoneID: ZoneID(zoneName: zoneName, ownerRecordName: ""))
    }

    /// A zone by its ID; a default zone has a change feed only, any other a custom zone's
    /// capabilities.
    public init(zoneID: ZoneID, capabilities: Capabilities? = nil) {
        self.zoneID = zoneID
        self.capabilities = capabilities ?? (zoneID.isDefaultZone ? .fetchChanges : .custom)
    }
}
