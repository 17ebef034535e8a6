//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

/// Per-user storage quotas: every write counts against the zone's owner, participants' too;
/// a write past the quota is QUOTA_EXCEEDED and writes nothing; deletes free space.
@Suite("sharing: storage quotas")
struct StorageQuotaTests {
    static let text = String(repeating: "x", count: 500)

    static func note(_ name: String) -> RecordOperation { .note(name, ["text": .string(text)]) }

    /// A note in the shared chat, which a participant may create.
    static func message(_ name: String) -> RecordOperation {
        var operation = note(name)
        operation.parent = .set("chat")
        return operation
    }

    static func failure(_ f: EngineFixture, _ operations: [RecordOperation], as user: String, scope: DatabaseScope) async -> NimbusError? {
        do throws(NimbusError) {
            let zone = ZoneID(zoneName: "Chats", ownerRecordName: scope == .shared ? f.alice : "")
            let results = try await f.database.modifyRecords(operations, inZone: zone, atomic: true, access: f.access(user, scope))
            for case .failed(_, let error) in results { return error }
            return nil
        } catch {
            return error
        }
    }

    @Test("saves past the owner's quota are QUOTA_EXCEEDED and write nothing; participants count against the owner; deletes free space")
    func quota() async throws {
        try await EngineFixture.with { f in
            try await NotificationTests.sharedChat(f)
            let container = ContainerEnvironment(container: EngineFixture.container, environment: .development)
            // Setting a quota counts what is stored.
            _ = try await f.accounts.configureContainer(EngineFixture.container, appURLScheme: nil, fallbackURL: nil, userQuotaBytes: .some(1 << 30))
            let before = try await f.store.storageUsed(by: f.alice, in: container)
            #expect(before > 0, "the chat's records count")
            _ = try await f.accounts.configureContainer(
                EngineFixture.container,
                appURLScheme: nil,
                fallbackURL: nil,
                userQuotaBytes: .some(before + 1_300)
            )
            #expect(await Self.failure(f, [Self.note("n1")], as: f.alice, scope: .private) == nil)
            let afterOne = try await f.store.storageUsed(by: f.alice, in: container)
            #expect(afterOne - before > 500 && afterOne - before < 600, "\(afterOne - before) bytes for one note")

            // Two more notes would pass the quota: the batch fails whole.
            let refused = await Self.failure(f, [Self.note("n2"), Self.note("n3")], as: f.alice, scope: .private)
            #expect(refused?.code == .quotaExceeded, "\(String(describing: refused))")
            #expect(try await f.lookup("n2", zone: "Chats") == nil)
            #expect(try await f.store.storageUsed(by: f.alice, in: container) == afterOne, "a refused write counts nothing")

            // Bob writes in Alice's shared chat: it counts against her.
            #expect(await Self.failure(f, [Self.message("b1")], as: f.bob, scope: .shared) == nil)
            let bobs = await Self.failure(f, [Self.message("b2"), Self.message("b3")], as: f.bob, scope: .shared)
            #expect(bobs?.code == .quotaExceeded)
            #expect(try await f.store.storageUsed(by: f.bob, in: container) == 0)

            // Deleting frees the space again; shrinking a record needs no room.
            _ = try await f.modify([RecordOperation(kind: .forceDelete, recordName: "n1")], zone: "Chats")
            #expect(await Self.failure(f, [Self.note("n2")], as: f.alice, scope: .private) == nil)
            _ = try await f.accounts.configureContainer(EngineFixture.container, appURLScheme: nil, fallbackURL: nil, userQuotaBytes: .some(10))
            #expect(await Self.failure(f, [.note("n2", ["text": .string("short")], kind: .forceReplace)], as: f.alice, scope: .private) == nil)
            #expect(await Self.failure(f, [Self.note("n9")], as: f.alice, scope: .private)?.code == .quotaExceeded)

            // Deleting the zone takes its records off the owner's account.
            _ = try await f.database.modifyZones([.delete(ZoneID(zoneName: "Chats", ownerRecordName: ""))], access: f.access(f.alice))
            #expect(try await f.store.storageUsed(by: f.alice, in: container) == 0)
        }
    }
}
