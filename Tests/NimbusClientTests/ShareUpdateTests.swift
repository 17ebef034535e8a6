//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: the owner changes and deletes a share", .timeLimit(.minutes(2)))
struct ShareUpdateTests {
    @Test("permissions change, a participant is removed, a stale save conflicts, and deleting the share ends access")
    func updateAndDelete() async throws {
        try await ClientFixture.with { f in
            let carolUser = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: ClientFixture.containerID)
            let alice = f.container(as: f.alice)
            let bob = f.container(as: f.bob)
            let carol = f.container(as: carolUser)
            let trip = ZoneID(zoneName: "Trip", ownerRecordName: "")
            try await alice.privateCloudDatabase.save(zones: [trip])
            _ = try await alice.privateCloudDatabase.save(.note("plan", in: trip))
            let created = try await alice.privateCloudDatabase.shareZone(
                trip,
                title: "Trip",
                inviting: [
                    ShareInvitation(.userRecordName(f.bob.user.userRecordName)),
                    ShareInvitation(.userRecordName(carolUser.user.userRecordName)),
                ]
            )
            let (_, shared) = try await bob.acceptShare(shortGUID: created.shortGUID)
            _ = try await carol.acceptShare(shortGUID: created.shortGUID)

            // Read-only: Bob cannot write yet.
            await #expect(throws: NimbusError.self) {
                _ = try await bob.sharedCloudDatabase.save(.note("bobs", in: shared))
            }

            // Alice makes Bob a writer and removes Carol.
            var share = try await alice.privateCloudDatabase.fetchShare(in: trip)
            #expect(share.participants.count == 3)
            for index in share.participants.indices where share.participants[index].userRecordName == f.bob.user.userRecordName {
                share.participants[index].permission = .readWrite
            }
            share.participants.removeAll { $0.userRecordName == carolUser.user.userRecordName }
            let saved = try await alice.privateCloudDatabase.save(share)
            #expect(saved.recordChangeTag != share.recordChangeTag)
            #expect(saved.participants.first { $0.userRecordName == f.bob.user.userRecordName }?.permission == .readWrite)
            #expect(!saved.participants.contains { $0.userRecordName == carolUser.user.userRecordName && $0.acceptance == .accepted })

            _ = try await bob.sharedCloudDatabase.save(.note("bobs", in: shared))
            #expect(try await carol.sharedCloudDatabase.allZones().isEmpty, "Carol was removed")

            // A save from the old copy conflicts.
            do {
                _ = try await alice.privateCloudDatabase.save(share)
                Issue.record("a stale share was saved")
            } catch let error as NimbusError {
                #expect(error.code == .serverRecordChanged, "\(error)")
            }

