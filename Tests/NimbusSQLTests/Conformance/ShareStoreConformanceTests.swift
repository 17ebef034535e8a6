//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

extension StoreFixture {
    /// A record share `share-1` of `root` in Alice's zone Z: Alice owns it, Bob accepted it
    /// (read-write), Carol is invited (read-only) and Dave was removed. Alice and Bob are users
    /// of the container, so the store knows their names.
    func makeRecordShare() async throws -> Share {
        try await store.createContainer(
            StoreFixture.development,
            apiTokenHash: "token-hash",
            developer: UserIdentity(userRecordName: "_" + String(repeating: "d", count: 32), name: "Developer")
        )
        try await store.addUser(UserIdentity(userRecordName: Self.alice, name: "Alice"), toContainer: Self.container)
        try await store.addUser(UserIdentity(userRecordName: Self.bob, name: "Bob"), toContainer: Self.container)
        _ = try await store.createZone(named: "Z", of: tenant())
        let share = Share(
            recordName: "share-1",
            rootRecordName: "root",
            shortGUID: "guid-share-1",
            publicPermission: .none,
            participants: [
                participant("p-alice", Self.alice, name: "Alice", role: .owner, .accepted, .readWrite),
                participant("p-bob", Self.bob, name: "Bob", role: .privateUser, .accepted, .readWrite),
                participant("p-carol", nil, lookup: .emailAddress("carol@example.com"), role: .privateUser, .pending, .readOnly),
                participant("p-dave", "_" + String(repeating: "e", count: 32), role: .privateUser, .removed, .readOnly),
            ],
            requestsEnabled: true
        )
        let shareRecord = record("share-1", type: Share.recordType, share: "share-1")
        var root = record("root", share: "share-1")
        root.shareRecordName = "share-1"
        try await store.write(zone: "Z", of: tenant()) { [root] transaction in
            _ = try await transaction.save([root, shareRecord, record("child", parent: "root", share: "share-1"), record("loose")])
            try await transaction.saveShare(share)
        }
        return share
    }

    func participant(
        _ id: String,
        _ user: String?,
        name: String? = nil,
        lookup: LookupInfo? = nil,
        role: ShareRole,
        _ acceptance: ShareAcceptance,
        _ permission: SharePermission
    ) -> ShareParticipant {
        ShareParticipant(
            participantID: id,
            userRecordName: user,
            lookupInfo: lookup,
            name: name,
            role: role,
            acceptance: acceptance,
            permission: permission
        )
    }
}

