//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusWire

extension DatabaseEndpoints {
    /// `changes/database` and `zones/changes`: which zones changed since a database token.
    func databaseChanges() async throws(NimbusError) -> [UInt8] {
        let request = try DatabaseChangesRequest.parseAllowingEmpty(body)
        let page = try await database.databaseChanges(syncToken: request.syncToken, resultsLimit: request.resultsLimit, access: access)
        return encode(
            ZonesResponse(
                // No per-zone syncToken here: it would be the zone's current one, and a client
                // that stored it would skip the very changes it is about to fetch.
                zones: page.zones.map { change in
                    switch change {
                    case .changed(let zone): .zone(WireZone(zoneID: zone.zoneID, syncToken: nil, atomic: zone.isAtomic))
                    case .deleted(let zoneID): .deleted(zoneID)
                    }
                },
                syncToken: page.syncToken,
                moreComing: page.moreComing
            )
        )
    }

    /// `records/changes`: one zone's changes since a zone token.
    func recordChanges() async throws(NimbusError) -> [UInt8] {
        let request = try RecordsChangesRequest.parse(body)
        let feed = request.feed
        let page = try await database.recordChanges(
            inZone: feed.zoneID,
            syncToken: feed.syncToken,
            resultsLimit: feed.resultsLimit,
            recordTypes: feed.desiredRecordTypes,
            access: access
        )
        return encode(wire(page, desiredKeys: feed.desiredKeys, reverse: false, withZoneID: false), numbersAsStrings: request.numbersAsStrings)
    }

    /// `changes/zone`: several zones' changes, each zone answering on its own.
    func zoneChanges() async throws(NimbusError) -> [UInt8] {
        let request = try ZoneChangesRequest.parse(body)
        let results = try await database.recordChanges(
            request.zones.map {
                ZoneFeedQuery(zoneID: $0.zoneID, syncToken: $0.syncToken, resultsLimit: $0.resultsLimit, recordTypes: $0.desiredRecordTypes)
            },
            access: access
        )
        return encode(
            ZoneChangesResponse(
                zones: zip(request.zones, results).map { zone, result in
                    switch result {
                    case .success(let page): .page(wire(page, desiredKeys: zone.desiredKeys, reverse: request.reverse, withZoneID: true))
                    case .failure(let error):
                        .error(itemError(error, zoneID: zone.zoneID ?? ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")))
                    }
                }
            ),
            numbersAsStrings: request.numbersAsStrings
        )
    }

    /// A feed page in its wire form. `reverse` orders the page newest first; the pages
    /// themselves still advance from the token, so resuming stays exact.
    private func wire(_ page: RecordChangesPage, desiredKeys: [String]?, reverse: Bool, withZoneID: Bool) -> ZoneFeedPage {
        let desired = NameKey.set(desiredKeys)
        var records = page.changes.map { change -> RecordsResponseItem in
            switch change {
            case .saved(let record): .record(wire(record, desiredKeys: desired))
            case .deleted(let tombstone): .tombstone(WireTombstone(recordName: tombstone.recordName, recordType: tombstone.recordType))
            }
        }
        if reverse { records.reverse() }
        return ZoneFeedPage(
            zoneID: withZoneID ? page.zoneID : nil,
            records: records,
            syncToken: page.syncToken,
            moreComing: page.moreComing,
            progress: page.progress
        )
    }
}
