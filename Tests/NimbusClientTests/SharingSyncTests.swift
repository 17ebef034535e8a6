//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: two users share a zone and sync it", .timeLimit(.minutes(2)))
struct SharingSyncTests {
    @Test("the owner shares a zone, the invitee accepts, and each sees the other's writes by syncing")
    func shareAndSync() async throws {
        try await ClientFixture.with { f in
            let alice = f.container(as: f.alice)
            let bob = f.container(as: f.bob)
            let groceries = ZoneID(zoneName: "Groceries", ownerRecordName: "")
            try await alice.privateCloudDatabase.save(zones: [groceries])
            _ = try await alice.privateCloudDatabase.save(.note("milk", in: groceries, ["title": .string("Milk")]))

            let share = try await alice.privateCloudDatabase.shareZone(
                groceries,
                title: "Groceries",
                inviting: [ShareInvitation(.emailAddress("bob@example.com"), permission: .readWrite)]
            )
            #expect(share.shortGUID.count >= 10)
            #expect(share.participants.contains { $0.role == .owner && $0.userRecordName == f.alice.user.userRecordName })
            #expect(share.participants.contains { $0.userRecordName == f.bob.user.userRecordName && $0.acceptance == .pending })
            // A share, participants and all, can be archived and read back.
            #expect(try JSONDecoder().decode(ShareInfo.self, from: JSONEncoder().encode(share)) == share)

            // Before accepting, Bob's shared database is empty.
            #expect(try await bob.sharedCloudDatabase.allZones().isEmpty)
            let (accepted, sharedZone) = try await bob.acceptShare(shortGUID: share.shortGUID)
            #expect(accepted.recordName == Share.zoneShareName)
            #expect(sharedZone.zoneName == "Groceries")
            #expect(sharedZone.ownerRecordName == f.alice.user.userRecordName)

            // The zone shows in Bob's shared database feed, and its records in its zone feed.
            var zones: [ZoneID] = []
            try await bob.sharedCloudDatabase.fetchDatabaseChanges(since: nil) { zones += $0.changedZones }
            #expect(zones.map(\.zoneName) == ["Groceries"])
            var bobsCopy: [String: Record] = [:]
            let bobsToken = try await bob.sharedCloudDatabase.fetchZoneChanges(in: sharedZone, since: nil) { page in
                for record in page.changed where record.recordType == "Note" { bobsCopy[record.recordID.recordName] = record }
                // How many changes the owner's zone holds is not the participant's to know.
                #expect(page.progress == nil)
            }
            #expect(bobsCopy.keys.sorted() == ["milk"])

            // Alice adds a record; Bob's next sync brings exactly it.
            _ = try await alice.privateCloudDatabase.save(.note("eggs", in: groceries, ["title": .string("Eggs")]))
            var fresh: [String] = []
            try await bob.sharedCloudDatabase.fetchZoneChanges(in: sharedZone, since: bobsToken) { page in
                fresh += page.changed.filter { $0.recordType == "Note" }.map(\.recordID.recordName)
            }
            #expect(fresh == ["eggs"])

            // Bob may write (READ_WRITE); Alice sees his record in her own zone.
            let bread = Record(recordType: "Note", recordID: RecordID(recordName: "bread", zoneID: sharedZone), fields: ["title": .string("Bread")])
            let saved = try await bob.sharedCloudDatabase.save(bread)
            #expect(saved.created.userRecordName == f.bob.user.userRecordName)
            let seenByAlice = try await alice.privateCloudDatabase.record(named: "bread", in: groceries)
            #expect(seenByAlice.fields["title"] == .string("Bread"))

            // Bob leaves: the zone drops out of his shared database, and his feed says so.
            let beforeLeaving = try await bob.sharedCloudDatabase.fetchDatabaseChanges(since: nil)
            try await bob.sharedCloudDatabase.leaveShare(accepted)
            #expect(try await bob.sharedCloudDatabase.allZones().isEmpty)
            var gone: [ZoneID] = []
            try await bob.sharedCloudDatabase.fetchDatabaseChanges(since: beforeLeaving) { gone += $0.deletedZones }
            #expect(gone.map(\.zoneName) == ["Groceries"])
            let denied = try await #require(throws: NimbusError.self) { try await bob.sharedCloudDatabase.record(named: "milk", in: sharedZone) }
            #expect(denied.code == .zoneNotFound || denied.code == .unknownItem)
        }
    }

    @Test("a record share covers its children; a read-only participant reads them and cannot write")
    func recordShareReadOnly() async throws {
        try await ClientFixture.with { f in
            let alice = f.container(as: f.alice)
            let bob = f.container(as: f.bob)
            let chats = ZoneID(zoneName: "Chats", ownerRecordName: "")
            try await alice.privateCloudDatabase.save(zones: [chats])
            let chat = try await alice.privateCloudDatabase.save(.note("chat", in: chats, ["title": .string("Weekend")]))
            var message = Record.note("m1", in: chats, ["text": .string("Hi")])
            message.parentRecordName = "chat"
            _ = try await alice.privateCloudDatabase.save(message)
            _ = try await alice.privateCloudDatabase.save(.note("unshared", in: chats))

            let share = try await alice.privateCloudDatabase.shareRecord(
                chat,
                title: "Weekend",
                inviting: [ShareInvitation(.userRecordName(f.bob.user.userRecordName), permission: .readOnly)]
            )
            let (_, zone) = try await bob.acceptShare(shortGUID: share.shortGUID)
            var names: Set<String> = []
            try await bob.sharedCloudDatabase.fetchZoneChanges(in: zone, since: nil) { page in
                names.formUnion(page.changed.filter { $0.recordType == "Note" }.map(\.recordID.recordName))
            }
            #expect(names == ["chat", "m1"])
            let reply = Record(recordType: "Note", recordID: RecordID(recordName: "m2", zoneID: zone), parentRecordName: "chat")
            let error = try await #require(throws: NimbusError.self) { try await bob.sharedCloudDatabase.save(reply) }
            #expect(error.code == .permissionFailure)
        }
    }

    @Test("a user who was not invited cannot accept a private share")
    func uninvitedCannotAccept() async throws {
        try await ClientFixture.with { f in
            let alice = f.container(as: f.alice)
            let zone = ZoneID(zoneName: "Private", ownerRecordName: "")
            try await alice.privateCloudDatabase.save(zones: [zone])
            let share = try await alice.privateCloudDatabase.shareZone(zone)
            let error = try await #require(throws: NimbusError.self) { try await f.container(as: f.bob).acceptShare(shortGUID: share.shortGUID) }
            #expect(error.code == .permissionFailure || error.code == .unknownItem)
            #expect(try await f.container(as: f.bob).sharedCloudDatabase.allZones().isEmpty)
        }
    }
}