            // A participant cannot delete the share for everyone; the owner can.
            await #expect(throws: NimbusError.self) { try await bob.sharedCloudDatabase.deleteShare(saved) }
            try await alice.privateCloudDatabase.deleteShare(saved)
            #expect(try await bob.sharedCloudDatabase.allZones().isEmpty, "deleting the share ends Bob's access")
            let kept = try await alice.privateCloudDatabase.records(named: ["plan", "bobs"], in: trip)
            #expect(kept.values.allSatisfy { (try? $0.get()) != nil } && kept.count == 2, "the records stay")
        }
    }

    @Test("invitation links: a single-use link admits one person; revoking and rotating retire links")
    func invitationLinks() async throws {
        try await ClientFixture.with { f in
            let carolUser = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: ClientFixture.containerID)
            let alice = f.container(as: f.alice)
            let room = ZoneID(zoneName: "Room", ownerRecordName: "")
            try await alice.privateCloudDatabase.save(zones: [room])
            let share = try await alice.privateCloudDatabase.shareZone(room, title: "Room")
            let once = try await alice.privateCloudDatabase.createInvitationLink(for: share, permission: .readWrite, singleUse: true)
            #expect(once.isSingleUse && once.permission == .readWrite && once.createdBy == f.alice.user.userRecordName)

            let (_, joined) = try await f.container(as: f.bob).acceptShare(shortGUID: once.shortGUID)
            _ = try await f.container(as: f.bob).sharedCloudDatabase.save(.note("hello", in: joined))
            do {
                _ = try await f.container(as: carolUser).acceptShare(shortGUID: once.shortGUID)
                Issue.record("a single-use link admitted two people")
            } catch let error as NimbusError {
                #expect(error.code == .permissionFailure && error.reason.contains("already used"), "\(error)")
            }

            let open = try await alice.privateCloudDatabase.createInvitationLink(for: share)
            let revoked = try await alice.privateCloudDatabase.revokeInvitationLink(shortGUID: open.shortGUID)
            #expect(revoked.revokedAt != nil)
            let links = try await alice.privateCloudDatabase.invitationLinks(for: share)
            #expect(links.map(\.shortGUID) == [once.shortGUID, open.shortGUID])
            #expect(links.first?.usedBy == f.bob.user.userRecordName)
            await #expect(throws: NimbusError.self) { _ = try await f.container(as: carolUser).acceptShare(shortGUID: open.shortGUID) }

            let rotated = try await alice.privateCloudDatabase.rotateMainLink(of: share)
            #expect(rotated != share.shortGUID)
            #expect(try await alice.privateCloudDatabase.fetchShare(in: room).shortGUID == rotated)
        }
    }

    @Test("access requests: a stranger asks, the owner approves one and denies another")
    func accessRequests() async throws {
        try await ClientFixture.with { f in
            let carolUser = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: ClientFixture.containerID)
            let alice = f.container(as: f.alice)
            let club = ZoneID(zoneName: "Club", ownerRecordName: "")
            try await alice.privateCloudDatabase.save(zones: [club])
            var share = try await alice.privateCloudDatabase.shareZone(club, title: "Club")
            share.requestsEnabled = true
            share = try await alice.privateCloudDatabase.save(share)
            #expect(share.requestsEnabled)

            let asked = try await f.container(as: f.bob).requestAccess(shortGUID: share.shortGUID)
            #expect(asked.status == .pending && asked.userRecordName == f.bob.user.userRecordName)
            _ = try await f.container(as: carolUser).requestAccess(shortGUID: share.shortGUID)
            #expect(try await alice.privateCloudDatabase.accessRequests(for: share).count == 2)

            try await alice.privateCloudDatabase.approveAccessRequest(from: f.bob.user.userRecordName, to: share, permission: .readWrite)
            try await alice.privateCloudDatabase.denyAccessRequest(from: carolUser.user.userRecordName, to: share)
            let zones = try await f.container(as: f.bob).sharedCloudDatabase.allZones()
            #expect(zones.map(\.zoneName) == ["Club"])
            _ = try await f.container(as: f.bob).sharedCloudDatabase.save(.note("hi", in: try #require(zones.first)))
            await #expect(throws: NimbusError.self) { _ = try await f.container(as: carolUser).requestAccess(shortGUID: share.shortGUID) }
            #expect(try await alice.privateCloudDatabase.accessRequests(for: share).map(\.status) == [.denied])
        }
    }
    @Test("sharing a zone or a record twice returns the share that exists and adds only missing invitations")
    func shareTwiceIsIdempotent() async throws {
        try await ClientFixture.with { f in
            let carolUser = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: ClientFixture.containerID)
            let alice = f.container(as: f.alice).privateCloudDatabase
            let bob = ShareInvitation(.userRecordName(f.bob.user.userRecordName), permission: .readWrite)
            let chat = ZoneID(zoneName: "Chat", ownerRecordName: "")
            try await alice.save(zones: [chat])

            let zoneShare = try await alice.shareZone(chat, title: "Chat", inviting: [bob])
            _ = try await f.container(as: f.bob).acceptShare(shortGUID: zoneShare.shortGUID)
            let accepted = try await alice.fetchShare(in: chat)
            let again = try await alice.shareZone(chat, title: "Other", inviting: [bob])
            #expect(again == accepted, "a second call changed nothing")
            #expect(again.shortGUID == zoneShare.shortGUID)
            let bobs = again.participants.first { $0.userRecordName == f.bob.user.userRecordName }
            #expect(bobs?.acceptance == .accepted && bobs?.permission == .readWrite)
            let withCarol = try await alice.shareZone(chat, inviting: [bob, ShareInvitation(.userRecordName(carolUser.user.userRecordName))])
            #expect(withCarol.participants.map(\.acceptance) == [.accepted, .accepted, .pending])
            #expect(try await f.container(as: f.bob).sharedCloudDatabase.allZones().map(\.zoneName) == ["Chat"])

            let other = ZoneID(zoneName: "Other", ownerRecordName: "")
            try await alice.save(zones: [other])
            let topic = try await alice.save(.note("topic", in: other))
            let recordShare = try await alice.shareRecord(topic, inviting: [bob])
            #expect(try await alice.shareRecord(topic, inviting: [bob]) == recordShare)
        }
    }
}
