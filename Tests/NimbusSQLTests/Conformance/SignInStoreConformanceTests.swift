//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore
import Testing

@Suite("sign-in store conformance")
struct SignInStoreConformanceTests {
    private static let container = StoreFixture.container

    private static func identity(_ provider: String, _ subject: String, user: String, secret: String? = nil, at time: Int64 = 0) -> SignInIdentity {
        SignInIdentity(container: container, provider: provider, subject: subject, userRecordName: user, secretHash: secret, createdAt: time)
    }

    @Test("a user is created with their identity in one step; a taken identity or email creates nothing", arguments: StoreFactory.all)
    func createUser(factory: StoreFactory) async throws {
        try await factory.with { f in
            let alice = UserIdentity(userRecordName: StoreFixture.alice, name: "Alice", emailAddress: "Alice@Example.com")
            try await f.store.createUser(
                alice,
                isAnonymous: false,
                signingInWith: Self.identity("email", "alice@example.com", user: StoreFixture.alice, secret: "h1")
            )
            let account = try #require(try await f.store.account(of: StoreFixture.alice, inContainer: Self.container))
            #expect(account.identity.emailAddress == "alice@example.com")
            #expect(!account.isAnonymous && !account.isDisabled)
            #expect(try await f.store.identity(provider: "email", subject: "alice@example.com", inContainer: Self.container)?.secretHash == "h1")
            #expect(try await f.store.identity(provider: "email", subject: "alice@example.com", inContainer: "iCloud.other") == nil)

            // Bob with Alice's identity: nothing of Bob is kept.
            let bob = UserIdentity(userRecordName: StoreFixture.bob, name: "Bob")
            let taken = await storeErrorKind {
                try await f.store.createUser(
                    bob,
                    isAnonymous: false,
                    signingInWith: Self.identity("email", "alice@example.com", user: StoreFixture.bob)
                )
            }
            #expect(taken == .alreadyExists)
            #expect(try await f.store.account(of: StoreFixture.bob, inContainer: Self.container) == nil)
            // Bob with Alice's email address, by another identity: refused too.
            let emailTaken = await storeErrorKind {
                try await f.store.createUser(
                    UserIdentity(userRecordName: StoreFixture.bob, name: "Bob", emailAddress: "alice@example.com"),
                    isAnonymous: false,
                    signingInWith: Self.identity("https://id.example.com", "bob", user: StoreFixture.bob)
                )
            }
            #expect(emailTaken == .alreadyExists)
            #expect(try await f.store.identity(provider: "https://id.example.com", subject: "bob", inContainer: Self.container) == nil)
        }
    }

