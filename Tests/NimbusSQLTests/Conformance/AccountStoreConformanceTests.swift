//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("account store conformance")
struct AccountStoreConformanceTests {
    private static let container = StoreFixture.container
    private static let developer = UserIdentity(userRecordName: "_" + String(repeating: "d", count: 32), name: "Developer")

    @Test("a container environment is created once, with its API token and developer", arguments: StoreFactory.all)
    func containers(factory: StoreFactory) async throws {
        try await factory.with { f in
            #expect(try await f.store.containerEnvironment(container: Self.container, environment: .development) == nil)
            try await f.store.createContainer(StoreFixture.development, apiTokenHash: "hash-dev", developer: Self.developer)
            #expect(try await f.store.containerEnvironment(container: Self.container, environment: .development) == StoreFixture.development)
            #expect(try await f.store.containerEnvironment(container: Self.container, environment: .production) == nil)
            #expect(try await f.store.apiToken(hash: "hash-dev") == StoreFixture.development)
            #expect(try await f.store.apiToken(hash: "hash-unknown") == nil)
            #expect(try await f.store.developer(ofContainer: Self.container) == Self.developer.userRecordName)
            #expect(try await f.store.developer(ofContainer: "iCloud.other") == nil)
            let again = await storeErrorKind {
                try await f.store.createContainer(StoreFixture.development, apiTokenHash: "hash-again", developer: Self.developer)
            }
            #expect(again == .alreadyExists)
            #expect(try await f.store.apiToken(hash: "hash-again") == nil)
            // The other environment is a container environment of its own.
            let production = ContainerEnvironment(container: Self.container, environment: .production)
            try await f.store.createContainer(production, apiTokenHash: "hash-prod", developer: Self.developer)
            #expect(try await f.store.apiToken(hash: "hash-prod") == production)
        }
    }

    @Test("users are found by record name, or by email or phone in normal form", arguments: StoreFactory.all)
    func users(factory: StoreFactory) async throws {
        try await factory.with { f in
            let alice = UserIdentity(
                userRecordName: StoreFixture.alice,
                name: "Alice",
                emailAddress: "alice@example.com",
                phoneNumber: "+15551234567"
            )
            try await f.store.addUser(alice, toContainer: Self.container)
            #expect(try await f.store.user(named: StoreFixture.alice, inContainer: Self.container) == alice)
            #expect(try await f.store.user(named: StoreFixture.alice, inContainer: "iCloud.other") == nil)
            #expect(try await f.store.user(named: StoreFixture.bob, inContainer: Self.container) == nil)
            for lookup: LookupInfo in [
                .emailAddress("  Alice@Example.COM "), .phoneNumber("+1 (555) 123-4567"), .userRecordName(StoreFixture.alice),
            ] {
                #expect(try await f.store.user(matching: lookup, inContainer: Self.container) == alice, "\(lookup)")
            }
            #expect(try await f.store.user(matching: .emailAddress("bob@example.com"), inContainer: Self.container) == nil)
            let taken = await storeErrorKind {
                try await f.store.addUser(UserIdentity(userRecordName: StoreFixture.alice, name: "Another"), toContainer: Self.container)
            }
            #expect(taken == .alreadyExists)
            #expect(try await f.store.user(named: StoreFixture.alice, inContainer: Self.container)?.name == "Alice")
            // Users are per container.
            try await f.store.addUser(UserIdentity(userRecordName: StoreFixture.alice, name: "Elsewhere"), toContainer: "iCloud.other")
            #expect(try await f.store.user(named: StoreFixture.alice, inContainer: "iCloud.other")?.name == "Elsewhere")
        }
    }

