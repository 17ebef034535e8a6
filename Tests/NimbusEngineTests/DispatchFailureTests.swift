//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusSQL
import NimbusStore
import Testing

@testable import NimbusEngine

@Suite("notification dispatch: a change that cannot be handled")
struct DispatchFailureTests {
    @Test("a change whose subscriber cannot be read is set aside after three attempts, and the changes behind it are dispatched")
    func setAside() async throws {
        try await EngineFixture.with { f in
            let dispatcher = NotificationTests.dispatcher(f)
            for user in [f.alice, f.bob] {
                try await f.makeZone("Notes", for: user)
                try await NotificationTests.subscribe(f, user, .private, Subscription(subscriptionID: "db", kind: .database))
            }
            _ = try await NotificationTests.dispatch(dispatcher)
            // Alice's subscription is damaged in the store: her changes cannot be handled.
            _ = try await f.testDatabase.inspect("UPDATE subscriptions SET body = 'not a subscription' WHERE user_record_name = '\(f.alice)'")
            _ = try await f.save(RecordOperation(kind: .create, recordName: "a1", recordType: "Note"), as: f.alice)
            f.clock.advance(by: .milliseconds(1))
            _ = try await f.save(RecordOperation(kind: .create, recordName: "b1", recordType: "Note"), as: f.bob)

            // Alice's change is first in the outbox and fails, holding up Bob's, until it has
            // failed three times on its own.
            for _ in 1..<NotificationDispatcher.maximumAttempts {
                await #expect(throws: (any Error).self) { try await NotificationTests.dispatch(dispatcher) }
                #expect(try await f.store.hasPendingEvents())
            }
            let received = try await NotificationTests.dispatch(dispatcher)
            #expect(received.map(\.user) == [f.bob])
            #expect(received.first?.changedRecords == ["b1"])
            #expect(try await !f.store.hasPendingEvents())
        }
    }
}
