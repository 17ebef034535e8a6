//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// One page of a database's change feed: which zones to fetch changes from.
public struct DatabaseChangesPage: Sendable, Hashable {
    /// A zone that changed since the client's token.
    public enum ZoneChange: Sendable, Hashable {
        /// The zone was created or its records changed; fetch its changes.
        case changed(Zone)
        /// The zone was deleted; drop the local copy.
        case deleted(ZoneID)
    }

    /// The zones, each once, in the order of their latest change.
    public var zones: [ZoneChange]
    /// Resumes the feed just after this page.
    public var syncToken: String
    /// Whether more changes follow: call again with ``syncToken``.
    public var moreComing: Bool
}

extension DatabaseService {
    /// Returns the zones created, changed or deleted since a database sync token
    /// (`changes/database`, `zones/changes`).
    ///
    /// - Parameters:
    ///   - syncToken: Where the client's copy stands; `nil` lists every live zone that has ever
    ///     been written (the default zone only once it holds a record).
    ///   - resultsLimit: The most zones to return (at most ``maximumChangesPerPage``).
    /// - Throws: `.badRequest` for a token that is not this database's.
    public func databaseChanges(syncToken: String?, resultsLimit: Int?, access: DatabaseAccess) async throws(NimbusError)
        -> DatabaseChangesPage
    {
        let limit = try Self.changesPageSize(resultsLimit)
        let tenant = try tenant(for: access)
        if access.scope == .shared { return try await sharedDatabaseChanges(after: syncToken, limit: limit, access: access, tenant: tenant) }
        let tokens = SyncTokens(sealer: sealer)
        let scope = SyncTokens.databaseScope(
            container: tenant.container,
            environment: tenant.environment,
            database: access.scope,
            owner: tenant.owner
        )
        let after = try syncToken.map { (token) throws(NimbusError) in try tokens.databasePosition(token, scope: scope) }
        let page = try await store { try await records.databaseChanges(of: tenant, after: after, limit: limit) }
        return DatabaseChangesPage(
            zones: page.zones.map { change in
                var zone = change.zone
                zone.zoneID = reportedZoneID(zone.zoneID.zoneName, of: tenant)
                return change.isDeleted ? .deleted(zone.zoneID) : .changed(zone)
            },
            syncToken: tokens.databaseToken(page.position, scope: scope),
            moreComing: page.moreComing
        )
    }
}
