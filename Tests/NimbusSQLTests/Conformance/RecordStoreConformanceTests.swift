//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusStore
import Testing

@Suite("record store conformance: zones, records and write transactions")
struct RecordStoreConformanceTests {
    @Test("the default zone always exists, first among a tenant's zones", arguments: StoreFactory.all)
    func defaultZone(factory: StoreFactory) async throws {
        try await factory.with { f in
            let fresh = try await f.store.zones(of: f.tenant())
            #expect(fresh.map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
            #expect(fresh.first?.zoneID.ownerRecordName == StoreFixture.alice)
            #expect(try await f.store.zone(named: ZoneID.defaultZoneName, of: f.tenant()) != nil)
            #expect(try await f.store.records(named: ["nothing"], inZone: ZoneID.defaultZoneName, of: f.tenant()).isEmpty)
            for name in ["B", "A"] { _ = try await f.store.createZone(named: name, of: f.tenant()) }
            let zones = try await f.store.zones(of: f.tenant())
            #expect(zones.first?.zoneID.zoneName == ZoneID.defaultZoneName)
            #expect(Set(zones.map(\.zoneID.zoneName)) == [ZoneID.defaultZoneName, "A", "B"])
            // The default zone takes writes without being created.
            try await f.save([f.record("d", in: ZoneID.defaultZoneName)], in: ZoneID.defaultZoneName)
            #expect(try await f.store.records(named: ["d"], inZone: ZoneID.defaultZoneName, of: f.tenant()).count == 1)
        }
    }

    @Test("the default zone is neither created nor deleted, and its feed keeps moving after an attempt", arguments: StoreFactory.all)
    func defaultZoneStays(factory: StoreFactory) async throws {
        try await factory.with { f in
            let zone = ZoneID.defaultZoneName
            // It is live before its first write and after it: creating it finds it exists.
            #expect(await storeErrorKind { _ = try await f.store.createZone(named: zone, of: f.tenant()) } == .alreadyExists)
            try await f.save([f.record("before", in: zone)], in: zone)
            #expect(await storeErrorKind { _ = try await f.store.createZone(named: zone, of: f.tenant()) } == .alreadyExists)
            // It is no custom zone: there is no such zone to delete.
            #expect(try await !f.deleteZone(zone))
            try await f.save([f.record("after", in: zone)], in: zone)
            #expect(try await f.store.records(named: ["before", "after"], inZone: zone, of: f.tenant()).count == 2)
            let live = try #require(try await f.store.zone(named: zone, of: f.tenant()))
            let feed = try await f.changes(in: zone)
            #expect(feed.changes.map(\.recordName) == ["before", "after"])
            #expect(feed.position.counter == live.changeCounter)
            #expect(try await f.changes(in: zone, after: feed.position).changes.isEmpty)
            let database = try await f.store.databaseChanges(of: f.tenant(), after: nil, limit: 10)
            #expect(database.zones.map(\.zone.zoneID.zoneName) == [zone])
            #expect(database.zones.map(\.isDeleted) == [false])
        }
    }

    @Test("creating a zone that exists throws alreadyExists and leaves the zone as it was", arguments: StoreFactory.all)
    func duplicateZone(factory: StoreFactory) async throws {
        try await factory.with { f in
            let created = try await f.store.createZone(named: "Z", of: f.tenant())
            #expect(created.zoneID == ZoneID(zoneName: "Z", ownerRecordName: StoreFixture.alice))
            #expect(try await f.zone() == created)
            try await f.save([f.record("kept")])
            let before = try await f.zone()
            #expect(await storeErrorKind { _ = try await f.store.createZone(named: "Z", of: f.tenant()) } == .alreadyExists)
            #expect(try await f.zone() == before)
            #expect(try await f.store.records(named: ["kept"], inZone: "Z", of: f.tenant()).count == 1)
            // Zones are per tenant: another owner, or the same owner in production, may use the name.
            _ = try await f.store.createZone(named: "Z", of: f.tenant(StoreFixture.bob))
            _ = try await f.store.createZone(named: "Z", of: f.tenant(environment: .production))
            #expect(try await f.store.zones(of: f.tenant(StoreFixture.carol)).map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
        }
    }

