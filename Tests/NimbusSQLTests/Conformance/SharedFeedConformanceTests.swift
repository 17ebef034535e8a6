//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("share store conformance: participants' change feeds")
struct SharedFeedConformanceTests {
    private static func feed(
        _ f: StoreFixture,
        shares: [String]?,
        after: Int64 = 0,
        initialSyncThrough: Int64? = nil,
        incarnation: Int64? = nil,
        limit: Int = 100
    ) async throws -> SharedZoneChanges {
        try await f.store.sharedZoneChanges(
            SharedZoneChangesRequest(
                tenant: f.tenant(),
                zoneName: "Z",
                incarnation: incarnation,
                strands: [ShareFeedStrand(shareNames: shares, after: after, initialSyncThrough: initialSyncThrough)],
                limit: limit
            )
        )
    }

    @Test("a record share's feed has only the records in its hierarchy, in pages", arguments: StoreFactory.all)
    func recordShareFeed(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let all = try await Self.feed(f, shares: ["share-1"])
            #expect(all.changes.map(\.recordName) == ["root", "share-1", "child"])
            #expect(!all.moreComing)
            #expect(all.zone == (try await f.zone()))
            #expect(all.through == all.zone.changeCounter)

            let first = try await Self.feed(f, shares: ["share-1"], limit: 2)
            #expect(first.changes.map(\.recordName) == ["root", "share-1"])
            #expect(first.moreComing)
            let rest = try await Self.feed(
                f,
                shares: ["share-1"],
                after: first.through,
                initialSyncThrough: all.through,
                incarnation: first.zone.incarnation
            )
            #expect(rest.changes.map(\.recordName) == ["child"])
            #expect(!rest.moreComing)

            // Changes outside the share are not the participant's; changes inside are.
            try await f.save([f.record("loose", fields: ["v": .int64(1)])])
            let quiet = try await Self.feed(f, shares: ["share-1"], after: rest.through, initialSyncThrough: all.through)
            #expect(quiet.changes.isEmpty && !quiet.moreComing)
            try await f.delete(["child"])
            let deleted = try await Self.feed(f, shares: ["share-1"], after: rest.through, initialSyncThrough: all.through)
            #expect(deleted.changes == [.deleted(Tombstone(recordName: "child", recordType: "Note"))])
        }
    }

    @Test("a zone share's feed has every record of the zone", arguments: StoreFactory.all)
    func zoneShareFeed(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let feed = try await Self.feed(f, shares: nil)
            #expect(feed.changes.map(\.recordName) == ["root", "share-1", "child", "loose"])
        }
    }

    @Test("a shared feed refuses an earlier incarnation's position and a missing zone", arguments: StoreFactory.all)
    func sharedFeedErrors(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let incarnation = try await f.zone().incarnation
            _ = try await f.deleteZone("Z")
            #expect(await storeErrorKind { _ = try await Self.feed(f, shares: nil, incarnation: incarnation) } == .zoneNotFound)
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            #expect(await storeErrorKind { _ = try await Self.feed(f, shares: nil, incarnation: incarnation) } == .zoneRecreated)
        }
    }

    @Test("shared zone states give each zone a user accepted shares in, with its latest change for them", arguments: StoreFactory.all)
    func sharedZoneStates(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let states = try await f.store.sharedZoneStates(of: StoreFixture.bob, in: StoreFixture.development)
            let zone = try await f.zone()
            #expect(states.map(\.zone) == [zone])
            #expect(states.map(\.shareNames) == [["share-1"]])
            let latest = try #require(states.first?.latestChange)
            // "loose" was saved last, outside the share.
            #expect(latest < zone.changeCounter)
            try await f.save([f.record("loose", fields: ["v": .int64(2)])])
            #expect(try await f.store.sharedZoneStates(of: StoreFixture.bob, in: StoreFixture.development).first?.latestChange == latest)
            try await f.save([f.record("child", parent: "root", share: "share-1")])
            let moved = try await f.store.sharedZoneStates(of: StoreFixture.bob, in: StoreFixture.development).first?.latestChange
            #expect(moved == (try await f.zone().changeCounter))
            // Only accepted participants other than the owner have shared zones.
            #expect(try await f.store.sharedZoneStates(of: StoreFixture.alice, in: StoreFixture.development).isEmpty)
        }
    }

    @Test("moving descendants into and out of a share keeps change tags and reaches the feeds", arguments: StoreFactory.all)
    func moveDescendants(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.makeRecordShare()
            let saved = try await f.save([f.record("top"), f.record("kid", parent: "top"), f.record("grandkid", parent: "kid")])
            let position = try await f.changes().position
            let shareStart = try await Self.feed(f, shares: ["share-1"])
            let moved = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.moveDescendants(of: "top", from: nil, to: "share-1")
            }
            #expect(moved == 2)
            let read = try await f.store.records(named: ["top", "kid", "grandkid"], inZone: "Z", of: f.tenant())
            #expect(read["kid"]?.containingShare == "share-1" && read["grandkid"]?.containingShare == "share-1")
            #expect(read["top"]?.containingShare == nil)
            #expect(read["kid"]?.recordChangeTag == saved[1].recordChangeTag)
            #expect(read["grandkid"]?.recordChangeTag == saved[2].recordChangeTag)
            #expect(Set(try await f.changes(after: position).changes.map(\.recordName)) == ["kid", "grandkid"])
            let joined = try await Self.feed(f, shares: ["share-1"], after: shareStart.through, initialSyncThrough: shareStart.through)
            #expect(Set(joined.changes.map(\.recordName)) == ["kid", "grandkid"])
            #expect(joined.changes.filter(\.isDeletion).isEmpty)

            // Out of every share again: the share's feed reports them as deleted.
            let movedOut = try await f.store.write(zone: "Z", of: f.tenant()) { transaction in
                try await transaction.moveDescendants(of: "top", from: "share-1", to: nil)
            }
            #expect(movedOut == 2)
            let left = try await Self.feed(f, shares: ["share-1"], after: joined.through, initialSyncThrough: shareStart.through)
            #expect(Set(left.changes.filter(\.isDeletion).map(\.recordName)).isSuperset(of: ["kid", "grandkid"]))
            #expect(left.changes.filter { !$0.isDeletion }.isEmpty)
            let read2 = try await f.store.records(named: ["kid", "grandkid"], inZone: "Z", of: f.tenant())
            #expect(read2.values.allSatisfy { $0.containingShare == nil })
        }
    }
}
