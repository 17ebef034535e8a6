//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

/// One page of a zone's change feed; `Codable`, so a page can be kept and applied later.
public struct ZoneChangesPage: Sendable, Hashable, Codable {
    /// A record deleted since the previous token.
    public struct DeletedRecord: Sendable, Hashable, Codable {
        /// The deleted record's ID.
        public var recordID: RecordID
        /// Its record type, as CloudKit reports it with a deletion.
        public var recordType: String

        /// Creates a deletion.
        public init(recordID: RecordID, recordType: String) {
            self.recordID = recordID
            self.recordType = recordType
        }
    }

    /// Records created or changed since the previous token, each once, in its latest state.
    public var changed: [Record]
    /// Records deleted since the previous token.
    public var deleted: [DeletedRecord]
    /// The token that resumes right after this page.
    public var syncToken: String
    /// Whether more changes follow this page.
    public var moreComing: Bool
    /// How far the page is through the zone's changes, for a progress bar (a Nimbus extension);
    /// `nil` in the shared database, and from servers that do not report it.
    public var progress: FeedProgress? = nil
}

/// One page of a database's change feed: which zones changed.
public struct DatabaseChangesPage: Sendable, Hashable, Codable {
    /// Zones with changes since the previous token (new zones included).
    public var changedZones: [ZoneID]
    /// Zones deleted since the previous token (or, in the shared database, no longer shared with the user).
    public var deletedZones: [ZoneID]
    /// The token that resumes right after this page.
    public var syncToken: String
    /// Whether more changes follow this page.
    public var moreComing: Bool
}

extension Database {
    // MARK: - Syncing changes

    /// Fetches every change in a zone since a token, page after page (`records/changes`), until
    /// the server has no more.
    ///
    /// `handle` sees each page before the next is requested: store its ``ZoneChangesPage/syncToken``
    /// only after applying the page, and a sync interrupted at any point resumes without losing or
    /// repeating a change.
    /// - Parameters:
    ///   - zoneID: the zone.
    ///   - token: the token of the last page applied; `nil` syncs from scratch.
    ///   - resultsLimit: records per page (the server caps it at 200).
    ///   - handle: called with each page, in order.
    /// - Returns: the token after the last page.
    /// - Throws: `.changeTokenExpired` when the token is too old or the zone was re-created: sync
    ///   from scratch; `.zoneNotFound` for a zone that does not exist.
    @discardableResult
    public func fetchZoneChanges(
        in zoneID: ZoneID,
        since token: String?,
        resultsLimit: Int? = nil,
        _ handle: (ZoneChangesPage) async throws -> Void = { _ in }
    ) async throws -> String {
        var token = token
        while true {
            let page = try await zoneChangesPage(in: zoneID, since: token, resultsLimit: resultsLimit)
            try await handle(page)
            token = page.syncToken
            if !page.moreComing { return page.syncToken }
        }
    }

    /// Fetches one page of a zone's changes after a token.
    public func zoneChangesPage(in zoneID: ZoneID, since token: String?, resultsLimit: Int? = nil) async throws -> ZoneChangesPage {
        let request = RecordsChangesRequest(feed: ZoneFeedRequest(zoneID: zoneID, syncToken: token, resultsLimit: resultsLimit))
        var response = try await postForRecords("records/changes", idempotent: true, in: zoneID, expectedCount: resultsLimit ?? 0) {
            request.write(to: &$0)
        }
        var page = ZoneChangesPage(changed: [], deleted: [], syncToken: "", moreComing: false)
        for index in 0..<(try response.requireCount()) {
            guard let item = response.json(at: index) else {
                page.changed.append(response.takeRecord(at: index))
                continue
            }
            if WireError.isError(item) { throw WireError.nimbusError(from: item, in: zoneID) }
            if let tombstone = WireTombstone(json: item) {
                let recordID = RecordID(recordName: tombstone.recordName, zoneID: zoneID)
                page.deleted.append(ZoneChangesPage.DeletedRecord(recordID: recordID, recordType: tombstone.recordType))
            } else {
                page.changed.append(try RecordWireCoding.record(item, in: zoneID, at: "records[\(index)]"))
            }
        }
        let tail = try serverAnswer { () throws(NimbusError) in try ZoneFeedPage.Tail(members: response.members) }
        page.syncToken = tail.syncToken
        page.moreComing = tail.moreComing
        page.progress = tail.progress
        return page
    }

