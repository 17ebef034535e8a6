//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

/// The shared database's feeds: each participant sees their accepted shares appear, change
/// and go, and never anything outside them.
@Suite("sync: the shared database's change feeds, per participant")
struct SharedChangeFeedTests {
    /// Alice's `Chats` zone: chats `c1` and `c2` with a message each, and `loose` outside any chat.
    private func seed(_ f: EngineFixture) async throws {
        try await f.makeZone("Chats", for: f.alice)
        _ = try await f.modify(
            [
                RecordOperation(kind: .create, recordName: "c1", recordType: "Chat"),
                RecordOperation(kind: .create, recordName: "m1", recordType: "Message", parent: .set("c1")),
                RecordOperation(kind: .create, recordName: "c2", recordType: "Chat"),
                RecordOperation(kind: .create, recordName: "m2", recordType: "Message", parent: .set("c2")),
                RecordOperation(kind: .create, recordName: "loose", recordType: "Message"),
            ],
            zone: "Chats"
        )
    }

    /// Alice shares a chat with Bob, who accepts.
    private func shareWithBob(_ f: EngineFixture, _ chat: String) async throws {
        let results = try await f.modify(
            [
                RecordOperation(
                    kind: .create,
                    recordName: "share-\(chat)",
                    recordType: Share.recordType,
                    share: ShareChange(rootRecordName: chat, participants: [ParticipantInput(lookupInfo: .userRecordName(f.bob))])
                )
            ],
            zone: "Chats"
        )
        let guid = try #require(results.first?.record?.shareDetails?.share.shortGUID)
        let accepted = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
        _ = try accepted[0].get()
    }

    private var chats: (EngineFixture) -> ZoneID { { ZoneID(zoneName: "Chats", ownerRecordName: $0.alice) } }

    /// One page of Bob's view of Alice's `Chats` zone: saved names and deleted names.
    private func bobsChanges(_ f: EngineFixture, after token: String?, limit: Int? = nil) async throws
        -> (saved: [String], deleted: [String], page: RecordChangesPage)
    {
        let page = try await f.database.recordChanges(inZone: chats(f), syncToken: token, resultsLimit: limit, access: f.access(f.bob, .shared))
        var saved: [String] = []
        var deleted: [String] = []
        for change in page.changes {
            switch change {
            case .saved(let record): saved.append(record.recordID.recordName)
            case .deleted(let tombstone): deleted.append(tombstone.recordName)
            }
        }
        return (saved, deleted, page)
    }

    private func bobsDatabase(_ f: EngineFixture, after token: String?) async throws -> DatabaseChangesPage {
        try await f.database.databaseChanges(syncToken: token, resultsLimit: nil, access: f.access(f.bob, .shared))
    }

    @Test("accepting makes the zone appear with only the share's records; later changes come incrementally")
    func acceptAndFollow() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let empty = try await bobsDatabase(f, after: nil)
            #expect(empty.zones.isEmpty)
            try await shareWithBob(f, "c1")

            let database = try await bobsDatabase(f, after: empty.syncToken)
            #expect(database.zones.map(\.zoneID) == [chats(f)])
            let first = try await bobsChanges(f, after: nil)
            #expect(Set(first.saved) == ["c1", "m1", "share-c1"])
            #expect(first.deleted.isEmpty)
            #expect(!first.page.moreComing)
            // The share record comes with its participants, as Bob may see them.
            let shareRecord = first.page.changes.compactMap { if case .saved(let r) = $0, r.recordID.recordName == "share-c1" { r } else { nil } }
                .first
            #expect(shareRecord?.shareDetails?.share.participants.map(\.userRecordName) == [f.alice, f.bob])

            // A change outside the share moves neither of Bob's feeds.
            _ = try await f.modify(
                [RecordOperation(kind: .forceUpdate, recordName: "loose", recordType: "Message", fields: ["t": FieldInput(.string("x"))])],
                zone: "Chats"
            )
            let quiet = try await bobsDatabase(f, after: database.syncToken)
            #expect(quiet.zones.isEmpty)
            #expect(try await bobsChanges(f, after: first.page.syncToken).page.changes.isEmpty)

