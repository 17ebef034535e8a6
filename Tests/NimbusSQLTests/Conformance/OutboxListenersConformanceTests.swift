//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("notification store conformance: outbox rows only for changes someone could hear of")
struct OutboxListenersConformanceTests {
    /// A write as the engine's: it reads the records first, then saves them with its note.
    private static func write(_ names: String..., in zone: String, of tenant: Tenant? = nil, _ f: StoreFixture) async throws {
        let tenant = tenant ?? f.tenant()
        let note = ChangeNote(writer: StoreFixture.alice, deviceID: nil, created: Set(names.map { NameKey($0) }), deleted: [])
        try await f.store.write(zone: zone, of: tenant) { transaction in
            _ = try await transaction.records(named: names)
            _ = try await transaction.save(names.map { f.record($0, in: zone, of: tenant) }, recordingChange: note)
        }
    }

    /// `user`'s subscriptions in the conformance container's database of `scope`.
    private static func subscriber(_ user: String, scope: DatabaseScope) -> Subscriber {
        Subscriber(container: StoreFixture.container, environment: .development, scope: scope, userRecordName: user)
    }

    /// The zones the outbox holds rows of, taking them.
    private static func taken(_ f: StoreFixture) async throws -> [String] {
        try await f.store.dispatch { try await $0.takeEvents(limit: 10) }.events.map(\.zoneName)
    }

    @Test(
        "a change nobody could hear of leaves no outbox row; one in a zone with an accepted participant, or of an owner with a subscription, leaves one",
        arguments: StoreFactory.all
    )
    func onlyWhereHeard(factory: StoreFactory) async throws {
        try await factory.with { f in
            // Zone Z has Bob as an accepted participant (and a share's own writes record nothing).
            _ = try await f.makeRecordShare()
            _ = try await f.store.createZone(named: "Quiet", of: f.tenant())

            try await Self.write("q1", in: "Quiet", f)
            #expect(try await !f.store.hasPendingEvents())

            try await Self.write("z1", in: "Z", f)
            #expect(try await Self.taken(f) == ["Z"])

            let subscriber = Self.subscriber(StoreFixture.alice, scope: .private)
            _ = try await f.store.modifySubscriptions([.save(Subscription(subscriptionID: "everything", kind: .database))], of: subscriber)
            try await Self.write("q2", in: "Quiet", f)
            #expect(try await Self.taken(f) == ["Quiet"])

            _ = try await f.store.modifySubscriptions([.delete("everything")], of: subscriber)
            try await Self.write("q3", in: "Quiet", f)
            #expect(try await !f.store.hasPendingEvents())
        }
    }

    @Test(
        "a write of several records, and a write to the public database, leave an outbox row only while someone listens",
        arguments: StoreFactory.all
    )
    func severalRecordsAndPublic(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.createZone(named: "Quiet", of: f.tenant())
            let owner = Self.subscriber(StoreFixture.alice, scope: .private)
            try await Self.write("m1", "m2", in: "Quiet", f)
            #expect(try await !f.store.hasPendingEvents())
            _ = try await f.store.modifySubscriptions([.save(Subscription(subscriptionID: "everything", kind: .database))], of: owner)
            try await Self.write("m3", "m4", in: "Quiet", f)
            #expect(try await Self.taken(f) == ["Quiet"])

            // The public database: anyone's public subscription in the container is a listener,
            // the owner's private one is not.
            let publicDatabase = Tenant.publicDatabase(container: StoreFixture.container, environment: .development)
            let zone = ZoneID.defaultZoneName
            try await Self.write("p1", in: zone, of: publicDatabase, f)
            try await Self.write("p2", "p3", in: zone, of: publicDatabase, f)
            #expect(try await !f.store.hasPendingEvents())
            let reader = Self.subscriber(StoreFixture.bob, scope: .public)
            let notes = Query(recordType: "Note", filters: [], sortDescriptors: [])
            _ = try await f.store.modifySubscriptions(
                [.save(Subscription(subscriptionID: "notes", kind: .query(notes, zoneID: nil, firesOn: [.create], firesOnce: false)))],
                of: reader
            )
            try await Self.write("p4", in: zone, of: publicDatabase, f)
            try await Self.write("p5", "p6", in: zone, of: publicDatabase, f)
            #expect(try await Self.taken(f) == [zone, zone])
        }
    }
}
