//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// One page of a database's change feed: the zones created, changed or deleted since a position.
public struct DatabaseChanges: Sendable, Hashable {
    /// A zone that changed, in the order of its latest change.
    public struct ZoneChange: Sendable, Hashable {
        /// The zone as of the page's snapshot (its last state, if it was deleted).
        public var zone: Zone
        /// Whether the zone has been deleted since.
        public var isDeleted: Bool

        /// Creates a zone change.
        public init(zone: Zone, isDeleted: Bool) {
            self.zone = zone
            self.isDeleted = isDeleted
        }
    }

    /// The zones that changed, each once.
    public var zones: [ZoneChange]
    /// The database counter the next page starts after.
    public var position: Int64
    /// Whether changes past ``position`` exist already.
    public var moreComing: Bool

    /// Creates a page.
    public init(zones: [ZoneChange], position: Int64, moreComing: Bool) {
        self.zones = zones
        self.position = position
        self.moreComing = moreComing
    }
}
