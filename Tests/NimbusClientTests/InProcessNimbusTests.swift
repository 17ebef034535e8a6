//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
import NimbusTesting
import Testing

@Suite("NimbusTesting: an in-process server for app tests")
struct InProcessNimbusTests {
    @Test("one line starts a server; its users save, sync and query through the SDK with no socket")
    func startsAndServes() async throws {
        try await InProcessNimbus.with { nimbus in
            let alice = try await nimbus.addUser(name: "Alice", email: "alice@example.com")
            let database = nimbus.container(as: alice).privateCloudDatabase
            let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")
            try await database.save(zones: [notes])
            let saved = try await database.save(
                Record(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: notes), fields: ["title": .string("hi")])
            )
            #expect(saved.created.userRecordName == alice.userRecordName)
            var changed: [Record] = []
            try await database.fetchZoneChanges(in: notes, since: nil) { changed += $0.changed }
            #expect(changed.map(\.recordID.recordName) == ["n1"])
            let found = try await database.records(matching: Query(recordType: "Note", filters: [Filter("title", .equals, .string("hi"))]), in: notes)
            #expect(found.count == 1)
        }
    }

    @Test("what one user writes to the public database another reads; private data stays private")
    func twoUsers() async throws {
        try await InProcessNimbus.with { nimbus in
            let alice = try await nimbus.addUser(name: "Alice")
            let bob = try await nimbus.addUser(name: "Bob")
            let defaultZone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            let post = Record(recordType: "Post", recordID: RecordID(recordName: "p1", zoneID: defaultZone), fields: ["text": .string("hello")])
            _ = try await nimbus.container(as: alice).publicCloudDatabase.save(post)
            let read = try await nimbus.container(as: bob).publicCloudDatabase.record(named: "p1", in: defaultZone)
            #expect(read.fields["text"] == .string("hello"))

            _ = try await nimbus.container(as: alice).privateCloudDatabase.save(
                Record(recordType: "Diary", recordID: RecordID(recordName: "d1", zoneID: defaultZone))
            )
            let error = try await #require(throws: NimbusError.self) {
                try await nimbus.container(as: bob).privateCloudDatabase.record(named: "d1", in: defaultZone)
            }
            #expect(error.code == .unknownItem)
        }
    }

    @Test("anonymous callers reach the public database and are asked to sign in for the private one")
    func anonymous() async throws {
        try await InProcessNimbus.with { nimbus in
            let anonymous = nimbus.container(as: nil, retryPolicy: .never)
            #expect(try await anonymous.publicCloudDatabase.allZones().map(\.zoneName) == ["_defaultZone"])
            let error = try await #require(throws: NimbusError.self) { try await anonymous.privateCloudDatabase.allZones() }
            #expect(error.code == .authenticationRequired)
        }
    }

    @Test("subscriptions fire in-process: a save reaches the subscriber's notification inbox")
    func notificationsAreDelivered() async throws {
        try await InProcessNimbus.with { nimbus in
            let alice = try await nimbus.addUser(name: "Alice")
            let container = nimbus.container(as: alice)
            let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")
            try await container.privateCloudDatabase.save(zones: [notes])
            try await container.privateCloudDatabase.save(subscriptions: [Subscription(subscriptionID: "notes", kind: .zone(notes))])
            try await nimbus.seed([Record(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: notes))], as: alice)
            var page = try await container.notificationInbox(after: 0)
            for _ in 0..<200 where page.notifications.isEmpty {
                try await Task.sleep(for: .milliseconds(50))
                page = try await container.notificationInbox(after: 0)
            }
            #expect(page.notifications.map(\.recordNames) == [["n1"]])
            #expect(page.notifications.first?.subscriptionID == "notes")
        }
    }
}