    @Test("tokens, sign-in codes and address verifications that expired before the cutoff are pruned; the rest stay", arguments: StoreFactory.all)
    func expiredCredentialsArePruned(factory: StoreFactory) async throws {
        try await factory.with { f in
            let cutoff: Int64 = 1_000_000
            // One that expires at the cutoff and one after it stay.
            for (index, expiresAt) in [cutoff - 2, cutoff - 1, cutoff, cutoff + 1].enumerated() {
                try await f.store.addWebAuthToken(
                    WebAuthTokenRecord(
                        hash: "t\(index)",
                        container: Self.container,
                        userRecordName: StoreFixture.alice,
                        issuedAt: 0,
                        expiresAt: expiresAt,
                        lifetime: expiresAt
                    )
                )
            }
            // Codes are keyed by container and address: the same address's live code in another
            // container stays.
            let other = "iCloud.test.other"
            for (container, email, expiresAt) in [
                (Self.container, "gone@example.com", cutoff - 1), (other, "gone@example.com", cutoff + 1),
                (Self.container, "kept@example.com", cutoff + 1),
            ] {
                let code = SignInCode(
                    container: container,
                    email: email,
                    purpose: .signUp,
                    codeHash: "c",
                    expiresAt: expiresAt,
                    name: "A",
                    passwordHash: "p"
                )
                try await f.store.saveSignInCode(code)
            }
            for (address, expiresAt) in [("gone@example.com", cutoff - 1), ("kept@example.com", cutoff + 1)] {
                let verification = ContactVerification(
                    container: Self.container,
                    userRecordName: StoreFixture.alice,
                    address: .emailAddress(address),
                    codeHash: "v",
                    expiresAt: expiresAt
                )
                try await f.store.saveVerification(verification)
            }
            #expect(try await f.store.pruneExpiredCredentials(expiredBefore: cutoff) == 4)
            #expect(try await f.store.webAuthToken(hash: "t0") == nil)
            #expect(try await f.store.webAuthToken(hash: "t1") == nil)
            #expect(try await f.store.webAuthToken(hash: "t2") != nil)
            #expect(try await f.store.webAuthToken(hash: "t3") != nil)
            #expect(try await f.store.signInCode(email: "gone@example.com", inContainer: Self.container) == nil)
            #expect(try await f.store.signInCode(email: "gone@example.com", inContainer: other) != nil)
            #expect(try await f.store.signInCode(email: "kept@example.com", inContainer: Self.container) != nil)
            let gone = try await f.store.verification(of: .emailAddress("gone@example.com"), by: StoreFixture.alice, inContainer: Self.container)
            #expect(gone == nil)
            let kept = try await f.store.verification(of: .emailAddress("kept@example.com"), by: StoreFixture.alice, inContainer: Self.container)
            #expect(kept != nil)
            #expect(try await f.store.pruneExpiredCredentials(expiredBefore: cutoff) == 0)
        }
    }

    @Test("web auth tokens are kept by hash; a replacement's first use retires the token it replaces", arguments: StoreFactory.all)
    func webAuthTokens(factory: StoreFactory) async throws {
        try await factory.with { f in
            let now = f.clock.milliseconds
            let day: Int64 = 86_400_000
            let old = WebAuthTokenRecord(
                hash: "old",
                container: Self.container,
                userRecordName: StoreFixture.alice,
                issuedAt: now,
                expiresAt: now + day,
                lifetime: day
            )
            try await f.store.addWebAuthToken(old)
            #expect(try await f.store.webAuthToken(hash: "old") == old)
            #expect(try await f.store.webAuthToken(hash: "unknown") == nil)
            try await f.store.setWebAuthTokenExpiry(hash: "old", expiresAt: now + 2 * day)
            #expect(try await f.store.webAuthToken(hash: "old")?.expiresAt == now + 2 * day)

            var replacement = old
            replacement.hash = "new"
            replacement.replaces = "old"
            try await f.store.addWebAuthToken(replacement)
            try await f.store.retireReplacedWebAuthToken(replacement: "new", retiredAt: now + 60_000)
            #expect(try await f.store.webAuthToken(hash: "old")?.expiresAt == now + 60_000)
            #expect(try await f.store.webAuthToken(hash: "new")?.replaces == nil)
            #expect(try await f.store.webAuthToken(hash: "new")?.expiresAt == now + day)

            // A token that ends sooner than the retirement keeps its end.
            var short = old
            short.hash = "short"
            short.expiresAt = now + 1_000
            var replacesShort = old
            replacesShort.hash = "replaces-short"
            replacesShort.replaces = "short"
            try await f.store.addWebAuthToken(short)
            try await f.store.addWebAuthToken(replacesShort)
            try await f.store.retireReplacedWebAuthToken(replacement: "replaces-short", retiredAt: now + 60_000)
            #expect(try await f.store.webAuthToken(hash: "short")?.expiresAt == now + 1_000)
        }
    }

    @Test("a server key is registered once and found by its ID", arguments: StoreFactory.all)
    func serverKeys(factory: StoreFactory) async throws {
        try await factory.with { f in
            let key = ServerKeyRecord(keyID: "key-1", container: Self.container, publicKeyPEM: "-----PEM-----", userRecordName: StoreFixture.alice)
            try await f.store.addServerKey(key)
            #expect(try await f.store.serverKey(id: "key-1") == key)
            #expect(try await f.store.serverKey(id: "key-2") == nil)
            var other = key
            other.userRecordName = StoreFixture.bob
            #expect(await storeErrorKind { try await f.store.addServerKey(other) } == .alreadyExists)
            #expect(try await f.store.serverKey(id: "key-1") == key)
        }
    }

