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
    /// A write as the engine's: it reads the records first, then saves one with its note.
    private static func write(_ name: String, in zone: String, _ f: StoreFixture) async throws {
        let note = ChangeNote(writer: StoreFixture.alice, deviceID: nil, created: [NameKey(name)], deleted: [])
        try await f.store.write(zone: zone, of: f.tenant()) { transaction in
            _ = try await transaction.records(named: [name])
            _ = try await transaction.save([f.record(name, in: zone)], recordingChange: note)
        }
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

            let subscriber = Subscriber(
                container: StoreFixture.container,
                environment: .development,
                scope: .private,
                userRecordName: StoreFixture.alice
            )
            _ = try await f.store.modifySubscriptions([.save(Subscription(subscriptionID: "everything", kind: .database))], of: subscriber)
            try await Self.write("q2", in: "Quiet", f)
            #expect(try await Self.taken(f) == ["Quiet"])

            _ = try await f.store.modifySubscriptions([.delete("everything")], of: subscriber)
            try await Self.write("q3", in: "Quiet", f)
            #expect(try await !f.store.hasPendingEvents())
        }
    }
}
