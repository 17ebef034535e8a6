//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusEngine
import NimbusModel
import NimbusSQL
import Testing

@Suite("records/query")
struct QueryTests {
    private let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")

    private func seed(_ f: EngineFixture, count: Int) async throws {
        try await f.makeZone("Notes", for: f.alice)
        let operations = (0..<count).map { index in
            RecordOperation.note(
                "n\(index)",
                ["rank": .int64(Int64(index % 7)), "kind": .string(index.isMultiple(of: 2) ? "even" : "odd")]
            )
        }
        _ = try await f.modify(operations)
        _ = try await f.save(RecordOperation(kind: .create, recordName: "other", recordType: "Other", fields: ["kind": FieldInput(.string("even"))]))
    }

    @Test("EQUALS filters by value and record type")
    func equalsFilter() async throws {
        try await EngineFixture.with { f in
            try await seed(f, count: 10)
            let result = try await f.database.queryRecords(
                Query(recordType: "Note", filters: [Filter("kind", .equals, .string("even"))]),
                inZone: zone,
                resultsLimit: nil,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            #expect(Set(result.records.map(\.recordID.recordName)) == ["n0", "n2", "n4", "n6", "n8"])
            #expect(result.continuationMarker == nil)
        }
    }

    @Test("a filter on a field no record of the type has matches nothing, whatever the value's type")
    func unknownField() async throws {
        try await EngineFixture.with { f in
            try await seed(f, count: 3)
            for value: FieldValue in [.int64(5), .double(1.5), .string("x"), .timestamp(1_700_000_000_000)] {
                for comparator: Filter.Comparator in [.equals, .greaterThanOrEquals, .notEquals] {
                    let result = try await f.database.queryRecords(
                        Query(recordType: "Note", filters: [Filter("neverSaved", comparator, value)]),
                        inZone: zone,
                        resultsLimit: nil,
                        continuationMarker: nil,
                        access: f.access(f.alice)
                    )
                    #expect(result.records.isEmpty, "\(comparator) \(value)")
                }
            }
        }
    }

    @Test("pages follow the sort with continuation markers, without repeats or gaps")
    func pagination() async throws {
        try await EngineFixture.with { f in
            try await seed(f, count: 23)
            let query = Query(recordType: "Note", sortDescriptors: [SortDescriptor("rank", ascending: false)])
            var marker: String?
            var seen: [Record] = []
            repeat {
                let page = try await f.database.queryRecords(
                    query,
                    inZone: zone,
                    resultsLimit: 5,
                    continuationMarker: marker,
                    access: f.access(f.alice)
                )
                #expect(page.records.count <= 5)
                seen += page.records
                marker = page.continuationMarker
            } while marker != nil
            #expect(seen.count == 23)
            #expect(Set(seen.map(\.recordID.recordName)).count == 23)
            let ranks = seen.compactMap { record -> Int64? in
                if case .int64(let rank) = record.fields["rank"] { return rank }
                return nil
            }
            #expect(ranks == ranks.sorted(by: >))
        }
    }

    @Test("a marker from another query is a BAD_REQUEST")
    func foreignMarker() async throws {
        try await EngineFixture.with { f in
            try await seed(f, count: 6)
            let first = try await f.database.queryRecords(
                Query(recordType: "Note"),
                inZone: zone,
                resultsLimit: 2,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            let marker = try #require(first.continuationMarker)
            for bad in [marker + "x", "garbage"] {
                await #expect(throws: NimbusError.self) {
                    _ = try await f.database.queryRecords(
                        Query(recordType: "Note"),
                        inZone: zone,
                        resultsLimit: 2,
                        continuationMarker: bad,
                        access: f.access(f.alice)
                    )
                }
            }
            do {
                _ = try await f.database.queryRecords(
                    Query(recordType: "Note", filters: [Filter("kind", .equals, .string("odd"))]),
                    inZone: zone,
                    resultsLimit: 2,
                    continuationMarker: marker,
                    access: f.access(f.alice)
                )
                Issue.record("marker of another query accepted")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
        }
    }

    @Test("resultsLimit outside 1...200 is a BAD_REQUEST", arguments: [0, 201])
    func resultsLimitBounds(limit: Int) async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            await #expect(throws: NimbusError.self) {
                _ = try await f.database.queryRecords(
                    Query(recordType: "Note"),
                    inZone: zone,
                    resultsLimit: limit,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
            }
        }
    }

    @Test("system fields sort and filter: ___createTime and ___recordID")
    func systemFields() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            for index in 0..<3 {
                _ = try await f.save(.note("s\(index)"))
                f.clock.advance(by: .milliseconds(1000))
            }
            let newestFirst = try await f.database.queryRecords(
                Query(recordType: "Note", sortDescriptors: [SortDescriptor("___createTime", ascending: false)]),
                inZone: zone,
                resultsLimit: nil,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            #expect(newestFirst.records.map(\.recordID.recordName) == ["s2", "s1", "s0"])
            let byID = try await f.database.queryRecords(
                Query(recordType: "Note", filters: [Filter("___recordID", .equals, .reference(Reference(recordName: "s1")))]),
                inZone: zone,
                resultsLimit: nil,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            #expect(byID.records.map(\.recordID.recordName) == ["s1"])
        }
    }
}

@Suite("query plumbing under churn")
struct QueryChurnTests {
    @Test("queries on hundreds of different fields keep working: the statement cache stays bounded")
    func manyDistinctStatements() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("n1", ["f0": .string("x")]))
            for index in 0..<300 {
                let result = try await f.database.queryRecords(
                    Query(recordType: "Note", filters: [Filter("f\(index)", .equals, .string("x"))]),
                    inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                    resultsLimit: nil,
                    continuationMarker: nil,
                    access: f.access(f.alice)
                )
                #expect(result.records.count == (index == 0 ? 1 : 0))
            }
        }
    }

    @Test("fields another server instance added are learned, so reference filters use them")
    func fieldsFromAnotherInstance() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
            // Instance A caches the type's schema before the field exists.
            _ = try await f.save(.note("first", ["title": .string("t")]))
            _ = try await f.database.queryRecords(
                Query(recordType: "Note"),
                inZone: zone,
                resultsLimit: nil,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            // Instance B, on the same database, introduces a reference field.
            try await f.withSecondInstance { instanceB in
                var fromB = RecordOperation.note("fromB")
                fromB.fields["owner"] = FieldInput(.reference(Reference(recordName: "first")))
                _ = try await instanceB.modifyRecords([fromB], inZone: zone, atomic: true, access: f.access(f.alice))
            }
            // Instance A saves with the field, then filters on it.
            var fromA = RecordOperation.note("fromA")
            fromA.fields["owner"] = FieldInput(.reference(Reference(recordName: "first")))
            _ = try await f.modify([fromA])
            let result = try await f.database.queryRecords(
                Query(recordType: "Note", filters: [Filter("owner", .equals, .reference(Reference(recordName: "first")))]),
                inZone: zone,
                resultsLimit: nil,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            #expect(Set(result.records.map(\.recordID.recordName)) == ["fromA", "fromB"])
        }
    }
}