    @Test("container settings are all unset until saved, then read back as saved", arguments: StoreFactory.all)
    func containerSettings(factory: StoreFactory) async throws {
        try await factory.with { f in
            #expect(try await f.store.containerSettings(Self.container) == ContainerSettings(container: Self.container))
            let settings = ContainerSettings(
                container: Self.container,
                appURLScheme: "tact",
                fallbackURL: "https://example.com/join/",
                userQuotaBytes: 1_000_000
            )
            try await f.store.saveContainerSettings(settings)
            #expect(try await f.store.containerSettings(Self.container) == settings)
            #expect(try await f.store.containerSettings("iCloud.other") == ContainerSettings(container: "iCloud.other"))
            let cleared = ContainerSettings(container: Self.container, appURLScheme: "tact")
            try await f.store.saveContainerSettings(cleared)
            #expect(try await f.store.containerSettings(Self.container) == cleared)
        }
    }

    @Test("a verification is kept per user and address, replaced, and removed", arguments: StoreFactory.all)
    func verifications(factory: StoreFactory) async throws {
        try await factory.with { f in
            let address = LookupInfo.emailAddress("work@example.com")
            let pending = ContactVerification(
                container: Self.container,
                userRecordName: StoreFixture.alice,
                address: address,
                codeHash: "code-1",
                expiresAt: f.clock.milliseconds + 600_000
            )
            try await f.store.saveVerification(pending)
            #expect(try await f.store.verification(of: address, by: StoreFixture.alice, inContainer: Self.container) == pending)
            #expect(try await f.store.verification(of: address, by: StoreFixture.bob, inContainer: Self.container) == nil)
            var retried = pending
            retried.codeHash = "code-2"
            retried.failedAttempts = 2
            try await f.store.saveVerification(retried)
            #expect(try await f.store.verification(of: address, by: StoreFixture.alice, inContainer: Self.container) == retried)
            try await f.store.deleteVerification(of: address, by: StoreFixture.alice, inContainer: Self.container)
            #expect(try await f.store.verification(of: address, by: StoreFixture.alice, inContainer: Self.container) == nil)
        }
    }

    @Test("a linked address finds its user, ends the verification, and belongs to one user only", arguments: StoreFactory.all)
    func linkAddress(factory: StoreFactory) async throws {
        try await factory.with { f in
            let alice = UserIdentity(userRecordName: StoreFixture.alice, name: "Alice", emailAddress: "alice@example.com")
            let bob = UserIdentity(userRecordName: StoreFixture.bob, name: "Bob")
            try await f.store.addUser(alice, toContainer: Self.container)
            try await f.store.addUser(bob, toContainer: Self.container)
            let work = LookupInfo.emailAddress("work@example.com")
            try await f.store.saveVerification(
                ContactVerification(
                    container: Self.container,
                    userRecordName: StoreFixture.bob,
                    address: work,
                    codeHash: "c",
                    expiresAt: f.clock.milliseconds + 1
                )
            )
            try await f.store.linkAddress(work, to: StoreFixture.bob, inContainer: Self.container)
            #expect(try await f.store.verification(of: work, by: StoreFixture.bob, inContainer: Self.container) == nil)
            #expect(try await f.store.addresses(of: StoreFixture.bob, inContainer: Self.container) == [work])
            #expect(try await f.store.user(matching: .emailAddress("Work@Example.com"), inContainer: Self.container) == bob)
            #expect(try await f.store.addresses(of: StoreFixture.alice, inContainer: Self.container) == [.emailAddress("alice@example.com")])

            let phone = LookupInfo.phoneNumber("+15550001111")
            try await f.store.linkAddress(phone, to: StoreFixture.bob, inContainer: Self.container)
            #expect(Set(try await f.store.addresses(of: StoreFixture.bob, inContainer: Self.container)) == [work, phone])
            // Taken addresses: linked to another user, or another user's own.
            for taken in [work, .emailAddress("alice@example.com")] {
                let kind = await storeErrorKind { try await f.store.linkAddress(taken, to: StoreFixture.carol, inContainer: Self.container) }
                #expect(kind == .alreadyExists, "\(taken)")
            }
            #expect(
                await storeErrorKind { try await f.store.linkAddress(work, to: StoreFixture.alice, inContainer: Self.container) } == .alreadyExists
            )
        }
    }
}
