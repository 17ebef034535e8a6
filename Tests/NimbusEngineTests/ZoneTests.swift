//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import Testing

@Suite("zones")
struct ZoneTests {
    @Test("the default zone always exists and cannot be deleted")
    func defaultZone() async throws {
        try await EngineFixture.with { f in
            let zones = try await f.database.zones(access: f.access(f.alice))
            #expect(zones.map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
            let results = try await f.database.modifyZones(
                [.delete(ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: ""))],
                access: f.access(f.alice)
            )
            guard case .failed(_, let error) = results.first else { Issue.record("default zone deleted"); return }
            #expect(error.code == .badRequest)
        }
    }

    @Test("a zone name is unique per owner")
    func uniquePerOwner() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            try await f.makeZone("Notes", for: f.bob)
            let again = try await f.database.modifyZones([.create(ZoneID(zoneName: "Notes", ownerRecordName: ""))], access: f.access(f.alice))
            guard case .failed(_, let error) = again.first else { Issue.record("duplicate zone created"); return }
            #expect(error.code == .alreadyExists)
        }
    }

    @Test("deleting a zone deletes its records; re-creating it starts empty")
    func deleteZone() async throws {
        try await EngineFixture.with { f in
            try await f.makeZone("Notes", for: f.alice)
            let saved = try await f.save(.note("n1"))
            let results = try await f.database.modifyZones([.delete(ZoneID(zoneName: "Notes", ownerRecordName: ""))], access: f.access(f.alice))
            guard case .deleted = results.first else { Issue.record("zone not deleted: \(results)"); return }
            await #expect(throws: NimbusError.self) { _ = try await f.lookup("n1") }
            try await f.makeZone("Notes", for: f.alice)
            #expect(try await f.lookup("n1") == nil)
            // The counter keeps growing across incarnations, so change tags never repeat.
            let again = try await f.save(.note("n1"))
            #expect(again.recordChangeTag != saved.recordChangeTag)
        }
    }

    @Test("invalid zone names are rejected", arguments: ["", "_hidden", String(repeating: "z", count: 256), "zoné"])
    func invalidNames(name: String) async throws {
        try await EngineFixture.with { f in
            let results = try await f.database.modifyZones([.create(ZoneID(zoneName: name, ownerRecordName: ""))], access: f.access(f.alice))
            guard case .failed(_, let error) = results.first else { Issue.record("zone '\(name)' created"); return }
            #expect(error.code == .badRequest)
        }
    }

    @Test("records in an unknown zone fail with ZONE_NOT_FOUND")
    func unknownZone() async throws {
        try await EngineFixture.with { f in
            do {
                _ = try await f.modify([.note("n1")], zone: "Nowhere")
                Issue.record("wrote to a missing zone")
            } catch let error as NimbusError {
                #expect(error.code == .zoneNotFound)
            }
        }
    }

    @Test("public custom zones are made with server-to-server keys only")
    func publicZones() async throws {
        try await EngineFixture.with { f in
            let zone = ZoneID(zoneName: "Catalog", ownerRecordName: "")
            do {
                _ = try await f.database.modifyZones([.create(zone)], access: f.access(f.alice, .public))
                Issue.record("a user created a public zone")
            } catch let error as NimbusError {
                #expect(error.code == .permissionFailure)
            }
            let results = try await f.database.modifyZones([.create(zone)], access: f.access(f.alice, .public, kind: .serverKey))
            guard case .saved = results.first else { Issue.record("key could not create a public zone"); return }
        }
    }
}

@Suite("zones/modify request rules")
struct ZoneRequestTests {
    @Test("two operations on one zone in a request are a BAD_REQUEST and change nothing")
    func oneOperationPerZone() async throws {
        try await EngineFixture.with { f in
            let zone = ZoneID(zoneName: "Twice", ownerRecordName: "")
            do {
                _ = try await f.database.modifyZones([.create(zone), .delete(zone)], access: f.access(f.alice))
                Issue.record("duplicate zone operations ran")
            } catch let error as NimbusError {
                #expect(error.code == .badRequest)
            }
            let zones = try await f.database.zones(access: f.access(f.alice))
            #expect(!zones.contains { $0.zoneID.zoneName == "Twice" })
        }
    }
}