            // A change inside it moves both, and only it comes.
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "m3", recordType: "Message", parent: .set("c1"))], zone: "Chats")
            let moved = try await bobsDatabase(f, after: quiet.syncToken)
            #expect(moved.zones.count == 1)
            let next = try await bobsChanges(f, after: first.page.syncToken)
            #expect(next.saved == ["m3"])
            #expect(next.deleted.isEmpty)
        }
    }

    @Test("records moving into a shared hierarchy come as changed, records moving out as deleted")
    func movesInAndOut() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            try await shareWithBob(f, "c1")
            let start = try await bobsChanges(f, after: nil)
            _ = try await f.modify(
                [
                    RecordOperation(kind: .forceUpdate, recordName: "loose", recordType: "Message", parent: .set("m1")),
                    RecordOperation(kind: .forceUpdate, recordName: "m1", recordType: "Message", parent: .set("c2")),
                ],
                zone: "Chats"
            )
            // m1 left with loose beneath it: both go; nothing of c2 shows.
            let after = try await bobsChanges(f, after: start.page.syncToken)
            #expect(after.saved.isEmpty)
            #expect(Set(after.deleted) == ["m1", "loose"] || Set(after.deleted) == ["m1"])
            #expect(!after.deleted.contains("m2"))

            // Back in: m1 (and loose under it) come again in their latest state.
            _ = try await f.modify([RecordOperation(kind: .forceUpdate, recordName: "m1", recordType: "Message", parent: .set("c1"))], zone: "Chats")
            let back = try await bobsChanges(f, after: after.page.syncToken)
            #expect(Set(back.saved) == ["m1", "loose"])
            #expect(back.deleted.isEmpty)

            // Deleted inside the share: a tombstone.
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "loose")], zone: "Chats")
            let gone = try await bobsChanges(f, after: back.page.syncToken)
            #expect(gone.deleted == ["loose"])
        }
    }

    @Test("an orphan keeps its share; when a record saved under its parent's name takes it elsewhere, it leaves that share")
    func orphanLeavesItsOwnShare() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            // m1 holds r1; Bob follows c1's share only.
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "r1", recordType: "Message", parent: .set("m1"))], zone: "Chats")
            try await shareWithBob(f, "c1")
            let start = try await bobsChanges(f, after: nil)
            #expect(Set(start.saved) == ["c1", "m1", "r1", "share-c1"])
            // m1 is deleted: r1 stays, with no parent left, in c1's share.
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "m1")], zone: "Chats")
            let orphaned = try await bobsChanges(f, after: start.page.syncToken)
            #expect(orphaned.deleted == ["m1"])
            // A new m1 under c2 takes r1 with it, out of the share Bob follows: r1 must go too,
            // although the new m1 itself was never in that share.
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "m1", recordType: "Message", parent: .set("c2"))], zone: "Chats")
            let moved = try await bobsChanges(f, after: orphaned.page.syncToken)
            #expect(moved.deleted == ["r1"])
            #expect(moved.saved.isEmpty)
            let lookup = try await f.database.lookupRecords(named: ["r1"], inZone: chats(f), access: f.access(f.bob, .shared))
            #expect(lookup.first.map { if case .failure = $0 { true } else { false } } == true)
        }
    }

    @Test("a record deleted in a share and saved again outside it before the participant syncs comes as deleted")
    func recreatedOutsideTheShare() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            try await shareWithBob(f, "c1")
            let start = try await bobsChanges(f, after: nil)
            #expect(start.saved.contains("m1"))
            // Bob does not sync between the delete and the new save: the tombstone he would have
            // fetched is replaced by a record under c2, which he may not read.
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "m1")], zone: "Chats")
            _ = try await f.modify([RecordOperation(kind: .forceReplace, recordName: "m1", recordType: "Message", parent: .set("c2"))], zone: "Chats")
            let after = try await bobsChanges(f, after: start.page.syncToken)
            #expect(after.deleted == ["m1"])
            #expect(after.saved.isEmpty)

            // Saved again inside the share, it comes back as a record, not as a tombstone.
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "m1")], zone: "Chats")
            _ = try await f.modify([RecordOperation(kind: .forceReplace, recordName: "m1", recordType: "Message", parent: .set("c1"))], zone: "Chats")
            let back = try await bobsChanges(f, after: after.page.syncToken)
            #expect(back.saved == ["m1"])
            #expect(back.deleted.isEmpty)
        }
    }

    @Test("a second share accepted in the same zone is fetched from its beginning through the old token")
    func secondShareBackfills() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            try await shareWithBob(f, "c1")
            let database = try await bobsDatabase(f, after: nil)
            let start = try await bobsChanges(f, after: nil)
            try await shareWithBob(f, "c2")
            #expect(try await bobsDatabase(f, after: database.syncToken).zones.count == 1)
            // Page by page: c2's old records come, and the token keeps working afterwards.
            var saved: [String] = []
            var token = start.page.syncToken
            while true {
                let page = try await bobsChanges(f, after: token, limit: 1)
                saved += page.saved
                #expect(page.deleted.isEmpty)
                token = page.page.syncToken
                if !page.page.moreComing { break }
            }
            #expect(Set(saved) == ["c2", "m2", "share-c2"])
            _ = try await f.modify([RecordOperation(kind: .create, recordName: "m4", recordType: "Message", parent: .set("c2"))], zone: "Chats")
            #expect(try await bobsChanges(f, after: token).saved == ["m4"])
        }
    }

    @Test("leaving one of two shares expires the zone token; losing the last share deletes the zone")
    func leavingAndUnsharing() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            try await shareWithBob(f, "c1")
            try await shareWithBob(f, "c2")
            let database = try await bobsDatabase(f, after: nil)
            let start = try await bobsChanges(f, after: nil)
            #expect(Set(start.saved) == ["c1", "m1", "share-c1", "c2", "m2", "share-c2"])

            // Bob leaves c2: the zone stays, changed; the old token would keep c2's records, so it expires.
            let left = try await f.database.modifyRecords(
                [RecordOperation(kind: .forceDelete, recordName: "share-c2")],
                inZone: chats(f),
                atomic: true,
                access: f.access(f.bob, .shared)
            )
            #expect(left.first?.error == nil)
            let changed = try await bobsDatabase(f, after: database.syncToken)
            #expect(changed.zones.count == 1)
            await #expect(throws: NimbusError.self) { _ = try await bobsChanges(f, after: start.page.syncToken) }
            do {
                _ = try await bobsChanges(f, after: start.page.syncToken)
            } catch let error as NimbusError {
                #expect(error.code == .changeTokenExpired)
            }
            let again = try await bobsChanges(f, after: nil)
            #expect(Set(again.saved) == ["c1", "m1", "share-c1"])

            // Alice unshares c1: Bob's last share in the zone, so the zone is deleted for him.
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "share-c1")], zone: "Chats")
            let deleted = try await bobsDatabase(f, after: changed.syncToken)
            #expect(deleted.zones == [.deleted(chats(f))])
            await #expect(throws: NimbusError.zoneNotFound) { _ = try await bobsChanges(f, after: again.page.syncToken) }
            // And the feed is quiet after that.
            #expect(try await bobsDatabase(f, after: deleted.syncToken).zones.isEmpty)
        }
    }

    @Test("a zone share's feed holds every record of the zone")
    func zoneShareFeed() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            let results = try await f.modify(
                [
                    RecordOperation(
                        kind: .create,
                        recordName: Share.zoneShareName,
                        recordType: Share.recordType,
                        share: ShareChange(participants: [ParticipantInput(lookupInfo: .userRecordName(f.bob))])
                    )
                ],
                zone: "Chats"
            )
            let guid = try #require(results.first?.record?.shareDetails?.share.shortGUID)
            _ = try await f.database.acceptShares([ShareLookup(shortGUID: guid)], access: f.access(f.bob))
            let all = try await bobsChanges(f, after: nil)
            #expect(Set(all.saved) == ["c1", "m1", "c2", "m2", "loose", Share.zoneShareName])
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "loose")], zone: "Chats")
            #expect(try await bobsChanges(f, after: all.page.syncToken).deleted == ["loose"])
        }
    }

    @Test("a participant's tokens open for nobody else, and never in the owner's private database")
    func tokensArePerParticipant() async throws {
        try await EngineFixture.with { f in
            try await seed(f)
            try await shareWithBob(f, "c1")
            let carol = try await f.accounts.addUser(name: "Carol", email: nil, phone: nil, container: EngineFixture.container)
            let carolName = carol.user.userRecordName
            let page = try await bobsChanges(f, after: nil)
            let database = try await bobsDatabase(f, after: nil)
            // Alice's private feed of the same zone refuses Bob's token.
            await #expect(throws: NimbusError.self) { _ = try await f.changes(after: page.page.syncToken, zone: "Chats") }
            // Carol, had she a share there, could not use Bob's database token.
            await #expect(throws: NimbusError.self) {
                _ = try await f.database.databaseChanges(syncToken: database.syncToken, resultsLimit: nil, access: f.access(carolName, .shared))
            }
            do {
                _ = try await f.database.databaseChanges(syncToken: database.syncToken, resultsLimit: nil, access: f.access(carolName, .shared))
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
            // Nor a zone she cannot see, token or not.
            await #expect(throws: NimbusError.zoneNotFound) {
                _ = try await f.database.recordChanges(
                    inZone: chats(f),
                    syncToken: page.page.syncToken,
                    resultsLimit: nil,
                    access: f.access(carolName, .shared)
                )
            }
        }
    }
}

extension DatabaseChangesPage.ZoneChange {
    /// The zone the change is about.
    var zoneID: ZoneID {
        switch self {
        case .changed(let zone): zone.zoneID
        case .deleted(let zoneID): zoneID
        }
    }
}