@Suite("share store conformance")
struct ShareStoreConformanceTests {
    @Test("a share saved in a zone transaction reads back with every participant, in order", arguments: StoreFactory.all)
    func saveAndRead(factory: StoreFactory) async throws {
        try await factory.with { f in
            let share = try await f.makeRecordShare()
            let read = try await f.store.shares(named: ["share-1", "absent"], inZone: "Z", of: f.tenant())
            #expect(read == ["share-1": share])
            let (inTransaction, kinds) = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                (try await transaction.shares(named: ["share-1"]), try await transaction.shareKinds())
            }
            #expect(inTransaction == ["share-1": share])
            #expect(kinds == ZoneShareKinds(hasZoneShare: false, hasRecordShares: true))
            // Saving again replaces the participant list.
            var changed = share
            changed.participants.removeLast(2)
            changed.publicPermission = .readOnly
            try await f.store.write(zone: "Z", of: f.tenant()) { [changed] in try await $0.saveShare(changed) }
            #expect(try await f.store.shares(named: ["share-1"], inZone: "Z", of: f.tenant())["share-1"] == changed)
        }
    }

    @Test("a zone with a zone share says so", arguments: StoreFactory.all)
    func zoneShareKinds(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            let empty = try await f.store.write(zone: "Z", of: f.tenant()) { try await $0.shareKinds() }
            #expect(empty == ZoneShareKinds(hasZoneShare: false, hasRecordShares: false))
            let share = Share(recordName: Share.zoneShareName, rootRecordName: nil, shortGUID: "guid-zone")
            let kinds = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                _ = try await transaction.save([f.record(Share.zoneShareName, type: Share.recordType)])
                try await transaction.saveShare(share)
                return try await transaction.shareKinds()
            }
            #expect(kinds == ZoneShareKinds(hasZoneShare: true, hasRecordShares: false))
        }
    }

    @Test("a short GUID finds its share, or the share of its extra link, in its container only", arguments: StoreFactory.all)
    func shortGUID(factory: StoreFactory) async throws {
        try await factory.with { f in
            let share = try await f.makeRecordShare()
            let located = try await f.store.share(shortGUID: "guid-share-1", in: StoreFixture.development)
            #expect(located == LocatedShare(tenant: f.tenant(), zoneName: "Z", share: share))
            #expect(try await f.store.share(shortGUID: "guid-share-1", in: nil) == located)
            let production = ContainerEnvironment(container: StoreFixture.container, environment: .production)
            #expect(try await f.store.share(shortGUID: "guid-share-1", in: production) == nil)
            #expect(try await f.store.share(shortGUID: "guid-unknown", in: nil) == nil)

            var link = ShareLink(
                shortGUID: "guid-link",
                shareName: "share-1",
                permission: .readOnly,
                expiresAt: nil,
                isSingleUse: true,
                createdBy: StoreFixture.alice,
                createdAt: f.clock.milliseconds
            )
            try await f.store.write(zone: "Z", of: f.tenant()) { [link] in try await $0.saveShareLink(link) }
            #expect(
                try await f.store.share(shortGUID: "guid-link", in: nil) == LocatedShare(tenant: f.tenant(), zoneName: "Z", share: share, link: link)
            )
            // In any state: a revoked link still names its share.
            link.revokedAt = f.clock.milliseconds
            try await f.store.write(zone: "Z", of: f.tenant()) { [link] in try await $0.saveShareLink(link) }
            #expect(try await f.store.share(shortGUID: "guid-link", in: nil)?.link?.revokedAt == link.revokedAt)
        }
    }

    @Test("a share's links and join requests read back oldest first, as last saved", arguments: StoreFactory.all)
    func linksAndRequests(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let older = ShareLink(
                shortGUID: "guid-z",
                shareName: "share-1",
                permission: .readWrite,
                expiresAt: f.clock.milliseconds + 60_000,
                isSingleUse: false,
                createdBy: StoreFixture.alice,
                createdAt: f.clock.milliseconds
            )
            var newer = older
            newer.shortGUID = "guid-a"
            newer.createdAt += 1_000
            newer.isSingleUse = true
            try await f.store.write(zone: "Z", of: f.tenant()) { [newer] transaction in
                try await transaction.saveShareLink(newer)
                try await transaction.saveShareLink(older)
            }
            #expect(try await f.store.shareLinks(of: "share-1", inZone: "Z", of: f.tenant()) == [older, newer])
            newer.usedBy = StoreFixture.carol
            let inTransaction = try await f.store.write(zone: "Z", of: f.tenant()) { [newer] transaction in
                try await transaction.saveShareLink(newer)
                return try await transaction.shareLinks(of: "share-1")
            }
            #expect(inTransaction == [older, newer])

            let carol = ShareRequest(
                shareName: "share-1",
                userRecordName: StoreFixture.carol,
                status: .pending,
                requestedAt: f.clock.milliseconds + 5
            )
            let dave = ShareRequest(shareName: "share-1", userRecordName: "_dave", status: .pending, requestedAt: f.clock.milliseconds)
            try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.saveShareRequest(carol)
                try await transaction.saveShareRequest(dave)
            }
            #expect(try await f.store.shareRequests(of: "share-1", inZone: "Z", of: f.tenant()) == [dave, carol])
            var denied = dave
            denied.status = .denied
            let afterChanges = try await f.store.write(zone: "Z", of: f.tenant()) { [denied] transaction in
                try await transaction.saveShareRequest(denied)
                try await transaction.deleteShareRequest(of: StoreFixture.carol, toShare: "share-1")
                return try await transaction.shareRequests(of: "share-1")
            }
            #expect(afterChanges == [denied])
            #expect(try await f.store.shareRequests(of: "share-1", inZone: "Z", of: f.tenant()) == [denied])
        }
    }

    @Test("accepted shares list non-owners who accepted; shares involving a user list any state", arguments: StoreFactory.all)
    func participations(factory: StoreFactory) async throws {
        try await factory.with { f in
            let share = try await f.makeRecordShare()
            let bobs = Participation(owner: StoreFixture.alice, zoneName: "Z", shareName: "share-1", role: .privateUser, permission: .readWrite)
            #expect(try await f.store.acceptedShares(of: StoreFixture.bob, in: StoreFixture.development) == [bobs])
            #expect(try await f.store.acceptedShares(of: StoreFixture.bob, inZone: "Z", of: f.tenant()) == [bobs])
            #expect(try await f.store.acceptedShares(of: StoreFixture.alice, in: StoreFixture.development).isEmpty)
            let production = ContainerEnvironment(container: StoreFixture.container, environment: .production)
            #expect(try await f.store.acceptedShares(of: StoreFixture.bob, in: production).isEmpty)
            _ = try await f.store.createZone(named: "Other", of: f.tenant())
            #expect(try await f.store.acceptedShares(of: StoreFixture.bob, inZone: "Other", of: f.tenant()).isEmpty)
            let located = LocatedShare(tenant: f.tenant(), zoneName: "Z", share: share)
            #expect(try await f.store.sharesInvolving(StoreFixture.alice, in: StoreFixture.development) == [located])
            let dave = "_" + String(repeating: "e", count: 32)
            #expect(try await f.store.sharesInvolving(dave, in: StoreFixture.development) == [located])
            #expect(try await f.store.sharesInvolving(StoreFixture.carol, in: StoreFixture.development).isEmpty)
        }
    }

    @Test("a share commits with its transaction: a throwing body leaves no share", arguments: StoreFactory.all)
    func atomicity(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            let share = Share(recordName: "share-x", rootRecordName: "root", shortGUID: "guid-x")
            await #expect(throws: DeliberateFailure()) {
                try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                    _ = try await transaction.save([f.record("root", share: "share-x"), f.record("share-x", type: Share.recordType)])
                    try await transaction.saveShare(share)
                    throw DeliberateFailure()
                }
            }
            #expect(try await f.store.shares(named: ["share-x"], inZone: "Z", of: f.tenant()).isEmpty)
            #expect(try await f.store.share(shortGUID: "guid-x", in: nil) == nil)
        }
    }

    @Test("deleting a share removes it with its participants and links", arguments: StoreFactory.all)
    func deleteShare(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let link = ShareLink(
                shortGUID: "guid-link",
                shareName: "share-1",
                permission: .readOnly,
                expiresAt: nil,
                isSingleUse: false,
                createdBy: StoreFixture.alice,
                createdAt: f.clock.milliseconds
            )
            try await f.store.write(zone: "Z", of: f.tenant()) { try await $0.saveShareLink(link) }
            try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.deleteShare(named: "share-1")
                try await transaction.delete([Tombstone(recordName: "share-1", recordType: Share.recordType)])
            }
            #expect(try await f.store.shares(named: ["share-1"], inZone: "Z", of: f.tenant()).isEmpty)
            #expect(try await f.store.share(shortGUID: "guid-share-1", in: nil) == nil)
            #expect(try await f.store.share(shortGUID: "guid-link", in: nil) == nil)
            #expect(try await f.store.shareLinks(of: "share-1", inZone: "Z", of: f.tenant()).isEmpty)
            #expect(try await f.store.acceptedShares(of: StoreFixture.bob, in: StoreFixture.development).isEmpty)
        }
    }

    @Test("deleting a zone takes its shares with it: participants lose them at once", arguments: StoreFactory.all)
    func deleteZone(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            #expect(try await f.deleteZone("Z"))
            #expect(try await f.store.acceptedShares(of: StoreFixture.bob, in: StoreFixture.development).isEmpty)
            #expect(try await f.store.sharesInvolving(StoreFixture.bob, in: StoreFixture.development).isEmpty)
            #expect(try await f.store.share(shortGUID: "guid-share-1", in: nil) == nil)
            #expect(try await f.store.sharedZoneStates(of: StoreFixture.bob, in: StoreFixture.development).isEmpty)
        }
    }
}
