//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire

/// One page of query results; `Codable`, so a page can be kept and read later.
public struct QueryResultsPage: Sendable, Hashable, Codable {
    /// The matching records of this page, in the query's order.
    public var records: [Record]
    /// Where the next page starts; `nil` on the last page. CloudKit's `CKQueryOperation.Cursor`.
    public var cursor: String?
}

extension Database {
    // MARK: - Queries

    /// Fetches one page of a query's results (`records/query`).
    /// - Parameters:
    ///   - query: the record type, filters and sort order.
    ///   - zoneID: the zone to search; `nil` searches every zone of the database (`zoneWide`;
    ///     the private and public databases only: the shared database refuses it).
    ///   - cursor: where to continue; `nil` for the first page.
    ///   - resultsLimit: records per page (the server caps it at 200).
    ///   - desiredKeys: the fields to return; all of them when `nil`.
    /// - Throws: `.badRequest` naming the problem for a bad filter (unknown field type, unsortable
    ///   field, a field not marked queryable in production); `.zoneNotFound`.
    public func queryPage(
        _ query: Query,
        in zoneID: ZoneID?,
        continuingFrom cursor: String? = nil,
        resultsLimit: Int? = nil,
        desiredKeys: [String]? = nil
    ) async throws -> QueryResultsPage {
        let request = RecordsQueryRequest(
            query: query,
            zoneID: zoneID,
            resultsLimit: resultsLimit,
            continuationMarker: cursor,
            desiredKeys: desiredKeys
        )
        var response = try await postForRecords("records/query", idempotent: true, in: Self.assumedZone(zoneID), expectedCount: resultsLimit ?? 0) {
            request.write(to: &$0)
        }
        var page = QueryResultsPage(records: [], cursor: nil)
        let count = try response.requireCount()
        page.records.reserveCapacity(count)
        for index in 0..<count {
            if let json = response.json(at: index) {
                if WireError.isError(json) { throw WireError.nimbusError(from: json, in: zoneID) }
                page.records.append(try RecordWireCoding.record(json, in: Self.assumedZone(zoneID), at: "records[\(index)]"))
            } else {
                page.records.append(response.takeRecord(at: index))
            }
        }
        page.cursor = response.continuationMarker
        return page
    }

    /// Counts the records a query's filters match (`records/count`, a Nimbus extension): no
    /// records are fetched, and there is no limit. The query's sort does not matter.
    /// - Parameter zoneID: the zone to count in; `nil` counts in every zone of the database.
    /// - Throws: what ``queryPage(_:in:continuingFrom:resultsLimit:desiredKeys:)`` throws for
    ///   the query and zone.
    public func count(matching query: Query, in zoneID: ZoneID?) async throws -> Int {
        let request = RecordsQueryRequest(query: query, zoneID: zoneID)
        let response = try await post("records/count", idempotent: true) { request.write(to: &$0) }
        return try serverAnswer { () throws(NimbusError) in try RecordsCountResponse(json: .object(response)) }.count
    }

    /// Fetches every result of a query, following cursors page after page.
    /// - Parameters:
    ///   - query: the record type, filters and sort order.
    ///   - zoneID: the zone to search; `nil` searches every zone of the database.
    ///   - resultsLimit: records per request.
    ///   - progress: called with the number of records fetched so far after each page.
    /// - Returns: all matching records, in the query's order.
    public func records(
        matching query: Query,
        in zoneID: ZoneID?,
        resultsLimit: Int? = nil,
        progress: (Int) -> Void = { _ in }
    ) async throws -> [Record] {
        var records: [Record] = []
        var cursor: String?
        repeat {
            let page = try await queryPage(query, in: zoneID, continuingFrom: cursor, resultsLimit: resultsLimit)
            records += page.records
            progress(records.count)
            cursor = page.cursor
        } while cursor != nil
        return records
    }

    /// The zone a record of a response is in when it names none (the server always names it).
    private static func assumedZone(_ zoneID: ZoneID?) -> ZoneID {
        zoneID ?? ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
    }
}
