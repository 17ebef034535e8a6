//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: change feeds against a live server", .timeLimit(.minutes(2)))
struct DatabaseChangesTests {
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

    @Test("a sync from scratch follows pages to the end; a later sync from its token gets exactly the new changes")
    func zoneChanges() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            _ = try await database.modifyRecords(saving: (0..<25).map { .note("n\($0)", in: notes) }, atomically: false)
            var pages: [ZoneChangesPage] = []
            var replica: [String: Record] = [:]
            let token = try await database.fetchZoneChanges(in: notes, since: nil, resultsLimit: 10) { page in
                pages.append(page)
                for record in page.changed { replica[record.recordID.recordName] = record }
            }
            #expect(pages.count == 3)
            #expect(replica.count == 25)
            // Each page says how far through the zone's changes it is: a third, two thirds, all.
            let progress = pages.compactMap(\.progress)
            #expect(progress.count == 3)
            #expect(progress.map(\.from) == [0] + progress.dropLast().map(\.through), "each page starts where the one before ended")
            #expect(Set(progress.map(\.latest)).count == 1)
            let shares = progress.map { $0.fractionCompleted(since: 0) }
            #expect(shares[0] > 0.3 && shares[0] < 0.5 && shares[1] > 0.7 && shares[1] < 0.9 && shares[2] == 1, "\(shares)")

            var changed = try #require(replica["n3"])
            changed.fields["title"] = .string("edited")
            _ = try await database.save(changed)
            try await database.deleteRecord(RecordID(recordName: "n4", zoneID: notes))
            var seen: [ZoneChangesPage] = []
            _ = try await database.fetchZoneChanges(in: notes, since: token) { seen.append($0) }
            #expect(seen.flatMap(\.changed).map(\.recordID.recordName) == ["n3"])
            #expect(seen.flatMap(\.changed).first?.fields["title"] == .string("edited"))
            #expect(seen.flatMap(\.deleted).map(\.recordID.recordName) == ["n4"])
            #expect(seen.flatMap(\.deleted).map(\.recordType) == ["Note"])

            // One page at a time, through the database the container names by scope.
            let single = try await f.container(as: f.alice).database(.private).zoneChangesPage(in: notes, since: nil, resultsLimit: 5)
            #expect(single.changed.count == 5 && single.moreComing)
            #expect(single.progress?.from == 0)
        }
    }

    @Test("database changes name new and deleted zones")
    func databaseChanges() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            let start = try await database.fetchDatabaseChanges(since: nil)
            try await database.save(zones: [notes])
            var changed: [ZoneID] = []
            let afterCreate = try await database.fetchDatabaseChanges(since: start) { changed += $0.changedZones }
            #expect(changed.map(\.zoneName) == ["Notes"])
            try await database.delete(zones: [notes])
            var deleted: [ZoneID] = []
            _ = try await database.fetchDatabaseChanges(since: afterCreate) { deleted += $0.deletedZones }
            #expect(deleted.map(\.zoneName) == ["Notes"])
        }
    }

    @Test("a forged token is an error, not another zone's data")
    func forgedToken() async throws {
        try await ClientFixture.with { f in
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            let error = try await #require(throws: NimbusError.self) {
                try await database.fetchZoneChanges(in: notes, since: "AAAAforged")
            }
            #expect(error.code == .badRequest || error.code == .changeTokenExpired)
        }
    }
}
