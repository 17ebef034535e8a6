//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// Indexes on the values queries filter and sort on, built in the background on first use.
@Suite("records/query: field indexes")
struct FieldIndexTests {
    private let zone = ZoneID(zoneName: "Notes", ownerRecordName: "")

    private func sentBefore(_ f: EngineFixture, _ limit: Int64) async throws -> [String] {
        let query = Query(
            recordType: "Note",
            filters: [Filter("sent", .lessThan, .timestamp(limit))],
            sortDescriptors: [SortDescriptor("sent", ascending: false)]
        )
        let page = try await f.database.queryRecords(query, inZone: zone, resultsLimit: 50, continuationMarker: nil, access: f.access(f.alice))
        return page.records.map(\.recordID.recordName)
    }

    @Test("a query builds the index of the value it filters and sorts on; other record types keep text in that field")
    func indexSpansRecordTypes() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.modify((0..<6).map { .note("note-\($0)", ["sent": .timestamp(Int64($0) * 1_000)]) })
            // The same field name holding text in another record type: the index (one per
            // expression, for every type) must neither fail to build nor refuse these records.
            _ = try await f.save(
                RecordOperation(kind: .create, recordName: "log-1", recordType: "Log", fields: ["sent": FieldInput(.string("yesterday"))])
            )
            #expect(try await f.store.fieldIndexNames().isEmpty)

            #expect(try await sentBefore(f, 3_500) == ["note-3", "note-2", "note-1", "note-0"])
            await f.store.waitForFieldIndexes()
            #expect(try await f.store.fieldIndexNames().count == 1, "one index: the filter and the sort read the same value")

            _ = try await f.save(
                RecordOperation(kind: .create, recordName: "log-2", recordType: "Log", fields: ["sent": FieldInput(.string("today"))])
            )
            _ = try await f.save(.note("note-9", ["sent": .timestamp(500)]))
            #expect(try await sentBefore(f, 3_500) == ["note-3", "note-2", "note-1", "note-9", "note-0"])
            let logs = try await f.database.queryRecords(
                Query(recordType: "Log", filters: [Filter("sent", .equals, .string("today"))]),
                inZone: zone,
                resultsLimit: 10,
                continuationMarker: nil,
                access: f.access(f.alice)
            )
            #expect(logs.records.map(\.recordID.recordName) == ["log-2"])
        }
    }

    @Test("queries build no index for fields no record has, and no more than the limit for fields that exist")
    func boundedIndexes() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let fieldCount = 40
            var fields: [NameKey: FieldValue] = [:]
            for index in 0..<fieldCount { fields[NameKey("f\(index)")] = .int64(Int64(index)) }
            _ = try await f.save(.note("wide", fields))
            func query(_ field: String) async throws {
                let query = Query(recordType: "Note", filters: [Filter(field, .equals, .int64(1))])
                _ = try await f.database.queryRecords(query, inZone: zone, resultsLimit: 1, continuationMarker: nil, access: f.access(f.alice))
            }
            for index in 0..<fieldCount { try await query("madeUp\(index)") }
            await f.store.waitForFieldIndexes()
            #expect(try await f.store.fieldIndexNames().isEmpty, "made-up field names build nothing")
            for index in 0..<fieldCount { try await query("f\(index)") }
            await f.store.waitForFieldIndexes()
            #expect(try await f.store.fieldIndexNames().count == 32)
        }
    }
}
