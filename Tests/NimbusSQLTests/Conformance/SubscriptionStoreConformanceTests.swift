//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("subscription store conformance")
struct SubscriptionStoreConformanceTests {
    private static func subscriber(_ user: String = StoreFixture.alice, scope: DatabaseScope = .private) -> Subscriber {
        Subscriber(container: StoreFixture.container, environment: .development, scope: scope, userRecordName: user)
    }

    private static let zone = ZoneID(zoneName: "Z", ownerRecordName: StoreFixture.alice)
    private static let query = Subscription(
        subscriptionID: "query",
        kind: .query(
            Query(recordType: "Note", filters: [Filter("rank", .greaterThan, .int64(3))], sortDescriptors: []),
            zoneID: zone,
            firesOn: [.create, .delete],
            firesOnce: true
        )
    )
    private static let zoneWatch = Subscription(subscriptionID: "zone", kind: .zone(zone))
    private static let database = Subscription(subscriptionID: "database", kind: .database)

    @Test("saved subscriptions read back as saved, by subscriber and ID", arguments: StoreFactory.all)
    func saveAndRead(factory: StoreFactory) async throws {
        try await factory.with { f in
            let found = try await f.store.modifySubscriptions(
                [.save(Self.query), .save(Self.zoneWatch), .save(Self.database)],
                of: Self.subscriber()
            )
            #expect(found == [true, true, true])
            let all = try await f.store.subscriptions(of: Self.subscriber())
            #expect(
                Dictionary(uniqueKeysWithValues: all.map { ($0.subscriptionID, $0) }) == [
                    "query": Self.query, "zone": Self.zoneWatch, "database": Self.database,
                ]
            )
            #expect(all.count == 3)
            let some = try await f.store.subscriptions(withIDs: ["zone", "absent", "query"], of: Self.subscriber())
            #expect(some == ["zone": Self.zoneWatch, "query": Self.query])
            // Another user's, or another database's, are not the subscriber's.
            #expect(try await f.store.subscriptions(of: Self.subscriber(StoreFixture.bob)).isEmpty)
            #expect(try await f.store.subscriptions(of: Self.subscriber(scope: .shared)).isEmpty)
            #expect(try await f.store.subscriptions(withIDs: ["zone"], of: Self.subscriber(scope: .public)).isEmpty)
        }
    }

    @Test("a save replaces the subscription of its ID; a delete says whether it found one", arguments: StoreFactory.all)
    func replaceAndDelete(factory: StoreFactory) async throws {
        try await factory.with { f in
            _ = try await f.store.modifySubscriptions([.save(Self.zoneWatch)], of: Self.subscriber())
            var replaced = Self.database
            replaced.subscriptionID = "zone"
            _ = try await f.store.modifySubscriptions([.save(replaced)], of: Self.subscriber())
            #expect(try await f.store.subscriptions(of: Self.subscriber()) == [replaced])

            let found = try await f.store.modifySubscriptions([.delete("zone"), .delete("zone"), .delete("never")], of: Self.subscriber())
            #expect(found == [true, false, false])
            #expect(try await f.store.subscriptions(of: Self.subscriber()).isEmpty)
            // A delete of another subscriber's ID finds nothing and leaves theirs.
            _ = try await f.store.modifySubscriptions([.save(Self.zoneWatch)], of: Self.subscriber(StoreFixture.bob))
            #expect(try await f.store.modifySubscriptions([.delete("zone")], of: Self.subscriber()) == [false])
            #expect(try await f.store.subscriptions(of: Self.subscriber(StoreFixture.bob)) == [Self.zoneWatch])
        }
    }
}
