//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How much of a user is in a container environment, as numbers: what the console shows of a
/// user without their consent. Never what their data says.
public struct UserFootprint: Sendable, Hashable {
    /// Zones of their private database.
    public var zones: Int64
    /// Records in those zones (not deleted).
    public var records: Int64
    /// Shares they own.
    public var sharesOwned: Int64
    /// Shares of others they take part in, accepted.
    public var sharesJoined: Int64
    /// Their subscriptions, in every database.
    public var subscriptions: Int64
    /// Their sessions that have not ended.
    public var sessions: Int64

    /// Creates a footprint.
    public init(zones: Int64, records: Int64, sharesOwned: Int64, sharesJoined: Int64, subscriptions: Int64, sessions: Int64) {
        self.zones = zones
        self.records = records
        self.sharesOwned = sharesOwned
        self.sharesJoined = sharesJoined
        self.subscriptions = subscriptions
        self.sessions = sessions
    }
}
