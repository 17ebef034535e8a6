//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// One page of a zone's change feed, as a client receives it.
public struct RecordChangesPage: Sendable, Hashable {
    /// The zone, as the client names it.
    public var zoneID: ZoneID
    /// Changed records in their latest state and tombstones of deleted ones, in change order.
    public var changes: [RecordChange]
    /// Resumes the feed just after this page.
    public var syncToken: String
    /// Whether more changes follow: call again with ``syncToken``.
    public var moreComing: Bool
    /// How far the page is through the zone's changes; `nil` in the shared database.
    public var progress: FeedProgress? = nil
}

/// What to fetch from one zone's change feed.
public struct ZoneFeedQuery: Sendable, Hashable {
    /// The zone; `nil` for the default zone.
    public var zoneID: ZoneID?
    /// Where the client's copy stands; `nil` fetches every live record.
    public var syncToken: String?
    /// The most changes to return; `nil` for the maximum.
    public var resultsLimit: Int?
    /// Only changes to records of these types; `nil` for all.
    public var recordTypes: [String]?

    /// Creates a query.
    public init(zoneID: ZoneID?, syncToken: String?, resultsLimit: Int?, recordTypes: [String]?) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
        self.recordTypes = recordTypes
    }
}

extension DatabaseService {
    /// The largest page of a change feed; larger `resultsLimit`s are lowered to it.
    public static let maximumChangesPerPage = 200

    /// Returns the next page of a zone's change feed (`records/changes`, `changes/zone`).
    ///
    /// Beyond CloudKit, every zone has a feed, the default zones and the public database's
    /// included.
    ///
    /// - Parameters:
    ///   - syncToken: Where the client's copy stands; `nil` fetches every live record.
    ///   - resultsLimit: The most changes to return (at most ``maximumChangesPerPage``).
    ///   - recordTypes: Only changes to records of these types (`desiredRecordTypes`).
    /// - Throws: `.zoneNotFound`; `.badRequest` for a token that is not this zone's;
    ///   `.changeTokenExpired` when the zone was re-created or the changes after the token were
    ///   pruned: the client must sync from scratch.
    public func recordChanges(
        inZone zoneID: ZoneID?,
        syncToken: String?,
        resultsLimit: Int?,
        recordTypes: [String]? = nil,
        access: DatabaseAccess
    ) async throws(NimbusError) -> RecordChangesPage {
        let limit = try Self.changesPageSize(resultsLimit)
        let tenant = try tenant(for: access)
        return try await feedPage(
            ZoneFeedQuery(zoneID: zoneID, syncToken: syncToken, resultsLimit: limit, recordTypes: recordTypes),
            limit: limit,
            tenant: tenant,
            access: access
        )
    }

    /// Returns the next page of several zones' feeds (`changes/zone`), in request order, each
    /// zone succeeding or failing on its own.
    ///
    /// The pages share one budget of ``maximumChangesPerPage`` records, so a response stays
    /// small however many zones it names: once the budget is spent, the remaining zones answer
    /// with no records, `moreComing`, and a token that resumes where they stood.
    /// - Throws: for the whole request: `.authenticationRequired` or `.permissionFailure` when
    ///   the caller may not read this database, `.limitExceeded` for more than 200 zones.
    public func recordChanges(_ queries: [ZoneFeedQuery], access: DatabaseAccess) async throws(NimbusError)
        -> [Result<RecordChangesPage, NimbusError>]
    {
        guard queries.count <= Self.maximumOperations else {
            throw .limitExceeded("a request may fetch the changes of at most \(Self.maximumOperations) zones")
        }
        let tenant = try tenant(for: access)
        var budget = Self.maximumChangesPerPage
        var results: [Result<RecordChangesPage, NimbusError>] = []
        for query in queries {
            do throws(NimbusError) {
                let limit = min(try Self.changesPageSize(query.resultsLimit), budget)
                let page = try await feedPage(query, limit: limit, tenant: tenant, access: access)
                budget -= page.changes.count
                results.append(.success(page))
            } catch {
                results.append(.failure(error))
            }
        }
        return results
    }

    private func feedPage(_ query: ZoneFeedQuery, limit: Int, tenant: Tenant, access: DatabaseAccess) async throws(NimbusError)
        -> RecordChangesPage
    {
        if access.scope == .shared { return try await sharedFeedPage(query, limit: limit, access: access) }
        let zoneName = try zoneName(of: query.zoneID, in: tenant, access: access)
        let scope = zoneTokenScope(zoneName, of: tenant, access: access)
        let tokens = SyncTokens(sealer: sealer)
        let after = try query.syncToken.map { (token) throws(NimbusError) in try tokens.zonePosition(token, scope: scope) }
        let page = try await store {
            try await records.zoneChanges(
                ZoneChangesRequest(tenant: tenant, zoneName: zoneName, after: after, limit: limit, recordTypes: query.recordTypes)
            )
        }
        return RecordChangesPage(
            zoneID: scope.zoneID,
            changes: try await withShareDetails(
                page.changes,
                in: ZoneTarget(tenant: tenant, zoneName: zoneName),
                reader: access.caller.userRecordName
            ).map { reported($0, of: tenant) },
            syncToken: tokens.zoneToken(page.position, scope: scope),
            moreComing: page.moreComing,
            progress: FeedProgress(from: after?.counter ?? 0, through: page.position.counter, latest: page.zone.changeCounter)
        )
    }

    /// The zone's current sync token: `zones/list` and `zones/lookup` report it so a client can
    /// start syncing "from now".
    public func syncToken(for zone: Zone, access: DatabaseAccess) -> String? {
        // A participant's feed is filtered to their shares: its tokens come with that feed.
        guard access.scope != .shared else { return nil }
        let scope = SyncTokens.ZoneScope(
            container: access.caller.container,
            environment: access.caller.environment,
            database: access.scope,
            zoneID: zone.zoneID
        )
        return SyncTokens(sealer: sealer).zoneToken(
            ZoneChangePosition(incarnation: zone.incarnation, counter: zone.changeCounter),
            scope: scope
        )
    }

    /// Checks a `resultsLimit` of a change feed and applies the default and the maximum.
    static func changesPageSize(_ resultsLimit: Int?) throws(NimbusError) -> Int {
        guard let resultsLimit else { return maximumChangesPerPage }
        guard resultsLimit >= 1 else { throw .badRequest("resultsLimit must be at least 1") }
        return min(resultsLimit, maximumChangesPerPage)
    }

    private func zoneTokenScope(_ zoneName: String, of tenant: Tenant, access: DatabaseAccess) -> SyncTokens.ZoneScope {
        SyncTokens.ZoneScope(
            container: tenant.container,
            environment: tenant.environment,
            database: access.scope,
            zoneID: reportedZoneID(zoneName, of: tenant)
        )
    }

    private func reported(_ change: RecordChange, of tenant: Tenant) -> RecordChange {
        guard case .saved(var record) = change else { return change }
        record.recordID.zoneID = reportedZoneID(record.recordID.zoneID.zoneName, of: tenant)
        return .saved(record)
    }
}
