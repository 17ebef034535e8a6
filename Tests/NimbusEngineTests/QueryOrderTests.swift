//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// The order of sorted queries over records with and without the sort fields, page by page:
/// a sort reads the records that have its first field, then those without it, in two parts
/// (so an index on the field can serve the first); pages must join into the one order.
@Suite("records/query: order and pages across records without the sort field")
struct QueryOrderTests {
    private struct Note {
        var name: String
        var group: String?
        var rank: Int64?
    }

    /// Ties in both fields, and records lacking either or both.
    private static let notes: [Note] = (0..<17).map { index in
        Note(
            name: "n\(index < 10 ? "0" : "")\(index)",
            group: index % 5 == 4 ? nil : (index.isMultiple(of: 2) ? "a" : "b"),
            rank: index >= 12 ? nil : Int64(index % 4)
        )
    }

    private func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Notes", for: f.alice)
        _ = try await f.modify(
            Self.notes.map { note in
                var fields: [NameKey: FieldValue] = [:]
                if let group = note.group { fields["group"] = .string(group) }
                if let rank = note.rank { fields["rank"] = .int64(rank) }
                return .note(note.name, fields)
            }
        )
    }

    /// Every page of a query, joined.
    private func allPages(_ f: EngineFixture, _ query: Query, pageSize: Int) async throws -> [String] {
        var names: [String] = []
        var marker: String?
        repeat {
            let page = try await f.database.queryRecords(
                query,
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                resultsLimit: pageSize,
                continuationMarker: marker,
                access: f.access(f.alice)
            )
            #expect(page.records.count <= pageSize)
            names += page.records.map(\.recordID.recordName)
            marker = page.continuationMarker
        } while marker != nil
        return names
    }

    /// `a` before `b` by one key: present values in the key's direction, absent ones last.
    private static func precedes<Value: Comparable>(_ a: Value?, _ b: Value?, ascending: Bool) -> Bool? {
        switch (a, b) {
        case (nil, nil): return nil
        case (nil, _): return false
        case (_, nil): return true
        case (let a?, let b?): return a == b ? nil : (ascending ? a < b : a > b)
        }
    }

    @Test(
        "one sort key: records with the field in its order, then those without, every record once",
        arguments: [true, false],
        [1, 3, 5, 200]
    )
    func oneKey(ascending: Bool, pageSize: Int) async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let names = try await allPages(
                f,
                Query(recordType: "Note", sortDescriptors: [SortDescriptor("rank", ascending: ascending)]),
                pageSize: pageSize
            )
            let expected = Self.notes.sorted { a, b in
                Self.precedes(a.rank, b.rank, ascending: ascending) ?? (a.name < b.name)
            }.map(\.name)
            #expect(names == expected)
        }
    }

    @Test(
        "a filter on the sort field leaves out records without it, and pages still join",
        arguments: [true, false],
        [1, 4]
    )
    func filteredOnSortField(ascending: Bool, pageSize: Int) async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(
                recordType: "Note",
                filters: [Filter("rank", .lessThan, .int64(3))],
                sortDescriptors: [SortDescriptor("rank", ascending: ascending)]
            )
            let names = try await allPages(f, query, pageSize: pageSize)
            let expected = Self.notes.filter { ($0.rank ?? 3) < 3 }.sorted { a, b in
                Self.precedes(a.rank, b.rank, ascending: ascending) ?? (a.name < b.name)
            }.map(\.name)
            #expect(names == expected)
            #expect(!names.isEmpty)
        }
    }

    @Test("an empty NOT_IN on the sort field excludes nothing: records without the field still come last")
    func emptyNotIn() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(
                recordType: "Note",
                filters: [Filter("rank", .notIn, .list(elementType: .int64, []))],
                sortDescriptors: [SortDescriptor("rank", ascending: true)]
            )
            let names = try await allPages(f, query, pageSize: 4)
            let expected = Self.notes.sorted { a, b in
                Self.precedes(a.rank, b.rank, ascending: true) ?? (a.name < b.name)
            }.map(\.name)
            #expect(names == expected)
        }
    }

    @Test("two sort keys: each key's absent values last, within the previous key's ties", arguments: [1, 2, 7])
    func twoKeys(pageSize: Int) async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(
                recordType: "Note",
                sortDescriptors: [SortDescriptor("group", ascending: true), SortDescriptor("rank", ascending: false)]
            )
            let names = try await allPages(f, query, pageSize: pageSize)
            let expected = Self.notes.sorted { a, b in
                Self.precedes(a.group, b.group, ascending: true)
                    ?? Self.precedes(a.rank, b.rank, ascending: false)
                    ?? (a.name < b.name)
            }.map(\.name)
            #expect(names == expected)
        }
    }

    @Test("records saved between pages: those that did not change are neither repeated nor skipped")
    func changesBetweenPages() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let query = Query(recordType: "Note", sortDescriptors: [SortDescriptor("rank", ascending: false)])
            let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")
            let first = try await f.database.queryRecords(query, inZone: zone, resultsLimit: 6, continuationMarker: nil, access: f.access(f.alice))
            // New records on both sides of the page boundary, and in the part without the field.
            _ = try await f.modify([.note("new-top", ["rank": .int64(9)]), .note("new-low", ["rank": .int64(0)]), .note("new-none")])
            var names = first.records.map(\.recordID.recordName)
            var marker = first.continuationMarker
            while let current = marker {
                let page = try await f.database.queryRecords(
                    query,
                    inZone: zone,
                    resultsLimit: 6,
                    continuationMarker: current,
                    access: f.access(f.alice)
                )
                names += page.records.map(\.recordID.recordName)
                marker = page.continuationMarker
            }
            #expect(Set(Self.notes.map(\.name)).isSubset(of: Set(names)))
            #expect(names.count == Set(names).count, "no record repeated: \(names)")
            #expect(!names.contains("new-top"), "a record sorting before the position is not read later")
            #expect(names.contains("new-low") && names.contains("new-none"))
        }
    }
}
