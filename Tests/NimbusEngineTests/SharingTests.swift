//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

@Suite("sharing: record shares, the shared database, hierarchy membership")
struct SharingTests {
    /// Alice's `Chats` zone: chat `c1` with message `m1`, and message `loose` outside any share.
    private func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Chats", for: f.alice)
        _ = try await f.modify(
            [
                RecordOperation(kind: .create, recordName: "c1", recordType: "Chat", fields: ["title": FieldInput(.string("Tea"))]),
                RecordOperation(
                    kind: .create,
                    recordName: "m1",
                    recordType: "Message",
                    fields: ["text": FieldInput(.string("hi"))],
                    parent: .set("c1")
                ),
                RecordOperation(kind: .create, recordName: "loose", recordType: "Message", fields: ["text": FieldInput(.string("secret"))]),
            ],
            zone: "Chats"
        )
    }

    private func share(_ f: EngineFixture, root: String, with participants: [ParticipantInput], publicPermission: SharePermission = .none)
        async throws -> Record
    {
        let results = try await f.modify(
            [
                RecordOperation(
                    kind: .create,
                    recordName: "share-\(root)",
                    recordType: "cloudKit.share",
                    fields: ["cloudkit.title": FieldInput(.string("Tea chat"))],
                    share: ShareChange(rootRecordName: root, publicPermission: publicPermission, participants: participants)
                )
            ],
            zone: "Chats"
        )
        guard let record = results.first?.record else { throw FixtureError("share not saved: \(results)") }
        return record
    }

    private func shared(_ f: EngineFixture, _ user: String) -> DatabaseAccess { f.access(user, .shared) }
    private func chats(_ f: EngineFixture) -> ZoneID { ZoneID(zoneName: "Chats", ownerRecordName: f.alice) }

    private func visible(_ f: EngineFixture, _ names: [String], as user: String) async throws -> Set<String> {
        let results = try await f.database.lookupRecords(named: names, inZone: chats(f), access: shared(f, user))
        return Set(results.compactMap { try? $0.get().recordID.recordName })
    }

    @Test("a share opens its root's hierarchy to accepted participants, and nothing else")
    func recordShareLifecycle() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let shareRecord = try await share(f, root: "c1", with: [ParticipantInput(lookupInfo: .userRecordName(f.bob), permission: .readWrite)])
            #expect(shareRecord.recordType == Share.recordType)
            let details = try #require(shareRecord.shareDetails)
            #expect(details.share.participants.map(\.role) == [.owner, .privateUser])
            #expect(details.share.participants.last?.acceptance == .pending)
            #expect(details.share.shortGUID.count == 25)
            #expect(try await f.lookup("c1", zone: "Chats")?.shareRecordName == "share-c1")

            // Before accepting, Bob's shared database has nothing.
            #expect(try await f.database.zones(access: shared(f, f.bob)).isEmpty)
            await #expect(throws: NimbusError.zoneNotFound) {
                _ = try await f.database.lookupRecords(named: ["c1"], inZone: chats(f), access: shared(f, f.bob))
            }
            let resolved = try await f.database.resolveShares([ShareLookup(shortGUID: details.share.shortGUID)], access: f.access(f.bob))
            #expect(try resolved[0].get().participantStatus == .pending)
            let accepted = try await f.database.acceptShares([ShareLookup(shortGUID: details.share.shortGUID)], access: f.access(f.bob))
            #expect(try accepted[0].get().participantStatus == .accepted)

            let zones = try await f.database.zones(access: shared(f, f.bob))
            #expect(zones.map(\.zoneID) == [chats(f)])
            #expect(try await visible(f, ["c1", "m1", "loose", "share-c1"], as: f.bob) == ["c1", "m1", "share-c1"])

            // Bob writes a child of the chat: stored in Alice's zone, created by Bob.
            let reply = RecordOperation(
                kind: .create,
                recordName: "m2",
                recordType: "Message",
                fields: ["text": FieldInput(.string("yo"))],
                parent: .set("c1")
            )
            let saved = try await f.database.modifyRecords([reply], inZone: chats(f), atomic: true, access: shared(f, f.bob))
            #expect(saved.first?.record?.created.userRecordName == f.bob)
            #expect(try await f.lookup("m2", zone: "Chats")?.created.userRecordName == f.bob)

            // No parent, a parent outside the share and a parent that does not exist are refused alike.
            var reasons: [String] = []
            for parent in [RecordOperation.ParentChange.unchanged, .set("loose"), .set("ghost")] {
                let op = RecordOperation(kind: .create, recordName: "bad", recordType: "Message", parent: parent)
                let result = try await f.database.modifyRecords([op], inZone: chats(f), atomic: true, access: shared(f, f.bob))
                #expect(result.first?.error?.code == .permissionFailure)
                reasons.append(result.first?.error?.reason ?? "")
            }
            #expect(reasons[1] == reasons[2])
            #expect(try await f.lookup("bad", zone: "Chats") == nil)

            // Queries through the shared database see only the hierarchy.
            let page = try await f.database.queryRecords(
                Query(recordType: "Message"),
                inZone: chats(f),
                resultsLimit: nil,
                continuationMarker: nil,
                access: shared(f, f.bob)
            )
            #expect(Set(page.records.map(\.recordID.recordName)) == ["m1", "m2"])

            // Re-parenting moves records into and out of the hierarchy.
            _ = try await f.modify(
                [
                    RecordOperation(kind: .forceUpdate, recordName: "loose", recordType: "Message", parent: .set("m2")),
                    RecordOperation(kind: .forceUpdate, recordName: "m1", recordType: "Message", parent: .clear),
                ],
                zone: "Chats"
            )
            #expect(try await visible(f, ["m1", "loose"], as: f.bob) == ["loose"])

            // Bob leaves by deleting the share through his shared database.
            let left = try await f.database.modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: "share-c1")],
                inZone: chats(f),
                atomic: true,
                access: shared(f, f.bob)
            )
            #expect(left.first?.error == nil)
            #expect(try await f.database.zones(access: shared(f, f.bob)).isEmpty)
            // The share survives for Alice, with Bob removed.
            let kept = try #require(try await f.lookup("share-c1", zone: "Chats")?.shareDetails)
            #expect(kept.share.participants.map(\.userRecordName) == [f.alice])
        }
    }

    @Test("READ_ONLY participants read but cannot write; the owner unshares and everyone loses access")
    func readOnlyAndUnshare() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let record = try await share(f, root: "c1", with: [ParticipantInput(lookupInfo: .userRecordName(f.bob))])
            let guid = try #require(record.shareDetails?.share.shortGUID)
            _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            #expect(try await visible(f, ["c1", "m1"], as: f.bob) == ["c1", "m1"])
            let before = try await f.lookup("m1", zone: "Chats")
            let update = RecordOperation(kind: .forceUpdate, recordName: "m1", recordType: "Message", fields: ["text": FieldInput(.string("hacked"))])
            let denied = try await f.database.modifyRecords([update], inZone: chats(f), atomic: true, access: shared(f, f.bob))
            #expect(denied.first?.error?.code == .permissionFailure)
            #expect(try await f.lookup("m1", zone: "Chats") == before)

            // A private user who is not listed cannot accept.
            let carol = try await f.accounts.addUser(name: "Carol", email: "carol@example.com", phone: nil, container: EngineFixture.container)
            let refused = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(carol.user.userRecordName))
            #expect(throws: NimbusError.self) { try refused[0].get() }

            // Unshare: the share record goes, the root loses its share, Bob loses the zone.
            let unshared = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "share-c1")], zone: "Chats")
            #expect(unshared.first?.error == nil)
            #expect(try await f.lookup("c1", zone: "Chats")?.shareRecordName == nil)
            #expect(try await f.lookup("m1", zone: "Chats")?.containingShare == nil)
            #expect(try await f.database.zones(access: shared(f, f.bob)).isEmpty)
            // The root can be shared again.
            _ = try await share(f, root: "c1", with: [])
        }
    }

    @Test("a record already inside a hierarchy cannot be shared again, and default zones cannot be shared")
    func sharingRules() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            _ = try await share(f, root: "c1", with: [])
            let again = try await f.modify(
                [RecordOperation(kind: .create, recordName: "s2", recordType: Share.recordType, share: ShareChange(rootRecordName: "m1"))],
                zone: "Chats"
            )
            #expect(again.first?.error?.code == .badRequest)
            #expect(again.first?.error?.reason.contains("already in the hierarchy") == true)
            _ = try await f.save(.note("n1"), zone: "_defaultZone")
            let inDefault = try await f.modify(
                [RecordOperation(kind: .create, recordName: "s3", recordType: Share.recordType, share: ShareChange(rootRecordName: "n1"))],
                zone: "_defaultZone"
            )
            #expect(inDefault.first?.error?.code == .badRequest)
        }
    }
    @Test("creating a share that exists answers EXISTS with the share as it stands, and changes nothing", arguments: [true, false])
    func secondCreateKeepsTheShare(zoneShare: Bool) async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let name = zoneShare ? Share.zoneShareName : "share-c1"
            func create(_ participants: [ParticipantInput], title: String) -> RecordOperation {
                RecordOperation(
                    kind: .create,
                    recordName: name,
                    recordType: Share.recordType,
                    fields: ["cloudkit.title": FieldInput(.string(title))],
                    share: ShareChange(rootRecordName: zoneShare ? nil : "c1", publicPermission: nil, participants: participants)
                )
            }
            let first = try await f.modify(
                [create([ParticipantInput(lookupInfo: .userRecordName(f.bob), permission: .readWrite)], title: "Tea")],
                zone: "Chats"
            )
            let guid = try #require(first.first?.record?.shareDetails?.share.shortGUID)
            _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            let before = try await f.lookup(name, zone: "Chats")

            let second = try await f.modify([create([], title: "Coffee")], zone: "Chats")
            let error = try #require(second.first?.error)
            #expect(error.code == .alreadyExists)
            let server = try #require(error.serverRecord?.shareDetails?.share)
            #expect(server.participants.map(\.acceptance) == [.accepted, .accepted])
            #expect(error.serverRecord?.recordChangeTag == before?.recordChangeTag)

            #expect(try await f.lookup(name, zone: "Chats") == before)
            #expect(try await visible(f, ["c1", "m1"], as: f.bob) == ["c1", "m1"])
        }
    }
    @Test("going private removes public members even when the update lists them, as clients send back what they read")
    func goingPrivateRemovesListedPublicUsers() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let record = try await share(f, root: "c1", with: [ParticipantInput(lookupInfo: .userRecordName(f.bob))])
            let guid = try #require(record.shareDetails?.share.shortGUID)
            let opened = try await f.modify(
                [RecordOperation(kind: .forceUpdate, recordName: "share-c1", share: ShareChange(publicPermission: .readOnly))],
                zone: "Chats"
            )
            #expect(opened.first?.error == nil)
            let dave = try await f.accounts.addUser(name: "Dave", email: nil, phone: nil, container: EngineFixture.container).user.userRecordName
            for user in [f.bob, dave] {
                _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(user))
            }
            let read = try #require(try await f.lookup("share-c1", zone: "Chats"))
            let everyone = try #require(read.shareDetails?.share.participants)
            #expect(everyone.map(\.role) == [.owner, .privateUser, .publicUser])
            let listed = everyone.map {
                ParticipantInput(participantID: $0.participantID, lookupInfo: $0.lookupInfo, role: $0.role, permission: $0.permission)
            }

            let update = RecordOperation(
                kind: .update,
                recordName: "share-c1",
                recordChangeTag: read.recordChangeTag,
                share: ShareChange(publicPermission: SharePermission.none, participants: listed)
            )
            let result = try await f.modify([update], zone: "Chats")
            #expect(result.first?.error == nil, "\(result)")
            #expect(result.first?.record?.shareDetails?.removedParticipants.map(\.userRecordName) == [dave])
            let after = try #require(try await f.lookup("share-c1", zone: "Chats")?.shareDetails?.share.participants)
            #expect(after.map(\.userRecordName) == [f.alice, f.bob], "Dave is gone from the owner's list")
            #expect(try await f.database.zones(access: shared(f, dave)).isEmpty)
            #expect(try await visible(f, ["c1"], as: f.bob) == ["c1"])

            // Invited by name as a USER, the former public member is invited: pending again.
            let current = try #require(try await f.lookup("share-c1", zone: "Chats"))
            let invited = try await f.modify(
                [
                    RecordOperation(
                        kind: .update,
                        recordName: "share-c1",
                        recordChangeTag: current.recordChangeTag,
                        share: ShareChange(
                            participants: listed.dropLast() + [ParticipantInput(lookupInfo: .userRecordName(dave), role: .privateUser)]
                        )
                    )
                ],
                zone: "Chats"
            )
            #expect(invited.first?.error == nil, "\(invited)")
            let again = try #require(try await f.lookup("share-c1", zone: "Chats")?.shareDetails?.share.participants)
            #expect(again.first { $0.userRecordName == dave }?.acceptance == .pending)
        }
    }
    @Test("a READ_WRITE participant cannot end a share by deleting its root; they leave by deleting the share")
    func participantCannotDeleteRoot() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let record = try await share(f, root: "c1", with: [ParticipantInput(lookupInfo: .userRecordName(f.bob), permission: .readWrite)])
            let guid = try #require(record.shareDetails?.share.shortGUID)
            _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            let before = try await f.lookup("c1", zone: "Chats")

            let deleted = try await f.database.modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: "c1")],
                inZone: chats(f),
                atomic: true,
                access: shared(f, f.bob)
            )
            #expect(deleted.first?.error?.code == .permissionFailure)
            #expect(try await f.lookup("c1", zone: "Chats") == before)
            #expect(try await visible(f, ["c1", "m1", "share-c1"], as: f.bob) == ["c1", "m1", "share-c1"])

            let left = try await f.database.modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: "share-c1")],
                inZone: chats(f),
                atomic: true,
                access: shared(f, f.bob)
            )
            #expect(left.first?.error == nil)
            #expect(try await f.database.zones(access: shared(f, f.bob)).isEmpty)
            #expect(try await f.lookup("c1", zone: "Chats")?.shareRecordName == "share-c1", "the share survives for the others")
        }
    }
    @Test("a participant cannot tell an owner's hidden record from a missing one by saving or by VALIDATE references")
    func noExistenceOracles() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let carol = try await f.accounts.addUser(name: "Carol", email: nil, phone: nil, container: EngineFixture.container).user.userRecordName
            let record = try await share(
                f,
                root: "c1",
                with: [
                    ParticipantInput(lookupInfo: .userRecordName(f.bob), permission: .readWrite),
                    ParticipantInput(lookupInfo: .userRecordName(carol), permission: .readOnly),
                ]
            )
            let guid = try #require(record.shareDetails?.share.shortGUID)
            for user in [f.bob, carol] { _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(user)) }
            func outcome(_ op: RecordOperation, as user: String) async throws -> String {
                let result = try await f.database.modifyRecords([op], inZone: chats(f), atomic: true, access: shared(f, user))
                guard let error = result.first?.error else { return "saved" }
                return "\(error.code): \(error.reason)"
            }
            func child(_ name: String, _ kind: RecordOperation.Kind = .create, fields: [NameKey: FieldInput] = [:]) -> RecordOperation {
                RecordOperation(kind: kind, recordName: name, recordType: "Message", fields: fields, parent: .set("c1"))
            }

            // "loose" is Alice's and hidden from both; "m1" is visible; "free" names nothing.
            for kind in [RecordOperation.Kind.create, .forceUpdate, .forceReplace] {
                #expect(try await outcome(child("loose", kind), as: f.bob) == outcome(child("m1", .create), as: f.bob))
                #expect(try await outcome(child("loose", kind), as: carol) == outcome(child("free-\(kind)", kind), as: carol))
            }
            #expect(try await outcome(child("loose", .create), as: f.bob).hasPrefix("\(NimbusError.Code.alreadyExists)"))
            #expect(try await f.lookup("loose", zone: "Chats")?.fields["text"] == .string("secret"))

            func validating(_ target: String) -> [NameKey: FieldInput] {
                ["about": FieldInput(.reference(Reference(recordName: target, action: .validate)))]
            }
            let hidden = try await outcome(child("r1", fields: validating("loose")), as: f.bob)
            let missing = try await outcome(child("r2", fields: validating("ghost")), as: f.bob)
            #expect(hidden.hasPrefix("\(NimbusError.Code.referenceViolation)"))
            #expect(hidden.replacingOccurrences(of: "loose", with: "ghost") == missing)
            #expect(try await outcome(child("r3", fields: validating("m1")), as: f.bob) == "saved")
        }
    }
}