    @Test("deleting a zone removes it and its records; a missing zone is zoneNotFound everywhere", arguments: StoreFactory.all)
    func deleteZone(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("a"), f.record("b")])
            #expect(try await f.deleteZone("Z"))
            #expect(try await f.store.zone(named: "Z", of: f.tenant()) == nil)
            #expect(try await f.store.zones(of: f.tenant()).map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
            #expect(await storeErrorKind { _ = try await f.store.records(named: ["a"], inZone: "Z", of: f.tenant()) } == .zoneNotFound)
            #expect(await storeErrorKind { _ = try await f.save([f.record("c")]) } == .zoneNotFound)
            #expect(await storeErrorKind { _ = try await f.changes() } == .zoneNotFound)
            #expect(try await !f.deleteZone("Z"))
            #expect(try await !f.deleteZone("Never"))
        }
    }

    @Test("a zone created again is a new, empty incarnation whose change tags are new", arguments: StoreFactory.all)
    func recreateZone(factory: StoreFactory) async throws {
        try await factory.with { f in
            let first = try await f.store.createZone(named: "Z", of: f.tenant())
            let old = try await f.save([f.record("a", fields: ["title": .string("old")])])[0]
            _ = try await f.deleteZone("Z")
            let second = try await f.store.createZone(named: "Z", of: f.tenant())
            #expect(second.incarnation != first.incarnation)
            #expect(try await f.zone() == second)
            #expect(try await f.store.records(named: ["a"], inZone: "Z", of: f.tenant()).isEmpty)
            let feed = try await f.changes()
            #expect(feed.changes.isEmpty && !feed.moreComing)
            let again = try await f.save([f.record("a")])[0]
            #expect(again.recordChangeTag != old.recordChangeTag)
        }
    }

    @Test("saved records read back as saved, with a change tag each; absent names are left out", arguments: StoreFactory.all)
    func saveAndRead(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            var note = f.record(
                "note",
                fields: [
                    "title": .string("Hello"), "count": .int64(-42), "ratio": .double(0.25), "when": .timestamp(1_700_000_000_123),
                    "blob": .bytes(Data([0, 1, 2, 255])), "link": .reference(Reference(recordName: "other", action: .none)),
                    "place": .location(Location(latitude: 48.85, longitude: 2.35, altitude: 35)),
                    "tags": .list(elementType: .string, [.string("a"), .string("b")]),
                ],
                parent: "folder"
            )
            note.encryptedFields = ["secret": .string("s3cret")]
            let saved = try await f.save([note, f.record("other", type: "Folder")])
            #expect(saved.map(\.recordID.recordName) == ["note", "other"])
            #expect(saved.allSatisfy { !$0.recordChangeTag.isEmpty })
            #expect(saved[0].recordChangeTag != saved[1].recordChangeTag)
            var expected = note
            expected.recordChangeTag = saved[0].recordChangeTag
            #expect(saved[0] == expected)
            let read = try await f.store.records(named: ["note", "other", "absent"], inZone: "Z", of: f.tenant())
            #expect(Set(read.keys) == ["note", "other"])
            #expect(read["note"] == saved[0])
            #expect(read["other"] == saved[1])
            #expect(await storeErrorKind { _ = try await f.store.records(named: ["note"], inZone: "Nowhere", of: f.tenant()) } == .zoneNotFound)
            // Another tenant's zone of the same name holds none of them.
            _ = try await f.store.createZone(named: "Z", of: f.tenant(StoreFixture.bob))
            #expect(try await f.store.records(named: ["note"], inZone: "Z", of: f.tenant(StoreFixture.bob)).isEmpty)
        }
    }

    @Test("every save changes the change tag and moves the zone counter", arguments: StoreFactory.all)
    func changeTags(factory: StoreFactory) async throws {
        try await factory.with { f in
            let created = try await f.store.createZone(named: "Z", of: f.tenant())
            var tags: [String] = []
            var counter = created.changeCounter
            for round in 0..<3 {
                let saved = try await f.save([f.record("a", fields: ["round": .int64(Int64(round))])])[0]
                tags.append(saved.recordChangeTag)
                let zone = try await f.zone()
                #expect(zone.changeCounter > counter)
                counter = zone.changeCounter
                let read = try await f.store.records(named: ["a"], inZone: "Z", of: f.tenant())["a"]
                #expect(read?.recordChangeTag == saved.recordChangeTag)
                #expect(read?.fields["round"] == .int64(Int64(round)))
            }
            #expect(Set(tags).count == 3)
        }
    }

    @Test("a deleted record no longer reads, and the zone's change feed has its tombstone", arguments: StoreFactory.all)
    func deleteRecord(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.save([f.record("a"), f.record("b")])
            let position = try await f.changes().position
            let before = try await f.zone().changeCounter
            try await f.delete(["a"])
            #expect(try await f.store.records(named: ["a", "b"], inZone: "Z", of: f.tenant()).keys.map(\.string) == ["b"])
            #expect(try await f.zone().changeCounter > before)
            let feed = try await f.changes(after: position)
            #expect(feed.changes == [.deleted(Tombstone(recordName: "a", recordType: "Note"))])
            // A record saved over its tombstone lives again.
            try await f.save([f.record("a")])
            #expect(try await f.store.records(named: ["a"], inZone: "Z", of: f.tenant()).count == 1)
        }
    }

    @Test("a write past the owner's storage quota throws quotaExceeded and commits nothing", arguments: StoreFactory.all)
    func quota(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Z", of: f.tenant())
            try await f.store.saveContainerSettings(ContainerSettings(container: StoreFixture.container, userQuotaBytes: 2_000))
            try await f.save([f.record("small", fields: ["text": .string(String(repeating: "y", count: 1_500))])])
            let zone = try await f.zone()
            let big = f.record("big", fields: ["text": .string(String(repeating: "x", count: 5_000))])
            #expect(await storeErrorKind { try await f.save([big]) } == .quotaExceeded)
            #expect(try await f.store.records(named: ["big", "small"], inZone: "Z", of: f.tenant()).keys.map(\.string) == ["small"])
            #expect(try await f.zone() == zone)
            // Each user has a quota of their own: Alice's storage does not count against Bob.
            _ = try await f.store.createZone(named: "Z", of: f.tenant(StoreFixture.bob))
            try await f.save(
                [f.record("small", of: f.tenant(StoreFixture.bob), fields: ["text": .string(String(repeating: "y", count: 1_500))])],
                of: f.tenant(StoreFixture.bob)
            )
            // Freeing storage succeeds even over the quota.
            try await f.store.saveContainerSettings(ContainerSettings(container: StoreFixture.container, userQuotaBytes: 1))
            try await f.delete(["small"])
            #expect(try await f.store.records(named: ["small"], inZone: "Z", of: f.tenant()).isEmpty)
            // The public database has no per-user quota.
            let publicDatabase = Tenant.publicDatabase(container: StoreFixture.container, environment: .development)
            var shared = big
            shared.recordID.zoneID = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: Tenant.publicOwner)
            try await f.save([shared], in: ZoneID.defaultZoneName, of: publicDatabase)
        }
    }
}
