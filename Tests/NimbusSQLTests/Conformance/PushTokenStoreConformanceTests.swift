//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("push token store conformance")
struct PushTokenStoreConformanceTests {
    private static func token(_ key: String, _ kind: PushToken.Kind = .apns, user: String = StoreFixture.alice, through: Int64 = 0) -> PushToken {
        PushToken(
            key: key,
            kind: kind,
            container: StoreFixture.development,
            userRecordName: user,
            apnsEnvironment: "development",
            deliveredThrough: through,
            apnsToken: kind == .webCourier ? nil : "device-token-\(key)",
            deviceID: "device-1"
        )
    }

    @Test("a saved token reads back, used now; saving its key again replaces it; deleting removes it", arguments: StoreFactory.all)
    func saveReadDelete(factory: StoreFactory) async throws {
        try await factory.with { f in
            let token = Self.token("k1", through: 4)
            try await f.store.savePushToken(token)
            var expected = token
            expected.lastUsedAt = f.clock.milliseconds
            #expect(try await f.store.pushToken("k1") == expected)
            #expect(try await f.store.pushToken("k2") == nil)

            f.clock.advance(by: .milliseconds(1_000))
            try await f.store.touchPushToken("k1")
            #expect(try await f.store.pushToken("k1")?.lastUsedAt == f.clock.milliseconds)

            var again = Self.token("k1", user: StoreFixture.bob, through: 9)
            again.deviceID = "device-2"
            try await f.store.savePushToken(again)
            again.lastUsedAt = f.clock.milliseconds
            #expect(try await f.store.pushToken("k1") == again)

            try await f.store.deletePushToken("k1")
            #expect(try await f.store.pushToken("k1") == nil)
        }
    }

    @Test("advancing a token moves it only from the position expected", arguments: StoreFactory.all)
    func advance(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await f.store.savePushToken(Self.token("k1", .webCourier, through: 2))
            #expect(try await f.store.advancePushToken("k1", from: 2, through: 5))
            #expect(try await !f.store.advancePushToken("k1", from: 2, through: 7))
            #expect(try await f.store.pushToken("k1")?.deliveredThrough == 5)
            #expect(try await !f.store.advancePushToken("absent", from: 0, through: 1))
        }
    }

    @Test("pruning removes web courier tokens unused since the cutoff, and no other kind", arguments: StoreFactory.all)
    func pruneCourier(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await f.store.savePushToken(Self.token("stale", .webCourier))
            try await f.store.savePushToken(Self.token("apns", .apns))
            f.clock.advance(by: .milliseconds(60_000))
            let cutoff = f.clock.milliseconds
            try await f.store.savePushToken(Self.token("fresh", .webCourier))
            #expect(try await f.store.pruneCourierTokens(unusedSince: cutoff) == 1)
            #expect(try await f.store.pushToken("stale") == nil)
            #expect(try await f.store.pushToken("fresh") != nil)
            #expect(try await f.store.pushToken("apns") != nil)
        }
    }

    @Test("a user keeps at most the maximum of tokens of a kind: the least recently used go", arguments: StoreFactory.all)
    func maximumPerUser(factory: StoreFactory) async throws {
        try await factory.with { f in
            let maximum = PushToken.maximumPerUser
            for index in 0..<maximum {
                try await f.store.savePushToken(Self.token("k\(index)"))
                f.clock.advance(by: .milliseconds(1))
            }
            try await f.store.savePushToken(Self.token("courier", .webCourier))
            try await f.store.savePushToken(Self.token("bob", user: StoreFixture.bob))
            // k0 is the least recently used, unless used since.
            try await f.store.touchPushToken("k0")
            f.clock.advance(by: .milliseconds(1))
            try await f.store.savePushToken(Self.token("one-more"))
            #expect(try await f.store.pushToken("k1") == nil)
            #expect(try await f.store.pushToken("k0") != nil)
            #expect(try await f.store.pushToken("k2") != nil)
            #expect(try await f.store.pushToken("one-more") != nil)
            #expect(try await f.store.pushToken("courier") != nil)
            #expect(try await f.store.pushToken("bob") != nil)
        }
    }

    @Test("only tokens behind their user's inbox are due; a claim holds them until released or its lease ends", arguments: StoreFactory.all)
    func claims(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await f.store.savePushToken(Self.token("alice"))
            try await f.store.savePushToken(Self.token("bob", user: StoreFixture.bob))
            try await f.store.savePushToken(Self.token("hook", .webhook))
            let now = f.clock.milliseconds
            #expect(try await f.store.claimDuePushTokens(.apns, now: now, leaseUntil: now + 30_000, limit: 10).isEmpty)
            let draft = NotificationDraft(userRecordName: StoreFixture.alice, notificationID: "n1", originDeviceID: nil, payload: Array("{}".utf8))
            _ = try await f.store.dispatch { try await $0.deliver([draft], in: StoreFixture.development) }

            let claimed = try await f.store.claimDuePushTokens(.apns, now: now, leaseUntil: now + 30_000, limit: 10)
            #expect(claimed.map(\.key) == ["alice"])
            // Claims are per kind: the webhook is claimed on its own.
            #expect(try await f.store.claimDuePushTokens(.webhook, now: now, leaseUntil: now + 30_000, limit: 10).map(\.key) == ["hook"])
            // Held by the claim until its lease ends.
            #expect(try await f.store.claimDuePushTokens(.apns, now: now + 1, leaseUntil: now + 30_000, limit: 10).isEmpty)
            #expect(try await f.store.claimDuePushTokens(.apns, now: now + 30_000, leaseUntil: now + 60_000, limit: 10).map(\.key) == ["alice"])

            // Released after a failure: not due again before the back-off ends.
            try await f.store.releasePushToken("alice", deliveredThrough: 0, failures: 1, nextAttemptAt: now + 90_000)
            #expect(try await f.store.pushToken("alice")?.failures == 1)
            #expect(try await f.store.claimDuePushTokens(.apns, now: now + 60_000, leaseUntil: now + 70_000, limit: 10).isEmpty)
            #expect(try await f.store.claimDuePushTokens(.apns, now: now + 90_000, leaseUntil: now + 95_000, limit: 10).map(\.key) == ["alice"])
            // Released having delivered everything: no longer due.
            try await f.store.releasePushToken("alice", deliveredThrough: 1, failures: 0, nextAttemptAt: 0)
            #expect(try await f.store.pushToken("alice")?.deliveredThrough == 1)
            #expect(try await f.store.claimDuePushTokens(.apns, now: now + 100_000, leaseUntil: now + 110_000, limit: 10).isEmpty)
        }
    }
}
