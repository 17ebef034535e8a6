//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A record zone as the server reports it.
public struct Zone: Sendable, Hashable {
    /// The zone's identity.
    public var zoneID: ZoneID
    /// The zone's change counter: the position of its latest change.
    ///
    /// It only ever grows, and is bumped in the same transaction as every write to the zone.
    public var changeCounter: Int64
    /// Which life of the zone this is: deleting a zone and creating one of the same name starts
    /// a new incarnation, so change tokens of the old zone cannot be used with the new one.
    public var incarnation: Int64

    /// Creates a zone value.
    public init(zoneID: ZoneID, changeCounter: Int64, incarnation: Int64 = 1) {
        self.zoneID = zoneID
        self.changeCounter = changeCounter
        self.incarnation = incarnation
    }

    /// Whether the zone supports atomic batches: every custom zone does, the default zone doesn't.
    public var isAtomic: Bool { !zoneID.isDefaultZone }
}
