//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("record store conformance: queries and counts")
struct QueryConformanceTests {
    private static let fieldTypes: [NameKey: FieldType] = ["title": .string, "rank": .int64]

    /// Notes n1...n6 with ranks 30, 10, 20, 10, 50, 40, a Folder, and a deleted note.
    private static func seed(_ f: StoreFixture, zone: String = "Z") async throws {
        _ = try await f.store.createZone(named: zone, of: f.tenant())
        let ranks: [Int64] = [30, 10, 20, 10, 50, 40]
        var records = ranks.enumerated().map { index, rank in
            f.record("n\(index + 1)", in: zone, fields: ["title": .string("note \(index + 1)"), "rank": .int64(rank)])
        }
        records.append(f.record("folder", type: "Folder", in: zone, fields: ["rank": .int64(10)]))
        records.append(f.record("dead", in: zone, fields: ["rank": .int64(10)]))
        try await f.save(records, in: zone)
        try await f.delete(["dead"], in: zone)
    }

    private static func request(
        _ f: StoreFixture,
        filters: [Filter] = [],
        sort: [SortDescriptor] = [],
        limit: Int = 100,
        zone: String = "Z"
    ) -> RecordQuery {
        RecordQuery(
            tenant: f.tenant(),
            zoneName: zone,
            query: Query(recordType: "Note", filters: filters, sortDescriptors: sort),
            limit: limit,
            fieldTypes: fieldTypes
        )
    }

    @Test("a query returns the zone's live records of its type, by record name without sort descriptors", arguments: StoreFactory.all)
    func recordType(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await Self.seed(f)
            let results = try await f.store.query(Self.request(f))
            #expect(results.map(\.recordID.recordName) == ["n1", "n2", "n3", "n4", "n5", "n6"])
            let stored = try await f.store.records(named: ["n3"], inZone: "Z", of: f.tenant())["n3"]
            #expect(results[2] == stored)
            // Another zone's records, and another tenant's, are not in it.
            _ = try await f.store.createZone(named: "Other", of: f.tenant())
            try await f.save([f.record("o1", in: "Other")], in: "Other")
            #expect(try await f.store.query(Self.request(f, zone: "Other")).map(\.recordID.recordName) == ["o1"])
            var bobs = Self.request(f)
            bobs.tenant = f.tenant(StoreFixture.bob)
            bobs.zoneName = ZoneID.defaultZoneName
            #expect(try await f.store.query(bobs).isEmpty)
        }
    }

    @Test("filters select, and sort descriptors order with the record name breaking ties", arguments: StoreFactory.all)
    func filtersAndOrder(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await Self.seed(f)
            let equal = try await f.store.query(Self.request(f, filters: [Filter("rank", .equals, .int64(10))]))
            #expect(equal.map(\.recordID.recordName) == ["n2", "n4"])
            let ranged = try await f.store.query(
                Self.request(f, filters: [Filter("rank", .greaterThan, .int64(10)), Filter("rank", .lessThanOrEquals, .int64(40))])
            )
            #expect(ranged.map(\.recordID.recordName) == ["n1", "n3", "n6"])
            let ascending = try await f.store.query(Self.request(f, sort: [SortDescriptor("rank")]))
            #expect(ascending.map(\.recordID.recordName) == ["n2", "n4", "n3", "n1", "n6", "n5"])
            let descending = try await f.store.query(Self.request(f, sort: [SortDescriptor("rank", ascending: false)]))
            #expect(descending.map(\.recordID.recordName) == ["n5", "n6", "n1", "n3", "n2", "n4"])
            let titled = try await f.store.query(Self.request(f, filters: [Filter("title", .beginsWith, .string("note 5"))]))
            #expect(titled.map(\.recordID.recordName) == ["n5"])
        }
    }

    @Test("pages of `limit` results resume after a position without repeating or skipping", arguments: StoreFactory.all)
    func pages(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await Self.seed(f)
            var request = Self.request(f, sort: [SortDescriptor("rank")], limit: 4)
            var names: [String] = []
            var pageSizes: [Int] = []
            while pageSizes.count < 5 {
                let page = try await f.store.query(request)
                names += page.map(\.recordID.recordName)
                pageSizes.append(page.count)
                guard let last = page.last, page.count == request.limit else { break }
                request.after = request.position(of: last)
            }
            #expect(names == ["n2", "n4", "n3", "n1", "n6", "n5"])
            #expect(pageSizes == [4, 2])
        }
    }

    @Test("a count counts every match, whatever the query's limit and position", arguments: StoreFactory.all)
    func counts(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await Self.seed(f)
            #expect(try await f.store.count(Self.request(f)) == 6)
            var limited = Self.request(f, filters: [Filter("rank", .greaterThanOrEquals, .int64(20))], sort: [SortDescriptor("rank")], limit: 1)
            #expect(try await f.store.count(limited) == 4)
            let first = try #require(try await f.store.query(limited).first)
            limited.after = limited.position(of: first)
            #expect(try await f.store.count(limited) == 4)
            #expect(try await f.store.count(Self.request(f, filters: [Filter("rank", .equals, .int64(99))])) == 0)
        }
    }

    @Test("a zone-wide query searches every zone of the tenant, by zone name then record name", arguments: StoreFactory.all)
    func zoneWide(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await Self.seed(f, zone: "B")
            _ = try await f.store.createZone(named: "A", of: f.tenant())
            try await f.save([f.record("n9", in: "A", fields: ["rank": .int64(10)])], in: "A")
            var request = Self.request(f, filters: [Filter("rank", .equals, .int64(10))])
            request.isZoneWide = true
            let results = try await f.store.query(request)
            let expected = [("A", "n9"), ("B", "n2"), ("B", "n4")].map { zone, name in
                RecordID(recordName: name, zoneID: ZoneID(zoneName: zone, ownerRecordName: StoreFixture.alice))
            }
            #expect(results.map(\.recordID) == expected)
            #expect(try await f.store.count(request) == 3)
        }
    }
}
