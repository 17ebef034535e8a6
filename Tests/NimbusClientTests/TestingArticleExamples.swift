//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

// The examples of the DocC article "Testing your app with NimbusClient", as they are printed
// there (`DocCExampleTests.articleMatches` checks that they still are).

import Foundation
import NimbusClient
import NimbusModel
import NimbusTesting
import Testing

/// The app's local copy of its notes, kept up to date from the change feed.
private actor NotesStore {
    private(set) var titles: [String: String] = [:]

    func apply(_ page: ZoneChangesPage) {
        for record in page.changed {
            if case .string(let title)? = record.fields["title"] { titles[record.recordID.recordName] = title }
        }
        for deleted in page.deleted { titles[deleted.recordID.recordName] = nil }
    }

    func reset() { titles = [:] }
}

@Test("the app's notes sync picks up notes saved on another device")
func notesSync() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    try await InProcessNimbus.with { nimbus in
        let alice = try await nimbus.addUser(name: "Alice")
        let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

        // Another device of Alice's wrote two notes: `seed` creates the zone and saves them.
        try await nimbus.seed(
            [
                Record(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: notes), fields: ["title": .string("Groceries")]),
                Record(recordType: "Note", recordID: RecordID(recordName: "n2", zoneID: notes), fields: ["title": .string("Books")]),
            ],
            as: alice
        )

        // The code under test: the app's sync, with its own token store.
        let store = NotesStore()
        let tokens = FileChangeTokenStore(fileURL: directory.appendingPathComponent("tokens.json"))
        let database = nimbus.container(as: alice).privateCloudDatabase
        try await database.sync(zone: notes, tokens: tokens, reset: { await store.reset() }) { page in
            await store.apply(page)
        }
        #expect(await store.titles == ["n1": "Groceries", "n2": "Books"])

        // A deletion on the other device reaches the app's next sync, from the stored token.
        try await database.deleteRecord(RecordID(recordName: "n2", zoneID: notes))
        try await database.sync(zone: notes, tokens: tokens, reset: { await store.reset() }) { page in
            await store.apply(page)
        }
        #expect(await store.titles == ["n1": "Groceries"])
    }
}

@Test("a busy server is retried after the delay it asks for")
func retriesWhenBusy() async throws {
    let transport = ScriptedTransport([
        .response(status: 503, body: #"{"uuid":"1","serverErrorCode":"TRY_AGAIN_LATER","reason":"busy","retryAfter":1}"#),
        .response(status: 200, body: #"{"zones":[{"zoneID":{"zoneName":"_defaultZone"}}]}"#),
    ])
    let container = Container(
        serverURL: "https://nimbus.example.com",
        identifier: "iCloud.com.example.notes",
        authentication: .apiToken("an-api-token", webAuthToken: "a-web-auth-token"),
        transport: transport
    )
    let zones = try await container.privateCloudDatabase.allZones()
    #expect(zones.count == 1)
    #expect(transport.requests.count == 2)
}

@Test("a record the server refuses is reported, and the others are saved")
func partialFailure() async throws {
    let transport = ScriptedTransport([
        .response(
            status: 200,
            body: #"""
                {"records":[
                  {"recordName":"n1","recordType":"Note","recordChangeTag":"1","fields":{}},
                  {"recordName":"n2","serverErrorCode":"QUOTA_EXCEEDED","reason":"the user's storage is full"}
                ]}
                """#
        )
    ])
    let container = Container(
        serverURL: "https://nimbus.example.com",
        identifier: "iCloud.com.example.notes",
        authentication: .apiToken("an-api-token", webAuthToken: "a-web-auth-token"),
        transport: transport
    )
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")
    let result = try await container.privateCloudDatabase.modifyRecords(
        saving: ["n1", "n2"].map { Record(recordType: "Note", recordID: RecordID(recordName: $0, zoneID: notes)) },
        atomically: false
    )
    let failure = try #require(result.partialFailure)
    #expect(failure.code == .partialFailure)
    #expect(failure.partialErrorsByItemID[.record(RecordID(recordName: "n2", zoneID: notes))]?.code == .quotaExceeded)
}
