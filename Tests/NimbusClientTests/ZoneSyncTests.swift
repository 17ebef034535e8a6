//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: zone sync with a stored token", .timeLimit(.minutes(2)))
struct ZoneSyncTests {
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

    /// A local copy of a zone, as an app keeps one.
    actor Replica {
        var records: [String: Record] = [:]
        var pagesApplied = 0
        var resets = 0
        func apply(_ page: ZoneChangesPage) {
            for record in page.changed { records[record.recordID.recordName] = record }
            for deleted in page.deleted { records[deleted.recordID.recordName] = nil }
            pagesApplied += 1
        }
        func reset() {
            records = [:]
            resets += 1
        }
    }

    struct Interrupted: Error {}

    @Test("a sync interrupted after a page resumes from the stored token and ends with the server's records")
    func resumesAfterInterruption() async throws {
        try await ClientFixture.with { f in
            let directory = try TokenDirectory()
            defer { directory.remove() }
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            _ = try await database.modifyRecords(saving: (0..<30).map { .note("n\($0)", in: notes) }, atomically: false)

            let replica = Replica()
            let tokens = FileChangeTokenStore(fileURL: directory.tokenFile)
            // The app dies while applying the third page: two pages' tokens were stored.
            await #expect(throws: Interrupted.self) {
                try await database.sync(zone: notes, tokens: tokens, resultsLimit: 10) { page in
                    if await replica.pagesApplied == 2 { throw Interrupted() }
                    await replica.apply(page)
                }
            }
            #expect(await replica.records.count == 20)
            try await database.deleteRecord(RecordID(recordName: "n0", zoneID: notes))

            // A new launch: a new store reads the same file.
            let relaunched = FileChangeTokenStore(fileURL: directory.tokenFile)
            try await database.sync(zone: notes, tokens: relaunched, reset: { await replica.reset() }, apply: { await replica.apply($0) })
            #expect(await replica.resets == 0)
            #expect(Set(await replica.records.keys) == Set((1..<30).map { "n\($0)" }))
        }
    }

    @Test("a token of a deleted and re-created zone makes the sync reset the copy and start from scratch")
    func resetsOnExpiredToken() async throws {
        try await ClientFixture.with { f in
            let directory = try TokenDirectory()
            defer { directory.remove() }
            let database = f.container(as: f.alice).privateCloudDatabase
            try await database.save(zones: [notes])
            _ = try await database.save(.note("old", in: notes))
            let replica = Replica()
            let tokens = FileChangeTokenStore(fileURL: directory.tokenFile)
            try await database.sync(zone: notes, tokens: tokens, reset: { await replica.reset() }, apply: { await replica.apply($0) })
            #expect(Set(await replica.records.keys) == ["old"])

            try await database.delete(zones: [notes])
            try await database.save(zones: [notes])
            _ = try await database.save(.note("new", in: notes))
            try await database.sync(zone: notes, tokens: tokens, reset: { await replica.reset() }, apply: { await replica.apply($0) })
            #expect(await replica.resets == 1)
            #expect(Set(await replica.records.keys) == ["new"])
        }
    }
}

/// A temporary directory for a test's token file.
private struct TokenDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-tokens-\(UUID().uuidString)")
    var tokenFile: URL { url.appendingPathComponent("tokens.json") }

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
