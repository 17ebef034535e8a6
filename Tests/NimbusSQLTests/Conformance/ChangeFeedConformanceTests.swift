//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("record store conformance: zone and database change feeds")
struct ChangeFeedConformanceTests {
    @Test("a feed from scratch has each live record once, in its latest state, in change order", arguments: StoreFactory.all)
    func fromScratch(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("a"), f.record("b")])
            try await f.save([f.record("gone")])
            try await f.delete(["gone"])
            let latest = try await f.save([f.record("a", fields: ["v": .int64(2)])])[0]
            let feed = try await f.changes()
            #expect(feed.changes.map(\.recordName) == ["b", "a"])
            #expect(feed.changes.last == .saved(latest))
            #expect(!feed.moreComing)
            let zone = try await f.zone()
            #expect(feed.zone == zone)
            #expect(feed.position.incarnation == zone.incarnation && feed.position.counter == zone.changeCounter)
            // The default zone has a feed before its first write.
            let empty = try await f.changes(in: ZoneID.defaultZoneName)
            #expect(empty.changes.isEmpty && !empty.moreComing)
            #expect(await storeErrorKind { _ = try await f.changes(in: "Nowhere") } == .zoneNotFound)
        }
    }

    @Test("pages of `limit` changes say moreComing until the last, and resume where the last ended", arguments: StoreFactory.all)
    func pages(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            for name in ["r1", "r2", "r3", "r4", "r5"] { try await f.save([f.record(name)]) }
            var position: ZoneChangePosition?
            var pages: [[String]] = []
            var moreComing: [Bool] = []
            repeat {
                let page = try await f.changes(after: position, limit: 2)
                pages.append(page.changes.map(\.recordName))
                moreComing.append(page.moreComing)
                position = page.position
            } while moreComing.last == true && pages.count < 10
            #expect(pages == [["r1", "r2"], ["r3", "r4"], ["r5"]])
            #expect(moreComing == [true, true, false])
            #expect(position?.counter == (try await f.zone().changeCounter))
            // Nothing new: an empty page at the same position.
            let idle = try await f.changes(after: position)
            #expect(idle.changes.isEmpty && !idle.moreComing && idle.position.counter == position?.counter)
            // A limit of 0 returns nothing and only says whether changes are waiting.
            #expect(try await !f.changes(after: position, limit: 0).moreComing)
            try await f.save([f.record("r6")])
            let peek = try await f.changes(after: position, limit: 0)
            #expect(peek.changes.isEmpty && peek.moreComing)
            #expect(try await f.changes(after: position).changes.map(\.recordName) == ["r6"])
        }
    }

    @Test("a feed filtered by record type has only those types", arguments: StoreFactory.all)
    func recordTypes(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("n1"), f.record("f1", type: "Folder"), f.record("t1", type: "Tag"), f.record("n2")])
            #expect(try await f.changes(recordTypes: ["Note"]).changes.map(\.recordName) == ["n1", "n2"])
            #expect(try await f.changes(recordTypes: ["Folder", "Tag"]).changes.map(\.recordName) == ["f1", "t1"])
        }
    }

    @Test("a sync from scratch leaves out tombstones older than it, and reports deletions made while it pages", arguments: StoreFactory.all)
    func initialSync(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("early")])
            try await f.delete(["early"])
            try await f.save([f.record("a"), f.record("b"), f.record("c")])
            let first = try await f.changes(limit: 1)
            #expect(first.changes.map(\.recordName) == ["a"])
            #expect(first.moreComing)
            // "a" was sent; deleting it now must reach the client. "early" never was.
            try await f.delete(["a"])
            var names: [String] = []
            var deletions: [String] = []
            var position = first.position
            while true {
                let page = try await f.changes(after: position, limit: 1)
                names += page.changes.map(\.recordName)
                deletions += page.changes.filter(\.isDeletion).map(\.recordName)
                position = page.position
                if !page.moreComing || names.count > 10 { break }
            }
            #expect(names == ["b", "c", "a"])
            #expect(deletions == ["a"])
        }
    }

    @Test("a position from before the zone was deleted and created again throws zoneRecreated", arguments: StoreFactory.all)
    func zoneRecreated(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("a")])
            let old = try await f.changes().position
            _ = try await f.deleteZone("Z")
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("b")])
            #expect(await storeErrorKind { _ = try await f.changes(after: old) } == .zoneRecreated)
            #expect(try await f.changes().changes.map(\.recordName) == ["b"])
        }
    }

    @Test("after pruneTombstones, a position before a pruned deletion throws changesPruned", arguments: StoreFactory.all)
    func pruned(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("a"), f.record("b")])
            let before = try await f.changes().position
            f.clock.advance(by: .milliseconds(1_000))
            let deletedAt = f.clock.milliseconds
            try await f.delete(["a"])
            let after = try await f.changes(after: before).position
            // Tombstones deleted at or after the cutoff stay.
            #expect(try await f.store.pruneTombstones(deletedBefore: deletedAt) == 0)
            #expect(try await f.changes(after: before).changes.map(\.recordName) == ["a"])
            #expect(try await f.store.pruneTombstones(deletedBefore: deletedAt + 1) == 1)
            #expect(await storeErrorKind { _ = try await f.changes(after: before) } == .changesPruned)
            // Positions past the pruned deletion, and syncs from scratch, still work.
            #expect(try await f.changes(after: after).changes.isEmpty)
            #expect(try await f.changes().changes.map(\.recordName) == ["b"])
            #expect(try await f.store.pruneTombstones(deletedBefore: deletedAt + 1) == 0)
        }
    }

    @Test("a position ahead of the zone, as after a restore from backup, throws changesPruned", arguments: StoreFactory.all)
    func positionAhead(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("a")])
            let zone = try await f.zone()
            let ahead = ZoneChangePosition(incarnation: zone.incarnation, counter: zone.changeCounter + 10, initialSyncThrough: 0)
            #expect(await storeErrorKind { _ = try await f.changes(after: ahead) } == .changesPruned)
        }
    }

    @Test("the database feed lists zones once each, in the order of their latest change", arguments: StoreFactory.all)
    func databaseOrder(factory: StoreFactory) async throws {
        try await factory.with { f in
            for name in ["A", "B", "C"] { _ = try await f.store.createZone(named: name, of: f.tenant()) }
            try await f.save([f.record("x", in: "A")], in: "A")
            let all = try await f.store.databaseChanges(of: f.tenant(), after: nil, limit: 10)
            #expect(all.zones.map(\.zone.zoneID.zoneName) == ["B", "C", "A"])
            #expect(all.zones.allSatisfy { !$0.isDeleted })
            #expect(!all.moreComing)
            #expect(all.zones.last?.zone == (try await f.zone("A")))
            // Writes to a zone already listed move it to the end.
            try await f.save([f.record("y", in: "B")], in: "B")
            try await f.save([f.record("z", in: "B")], in: "B")
            let later = try await f.store.databaseChanges(of: f.tenant(), after: nil, limit: 10)
            #expect(later.zones.map(\.zone.zoneID.zoneName) == ["C", "A", "B"])
            // Other tenants' zones are not in it.
            _ = try await f.store.createZone(named: "Elsewhere", of: f.tenant(StoreFixture.bob))
            #expect(try await f.store.databaseChanges(of: f.tenant(), after: later.position, limit: 10).zones.isEmpty)
        }
    }

    @Test("the database feed pages by limit and resumes from its position, reporting deletions", arguments: StoreFactory.all)
    func databasePages(factory: StoreFactory) async throws {
        try await factory.with { f in
            for name in ["A", "B", "C"] { _ = try await f.store.createZone(named: name, of: f.tenant()) }
            let first = try await f.store.databaseChanges(of: f.tenant(), after: nil, limit: 2)
            #expect(first.zones.map(\.zone.zoneID.zoneName) == ["A", "B"])
            #expect(first.moreComing)
            let second = try await f.store.databaseChanges(of: f.tenant(), after: first.position, limit: 2)
            #expect(second.zones.map(\.zone.zoneID.zoneName) == ["C"])
            #expect(!second.moreComing)
            let idle = try await f.store.databaseChanges(of: f.tenant(), after: second.position, limit: 2)
            #expect(idle.zones.isEmpty && !idle.moreComing && idle.position == second.position)

            _ = try await f.deleteZone("A")
            try await f.save([f.record("c", in: "C")], in: "C")
            let changed = try await f.store.databaseChanges(of: f.tenant(), after: second.position, limit: 10)
            #expect(changed.zones.map(\.zone.zoneID.zoneName) == ["A", "C"])
            #expect(changed.zones.map(\.isDeleted) == [true, false])
            // From scratch, only live zones.
            let scratch = try await f.store.databaseChanges(of: f.tenant(), after: nil, limit: 10)
            #expect(scratch.zones.map(\.zone.zoneID.zoneName) == ["B", "C"])
        }
    }
}
