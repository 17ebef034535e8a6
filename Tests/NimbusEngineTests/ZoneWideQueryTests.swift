//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// `zoneWide`: a query without a zone that searches every zone of the database.
@Suite("records/query: zoneWide")
struct ZoneWideQueryTests {
    /// Alice's zones A and B with notes of the same names in both, and one in her default zone.
    private func seed(_ f: EngineFixture) async throws {
        for zone in ["A", "B", "Gone"] { try await f.makeZone(zone, for: f.alice) }
        for (zone, ranks) in [("A", [3, 1, 2]), ("B", [1, 3]), ("Gone", [1])] {
            _ = try await f.modify(ranks.enumerated().map { .note("n\($0.offset)", ["rank": .int64(Int64($0.element))]) }, zone: zone)
        }
        _ = try await f.save(.note("home", ["rank": .int64(2)]), zone: ZoneID.defaultZoneName)
        _ = try await f.database.modifyZones([.delete(ZoneID(zoneName: "Gone", ownerRecordName: ""))], access: f.access(f.alice))
        // Bob's records are never in Alice's results.
        try await f.makeZone("A", for: f.bob)
        _ = try await f.save(.note("bobs", ["rank": .int64(0)]), zone: "A", as: f.bob)
    }

    private func page(
        _ f: EngineFixture,
        _ query: Query,
        zone: ZoneID? = nil,
        zoneWide: Bool = true,
        limit: Int,
        marker: String? = nil,
        scope: DatabaseScope = .private
    ) async throws(NimbusError) -> QueryResult {
        try await f.database.queryRecords(
            query,
            inZone: zone,
            zoneWide: zoneWide,
            resultsLimit: limit,
            continuationMarker: marker,
            access: f.access(f.alice, scope)
        )
    }

    @Test("every zone of the private database, in the sort's order, ties by zone then name, page by page", arguments: [1, 2, 200])
    func everyZone(pageSize: Int) async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(recordType: "Note", sortDescriptors: [SortDescriptor("rank", ascending: true)])
            var found: [String] = []
            var marker: String?
            repeat {
                let result = try await page(f, query, limit: pageSize, marker: marker)
                found += result.records.map { "\($0.recordID.zoneID.zoneName)/\($0.recordID.recordName)" }
                #expect(result.records.allSatisfy { $0.recordID.zoneID.ownerRecordName == f.alice })
                marker = result.continuationMarker
            } while marker != nil
            #expect(found == ["A/n1", "B/n0", "A/n2", "_defaultZone/home", "A/n0", "B/n1"])
        }
    }

    @Test("a zone given wins over zoneWide; without zoneWide, no zone is the default zone")
    func zoneGiven() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(recordType: "Note")
            let inB = try await page(f, query, zone: ZoneID(zoneName: "B", ownerRecordName: ""), limit: 10)
            #expect(Set(inB.records.map(\.recordID.zoneID.zoneName)) == ["B"])
            let plain = try await page(f, query, zoneWide: false, limit: 10)
            #expect(plain.records.map(\.recordID.recordName) == ["home"])
            let filtered = Query(recordType: "Note", filters: [Filter("rank", .greaterThanOrEquals, .int64(3))])
            #expect(try await f.database.countRecords(filtered, inZone: nil, zoneWide: true, access: f.access(f.alice)) == 2)
        }
    }

    @Test("a marker of a zone-wide query does not continue the same query in one zone")
    func markerIsZoneWide() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(recordType: "Note")
            let first = try await page(f, query, limit: 2)
            let marker = try #require(first.continuationMarker)
            let error = await #expect(throws: NimbusError.self) {
                _ = try await page(f, query, zone: ZoneID(zoneName: "A", ownerRecordName: ""), limit: 2, marker: marker)
            }
            #expect(error?.code == .badRequest)
        }
    }

    @Test("the shared database refuses a zone-wide query, as CloudKit does")
    func sharedDatabaseRefuses() async throws {
        try await EngineFixture.with { f in
            let error = await #expect(throws: NimbusError.self) {
                _ = try await page(f, Query(recordType: "Note"), limit: 10, scope: .shared)
            }
            #expect(error?.code == .badRequest)
            #expect(error?.reason == "SharedDB does not support Zone Wide queries")
        }
    }
}
