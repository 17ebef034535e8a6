//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: queries against a live server", .timeLimit(.minutes(2)))
struct DatabaseQueryTests {
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

    @Test("records(matching:) follows cursors to the last page and keeps the query's order")
    func followsCursors() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let records = (0..<30).map {
                Record.note("n\($0)", in: notes, ["group": .string($0 % 2 == 0 ? "even" : "odd"), "index": .int64(Int64($0))])
            }
            _ = try await database.modifyRecords(saving: records, atomically: false)
            let query = Query(
                recordType: "Note",
                filters: [Filter("group", .equals, .string("even"))],
                sortDescriptors: [SortDescriptor("index", ascending: false)]
            )
            var progress: [Int] = []
            let found = try await database.records(matching: query, in: notes, resultsLimit: 4) { progress.append($0) }
            #expect(found.map(\.recordID.recordName) == stride(from: 28, through: 0, by: -2).map { "n\($0)" })
            #expect(progress == [4, 8, 12, 15])

            let first = try await database.queryPage(query, in: notes, resultsLimit: 4)
            #expect(first.records.count == 4)
            #expect(first.cursor != nil)
        }
    }

    @Test("count(matching:) counts what the filters match, past any page size, over what the caller may read")
    func counts() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let records = (0..<250).map {
                Record.note("n\($0)", in: notes, ["tags": .list(elementType: .string, [.string($0 % 5 == 0 ? "five" : "other")])])
            }
            _ = try await database.modifyRecords(saving: Array(records[..<200]), atomically: false)
            _ = try await database.modifyRecords(saving: Array(records[200...]), atomically: false)
            #expect(try await database.count(matching: Query(recordType: "Note"), in: notes) == 250)
            let fives = Query(recordType: "Note", filters: [Filter("tags", .listContains, .string("five"))])
            #expect(try await database.count(matching: fives, in: notes) == 50)
            #expect(try await database.records(matching: fives, in: notes).count == 50)
            // Bob cannot count Alice's records: her zone is not in his database.
            await #expect(throws: NimbusError.self) {
                _ = try await f.container(as: f.bob).privateCloudDatabase.count(matching: fives, in: notes)
            }
        }
    }

    @Test("a filter the server cannot apply is badRequest with a reason naming the field")
    func badFilter() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            _ = try await database.save(.note("n1", in: notes, ["index": .int64(1)]))
            let query = Query(recordType: "Note", filters: [Filter("index", .beginsWith, .string("1"))])
            let error = try await #require(throws: NimbusError.self) { try await database.records(matching: query, in: notes) }
            #expect(error.code == .badRequest)
            #expect(error.reason.contains("index"))
        }
    }

    @Test("a query without a zone searches every zone of the database (zoneWide)")
    func zoneWide() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            let work = ZoneID(zoneName: "Work", ownerRecordName: "")
            try await database.save(zones: [notes, work])
            _ = try await database.modifyRecords(
                saving: [
                    .note("a", in: notes, ["index": .int64(2)]), .note("a", in: work, ["index": .int64(1)]),
                    .note("b", in: work, ["index": .int64(3)]),
                ],
                atomically: false
            )
            let query = Query(recordType: "Note", sortDescriptors: [SortDescriptor("index", ascending: true)])
            let found = try await database.records(matching: query, in: nil, resultsLimit: 1)
            #expect(found.map { "\($0.recordID.zoneID.zoneName)/\($0.recordID.recordName)" } == ["Work/a", "Notes/a", "Work/b"])
            #expect(try await database.count(matching: query, in: nil) == 3)
            let error = try await #require(throws: NimbusError.self) {
                try await f.container(as: f.alice).sharedCloudDatabase.queryPage(query, in: nil)
            }
            #expect(error.code == .badRequest)
        }
    }

    @Test("NEAR with its distance and a sort by distance reach the server")
    func nearAndDistanceSort() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let places = [("paris", 48.8566, 2.3522), ("lyon", 45.7640, 4.8357), ("berlin", 52.5200, 13.4050)]
            _ = try await database.modifyRecords(
                saving: places.map { .note($0.0, in: notes, ["where": .location(Location(latitude: $0.1, longitude: $0.2))]) },
                atomically: false
            )
            let paris = Location(latitude: 48.8566, longitude: 2.3522)
            let query = Query(
                recordType: "Note",
                filters: [Filter("where", .near, .location(paris), distance: 500)],
                sortDescriptors: [SortDescriptor("where", ascending: false, relativeLocation: paris)]
            )
            #expect(try await database.records(matching: query, in: notes).map(\.recordID.recordName) == ["lyon", "paris"])
        }
    }
}