    /// Fetches which zones changed since a token, page after page (`changes/database`).
    /// - Parameters:
    ///   - token: the token of the last page applied; `nil` for every zone.
    ///   - handle: called with each page, in order.
    /// - Returns: the token after the last page.
    /// - Throws: `.changeTokenExpired` for a token the server no longer accepts.
    @discardableResult
    public func fetchDatabaseChanges(
        since token: String?,
        _ handle: (DatabaseChangesPage) async throws -> Void = { _ in }
    ) async throws -> String {
        var token = token
        while true {
            let request = DatabaseChangesRequest(syncToken: token)
            let response = try await post("changes/database", idempotent: true) { request.write(to: &$0) }
            let answer = try serverAnswer { () throws(NimbusError) in try ZonesResponse(json: .object(response)) }
            var page = DatabaseChangesPage(changedZones: [], deletedZones: [], syncToken: "", moreComing: answer.moreComing ?? false)
            for item in answer.zones {
                switch item {
                case .zone(let zone): page.changedZones.append(zone.zoneID)
                case .deleted(let zoneID): page.deletedZones.append(zoneID)
                case .error(let error): throw error.nimbusError
                }
            }
            guard let syncToken = answer.syncToken else {
                throw NimbusError(.internalError, "the server's change page has no syncToken")
            }
            page.syncToken = syncToken
            try await handle(page)
            token = syncToken
            if !page.moreComing { return syncToken }
        }
    }
}

extension Database {
    /// Brings a local copy of a zone up to date, resuming from the token in `tokens`.
    ///
    /// Fetches the zone's changes page by page, calls `apply` with each, and stores the page's
    /// token only after `apply` returned. When the server no longer accepts the stored token
    /// (`.changeTokenExpired`: the zone was re-created, or the token is older than the server's
    /// tombstone retention), calls `reset` so the app empties its copy, and syncs from scratch.
    /// - Parameters:
    ///   - zoneID: the zone.
    ///   - tokens: where the feed's token is kept (the key is the database scope and zone).
    ///   - resultsLimit: records per page (the server caps it at 200).
    ///   - reset: empties the local copy before a sync from scratch.
    ///   - apply: applies one page to the local copy.
    public func sync(
        zone zoneID: ZoneID,
        tokens: any ChangeTokenStore,
        resultsLimit: Int? = nil,
        reset: () async throws -> Void = {},
        apply: (ZoneChangesPage) async throws -> Void
    ) async throws {
        // Tokens are per container, environment, database and zone: one store may serve them all
        // (but it belongs to one signed-in user; the server rejects another user's tokens).
        let feed = "\(container.identifier)/\(container.environment.rawValue)/\(scope.rawValue)/\(zoneID.ownerRecordName)/\(zoneID.zoneName)"
        func applyAndRemember(_ page: ZoneChangesPage) async throws {
            try await apply(page)
            try await tokens.setToken(page.syncToken, for: feed)
        }
        let stored = try await tokens.token(for: feed)
        do {
            try await fetchZoneChanges(in: zoneID, since: stored, resultsLimit: resultsLimit, applyAndRemember)
        } catch let error as NimbusError where error.code == .changeTokenExpired && stored != nil {
            try await tokens.setToken(nil, for: feed)
            try await reset()
            try await fetchZoneChanges(in: zoneID, since: nil, resultsLimit: resultsLimit, applyAndRemember)
        }
    }
}
