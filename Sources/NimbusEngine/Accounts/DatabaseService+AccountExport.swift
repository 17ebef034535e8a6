//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Everything of a user's in one environment's databases, for a data export.
public struct AccountData: Sendable {
    /// Each zone of their private database with its records.
    public var zones: [(zone: Zone, records: [Record])]
    /// The zones others share with them (names only: the records are the owners').
    public var sharedZones: [Zone]
    /// Their subscriptions, in every database.
    public var subscriptions: [Subscription]
}

extension DatabaseService {
    /// Reads everything of the caller's in the caller's environment: their private zones and
    /// records, the zones shared with them, their subscriptions.
    ///
    /// Decision: the export holds the records in memory; an account's private data is bounded by
    /// its quota where one is set. A streaming export is the way past that.
    public func exportData(caller: Caller) async throws(NimbusError) -> AccountData {
        let privateAccess = DatabaseAccess(caller: caller, scope: .private)
        var zones: [(zone: Zone, records: [Record])] = []
        for zone in try await self.zones(access: privateAccess) {
            var records: [Record] = []
            var token: String?
            repeat {
                let page = try await recordChanges(inZone: zone.zoneID, syncToken: token, resultsLimit: nil, access: privateAccess)
                for change in page.changes {
                    if case .saved(let record) = change { records.append(record) }
                }
                token = page.moreComing ? page.syncToken : nil
            } while token != nil
            zones.append((zone, records))
        }
        let shared = try await self.zones(access: DatabaseAccess(caller: caller, scope: .shared))
        var subscriptions: [Subscription] = []
        for scope in [DatabaseScope.private, .public, .shared] {
            subscriptions += try await self.subscriptions(access: DatabaseAccess(caller: caller, scope: scope))
        }
        return AccountData(zones: zones, sharedZones: shared, subscriptions: subscriptions)
    }
}