    @Test("identities link to a user; an anonymous account that gains one is anonymous no more", arguments: StoreFactory.all)
    func identities(factory: StoreFactory) async throws {
        try await factory.with { f in
            let user = UserIdentity(userRecordName: StoreFixture.alice, name: "A")
            try await f.store.createUser(
                user,
                isAnonymous: true,
                signingInWith: Self.identity("anonymous", "device-1", user: StoreFixture.alice, secret: "s")
            )
            #expect(try await f.store.account(of: StoreFixture.alice, inContainer: Self.container)?.isAnonymous == true)
            try await f.store.addIdentity(Self.identity("https://id.example.com", "sub-1", user: StoreFixture.alice, at: 1))
            #expect(try await f.store.account(of: StoreFixture.alice, inContainer: Self.container)?.isAnonymous == false)
            #expect(
                try await f.store.identities(of: StoreFixture.alice, inContainer: Self.container).map(\.provider) == [
                    "anonymous", "https://id.example.com",
                ]
            )
            #expect(
                await storeErrorKind { try await f.store.addIdentity(Self.identity("https://id.example.com", "sub-1", user: StoreFixture.bob)) }
                    == .alreadyExists
            )
            #expect(try await f.store.setSecretHash("s2", provider: "anonymous", subject: "device-1", inContainer: Self.container))
            #expect(try await f.store.identity(provider: "anonymous", subject: "device-1", inContainer: Self.container)?.secretHash == "s2")
            #expect(try await !f.store.setSecretHash("s3", provider: "anonymous", subject: "device-2", inContainer: Self.container))
        }
    }

    @Test("settings are nil until saved; codes replace each other per address; nonces are claimed once", arguments: StoreFactory.all)
    func settingsCodesNonces(factory: StoreFactory) async throws {
        try await factory.with { f in
            #expect(try await f.store.signInSettings(for: StoreFixture.development) == nil)
            var settings = SignInSettings(anonymousEnabled: false, minimumPasswordLength: 12, callbackURLs: ["https://app.example.com/cb"])
            settings.providers = [SignInProvider(name: "apple", kind: .apple, issuer: SignInProvider.appleIssuer, clientIDs: ["com.example.app"])]
            try await f.store.saveSignInSettings(settings, for: StoreFixture.development)
            #expect(try await f.store.signInSettings(for: StoreFixture.development) == settings)
            #expect(try await f.store.signInSettings(for: ContainerEnvironment(container: Self.container, environment: .production)) == nil)

            let code = SignInCode(
                container: Self.container,
                email: "a@example.com",
                purpose: .signUp,
                codeHash: "c1",
                expiresAt: 10,
                name: "A",
                passwordHash: "p"
            )
            try await f.store.saveSignInCode(code)
            #expect(try await f.store.signInCode(email: "a@example.com", inContainer: Self.container) == code)
            let reset = SignInCode(
                container: Self.container,
                email: "a@example.com",
                purpose: .resetPassword,
                codeHash: "c2",
                expiresAt: 20,
                failedAttempts: 2
            )
            try await f.store.saveSignInCode(reset)
            #expect(try await f.store.signInCode(email: "a@example.com", inContainer: Self.container) == reset)
            try await f.store.deleteSignInCode(email: "a@example.com", inContainer: Self.container)
            #expect(try await f.store.signInCode(email: "a@example.com", inContainer: Self.container) == nil)

            let now = f.clock.milliseconds
            #expect(try await f.store.claimNonce("n1", expiresAt: now + 1_000))
            #expect(try await !f.store.claimNonce("n1", expiresAt: now + 1_000))
            // Once past its time, a nonce is forgotten (its token has expired anyway).
            f.clock.advance(by: .seconds(2))
            #expect(try await f.store.claimNonce("n1", expiresAt: f.clock.milliseconds + 1_000))
        }
    }

    @Test("sessions group a sign-in's tokens; ending one or all removes their tokens; disabling ends them", arguments: StoreFactory.all)
    func sessions(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await f.store.createUser(
                UserIdentity(userRecordName: StoreFixture.alice, name: "A"),
                isAnonymous: false,
                signingInWith: Self.identity("email", "a@example.com", user: StoreFixture.alice)
            )
            let now = f.clock.milliseconds
            let day: Int64 = 86_400_000
            func token(_ hash: String, session: String, at issued: Int64, device: String? = nil) -> WebAuthTokenRecord {
                WebAuthTokenRecord(
                    hash: hash,
                    container: Self.container,
                    userRecordName: StoreFixture.alice,
                    issuedAt: issued,
                    expiresAt: issued + day,
                    lifetime: day,
                    sessionID: session,
                    device: device
                )
            }
            try await f.store.addWebAuthToken(token("laptop-1", session: "laptop-1", at: now, device: "Laptop"))
            try await f.store.addWebAuthToken(token("phone-1", session: "phone-1", at: now + 1, device: "Phone"))
            try await f.store.addWebAuthToken(token("laptop-2", session: "laptop-1", at: now + 2, device: "Laptop"))
            let listed = try await f.store.sessions(of: StoreFixture.alice, inContainer: Self.container)
            #expect(listed.map(\.hash) == ["laptop-2", "phone-1"])
            #expect(listed.map(\.device) == ["Laptop", "Phone"])
            #expect(try await f.store.endSessions(of: StoreFixture.alice, inContainer: Self.container, sessionID: "laptop-1") == 1)
            #expect(try await f.store.webAuthToken(hash: "laptop-1") == nil)
            #expect(try await f.store.webAuthToken(hash: "laptop-2") == nil)
            #expect(try await f.store.webAuthToken(hash: "phone-1") != nil)
            #expect(try await f.store.endSessions(of: StoreFixture.bob, inContainer: Self.container, sessionID: "phone-1") == 0)
            #expect(try await f.store.webAuthToken(hash: "phone-1") != nil)

            #expect(try await f.store.setDisabled(true, user: StoreFixture.alice, inContainer: Self.container))
            #expect(try await f.store.webAuthToken(hash: "phone-1") == nil)
            #expect(try await f.store.account(of: StoreFixture.alice, inContainer: Self.container)?.isDisabled == true)
            #expect(try await f.store.setDisabled(false, user: StoreFixture.alice, inContainer: Self.container))
            #expect(try await f.store.account(of: StoreFixture.alice, inContainer: Self.container)?.isDisabled == false)
            #expect(try await !f.store.setDisabled(true, user: StoreFixture.bob, inContainer: Self.container))
        }
    }

    @Test("users are listed oldest first, searched by name or email with wildcards taken literally", arguments: StoreFactory.all)
    func listing(factory: StoreFactory) async throws {
        try await factory.with { f in
            let people = [("Ann", "ann@example.com"), ("Bo_b", "bob@example.com"), ("Cy", "100%@example.com")]
            for (index, (name, email)) in people.enumerated() {
                let user = "_" + String(repeating: String(index), count: 32)
                try await f.store.createUser(
                    UserIdentity(userRecordName: user, name: name, emailAddress: email),
                    isAnonymous: false,
                    signingInWith: Self.identity("email", email, user: user)
                )
                f.clock.advance(by: .milliseconds(1))
            }
            #expect(try await f.store.accounts(inContainer: Self.container, search: nil, limit: 10).map(\.identity.name) == ["Ann", "Bo_b", "Cy"])
            #expect(try await f.store.accounts(inContainer: Self.container, search: nil, limit: 2).count == 2)
            #expect(try await f.store.accounts(inContainer: Self.container, search: "ANN", limit: 10).map(\.identity.name) == ["Ann"])
            #expect(try await f.store.accounts(inContainer: Self.container, search: "_", limit: 10).map(\.identity.name) == ["Bo_b"])
            #expect(try await f.store.accounts(inContainer: Self.container, search: "%", limit: 10).map(\.identity.name) == ["Cy"])
            #expect(try await f.store.rename(user: "_" + String(repeating: "0", count: 32), to: "Annie", inContainer: Self.container))
            #expect(try await f.store.accounts(inContainer: Self.container, search: "annie", limit: 10).count == 1)
        }
    }

    @Test("deleting a user removes them with their identities and tokens; a developer is not deleted", arguments: StoreFactory.all)
    func deleteUser(factory: StoreFactory) async throws {
        try await factory.with { f in
            try await f.store.createUser(
                UserIdentity(userRecordName: StoreFixture.alice, name: "A", emailAddress: "a@example.com"),
                isAnonymous: false,
                signingInWith: Self.identity("email", "a@example.com", user: StoreFixture.alice, secret: "h")
            )
            let now = f.clock.milliseconds
            try await f.store.addWebAuthToken(
                WebAuthTokenRecord(
                    hash: "t1",
                    container: Self.container,
                    userRecordName: StoreFixture.alice,
                    issuedAt: now,
                    expiresAt: now + 1000,
                    lifetime: 1000
                )
            )
            // Alice's default zone in each environment (made by its first write), and Bob's beside them.
            let zone = ZoneID.defaultZoneName
            for environment in Environment.allCases {
                let alice = f.tenant(environment: environment)
                try await f.save([f.record("mine", in: zone, of: alice)], in: zone, of: alice)
            }
            let bob = f.tenant(StoreFixture.bob)
            try await f.save([f.record("his", in: zone, of: bob)], in: zone, of: bob)
            #expect(try await f.store.deleteUser(StoreFixture.alice, inContainer: Self.container))
            for environment in Environment.allCases {
                #expect(try await f.store.records(named: ["mine"], inZone: zone, of: f.tenant(environment: environment)).isEmpty)
                // The default zone has no row until its first write: as new again.
                #expect(try await f.zone(zone, of: f.tenant(environment: environment)).changeCounter == 0)
            }
            #expect(try await f.store.records(named: ["his"], inZone: zone, of: bob).keys.sorted() == ["his"])
            #expect(try await f.store.account(of: StoreFixture.alice, inContainer: Self.container) == nil)
            #expect(try await f.store.identity(provider: "email", subject: "a@example.com", inContainer: Self.container) == nil)
            #expect(try await f.store.webAuthToken(hash: "t1") == nil)
            #expect(try await f.store.user(matching: .emailAddress("a@example.com"), inContainer: Self.container) == nil)
            #expect(try await !f.store.deleteUser(StoreFixture.alice, inContainer: Self.container))
            let developer = UserIdentity(userRecordName: StoreFixture.bob, name: "Developer")
            try await f.store.createContainer(StoreFixture.development, apiTokenHash: "h-dev", developer: developer)
            try await f.store.addWebAuthToken(
                WebAuthTokenRecord(
                    hash: "t2",
                    container: Self.container,
                    userRecordName: StoreFixture.bob,
                    issuedAt: now,
                    expiresAt: now + 1000,
                    lifetime: 1000
                )
            )
            #expect(try await !f.store.deleteUser(StoreFixture.bob, inContainer: Self.container))
            #expect(try await f.store.developer(ofContainer: Self.container) == StoreFixture.bob)
            #expect(try await f.store.webAuthToken(hash: "t2") != nil)
        }
    }
}
