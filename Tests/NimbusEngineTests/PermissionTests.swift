//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

@Suite("database permissions")
struct PermissionTests {
    @Test("anyone may read the public database; only signed-in users may write to it")
    func publicReadsAndWrites() async throws {
        try await EngineFixture.with { f in
            let zone = ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")
            _ = try await f.save(.note("p1"), zone: ZoneID.defaultZoneName, as: f.alice, scope: .public)
            let anonymous = f.access(nil, .public)
            let read = try await f.database.lookupRecords(named: ["p1"], inZone: zone, access: anonymous)
            #expect((try? read.first?.get()) != nil)
            do {
                _ = try await f.database.modifyRecords([.note("p2")], inZone: zone, atomic: false, access: anonymous)
                Issue.record("anonymous write succeeded")
            } catch let error as NimbusError {
                #expect(error.code == .authenticationRequired)
            }
        }
    }

    @Test("only a public record's creator may change or delete it")
    func creatorOnly() async throws {
        try await EngineFixture.with { f in
            let record = try await f.save(.note("p1", ["title": .string("mine")]), zone: ZoneID.defaultZoneName, as: f.alice, scope: .public)
            let results = try await f.modify(
                [.note("p1", ["title": .string("yours")], kind: .update, tag: record.recordChangeTag)],
                zone: ZoneID.defaultZoneName,
                atomic: false,
                as: f.bob,
                scope: .public
            )
            #expect(results.first?.error?.code == .permissionFailure)
            let deletes = try await f.modify([.note("p1", kind: .forceDelete)], zone: ZoneID.defaultZoneName, as: f.bob, scope: .public)
            #expect(deletes.first?.error?.code == .permissionFailure)
            let stored = try await f.lookup("p1", zone: ZoneID.defaultZoneName, as: f.bob, scope: .public)
            #expect(stored?.fields["title"] == .string("mine"))
        }
    }

    @Test("another user's private data is indistinguishable from data that does not exist")
    func privateIsolation() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            _ = try await f.save(.note("secret"))
            // Bob has no zone named Notes: his private database is his own.
            await #expect(throws: NimbusError.self) { _ = try await f.lookup("secret", as: f.bob) }
            // Naming Alice as the owner does not reach her zone either; the error is the same.
            let aliceZone = ZoneID(zoneName: "Notes", ownerRecordName: f.alice)
            do {
                _ = try await f.database.lookupRecords(named: ["secret"], inZone: aliceZone, access: f.access(f.bob))
                Issue.record("Bob read Alice's zone")
            } catch let error as NimbusError {
                #expect(error.code == .zoneNotFound)
            }
            let bobZones = try await f.database.zones(access: f.access(f.bob))
            #expect(bobZones.map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
        }
    }

    @Test("server-to-server keys reach the public database only")
    func serverKeysArePublicOnly() async throws {
        try await EngineFixture.with { f in
            do {
                _ = try await f.database.zones(access: f.access(f.alice, .private, kind: .serverKey))
                Issue.record("server key read a private database")
            } catch let error as NimbusError {
                #expect(error.code == .permissionFailure)
            }
        }
    }
}
