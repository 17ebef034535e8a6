//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusEngine
import NimbusModel
import NimbusStore
import Testing

@Suite("sign-in: ID tokens from an OpenID Connect provider over /auth/1")
struct IDTokenExchangeTests {
    static let audience = "com.example.tact"

    /// Runs `body` with a live issuer configured as provider `acme` (and as `apple`, of kind apple).
    static func with(_ body: @escaping @Sendable (HTTPFixture, any TestClientProtocol, TestOpenIDIssuer) async throws -> Void) async throws {
        try await TestOpenIDIssuer.with { issuer in
            try await HTTPFixture.with { f, client in
                try await f.configureSignIn {
                    $0.providers = [
                        SignInProvider(name: "acme", kind: .generic, issuer: issuer.url, clientIDs: [audience]),
                        SignInProvider(name: "apple", kind: .apple, issuer: issuer.url, clientIDs: [audience]),
                    ]
                }
                try await body(f, client, issuer)
            }
        }
    }

    static func now(_ f: HTTPFixture) -> Date {
        Date(timeIntervalSince1970: Double(f.clock.millisecondsSince1970) / 1000)
    }

    @Test("a token from the provider signs in; the same subject again is the same user")
    func exchange() async throws {
        try await Self.with { f, client, issuer in
            let token = try await issuer.sign(
                issuer.claims(subject: "user-1", audience: Self.audience, nonce: "nonce-1", now: Self.now(f), name: "Uma Provider")
            )
            let first = try await f.auth(client, "token", ["provider": "acme", "idToken": token, "nonce": "nonce-1"])
            #expect(first.status == .ok)
            let body = try first.json
            #expect(body["isNewUser"] as? Bool == true)
            let webToken = try #require(body["ckWebAuthToken"] as? String)
            #expect(try await f.currentUser(client, token: webToken)?.name == "Uma Provider")
            let again = try await issuer.sign(issuer.claims(subject: "user-1", audience: Self.audience, nonce: "nonce-2", now: Self.now(f)))
            let second = try await f.auth(client, "token", ["provider": "acme", "idToken": again, "nonce": "nonce-2"]).json
            #expect(second["isNewUser"] as? Bool == false)
            #expect(second["userRecordName"] as? String == body["userRecordName"] as? String)
            // The keys were fetched once, over the network, and then cached.
            #expect(issuer.keySetFetches == 1)
        }
    }

    @Test("forged, expired, wrong-audience, wrong-issuer tokens and replayed or wrong nonces are 401s that create nothing")
    func rejectedTokens() async throws {
        try await Self.with { f, client, issuer in
            let users = try await f.userCount()
            let now = Self.now(f)
            var expired = issuer.claims(subject: "s", audience: Self.audience, nonce: "n-expired", now: now)
            expired.exp = .init(value: now.addingTimeInterval(-600))
            var wrongIssuer = issuer.claims(subject: "s", audience: Self.audience, nonce: "n-issuer", now: now)
            wrongIssuer.iss = "https://evil.example.com"
            let cases: [(String, String, String)] = [
                (
                    "forged", try await issuer.sign(issuer.claims(subject: "s", audience: Self.audience, nonce: "n-forged", now: now), forged: true),
                    "n-forged"
                ),
                ("expired", try await issuer.sign(expired), "n-expired"),
                ("audience", try await issuer.sign(issuer.claims(subject: "s", audience: "com.other.app", nonce: "n-aud", now: now)), "n-aud"),
                ("issuer", try await issuer.sign(wrongIssuer), "n-issuer"),
                ("nonce", try await issuer.sign(issuer.claims(subject: "s", audience: Self.audience, nonce: "n-token", now: now)), "n-other"),
                ("no nonce", try await issuer.sign(issuer.claims(subject: "s", audience: Self.audience, nonce: nil, now: now)), "n-none"),
                ("garbage", "not.a.token", "n-garbage"),
            ]
            for (name, token, nonce) in cases {
                let response = try await f.auth(client, "token", ["provider": "acme", "idToken": token, "nonce": nonce])
                let reason = try response.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
                #expect(reason.hasPrefix("idToken rejected"), "\(name): \(reason)")
            }
            // A nonce works once: the same token replayed is refused.
            let token = try await issuer.sign(issuer.claims(subject: "s", audience: Self.audience, nonce: "n-once", now: now))
            #expect(try await f.auth(client, "token", ["provider": "acme", "idToken": token, "nonce": "n-once"]).status == .ok)
            try await f.auth(client, "token", ["provider": "acme", "idToken": token, "nonce": "n-once"]).expectError(
                "AUTHENTICATION_FAILED",
                status: .unauthorized
            )
            #expect(try await f.userCount() == users + 1)
        }
    }

    @Test("a rotated key is fetched when a token names it; a retired key no longer verifies")
    func keyRotation() async throws {
        try await Self.with { f, client, issuer in
            let first = try await issuer.sign(issuer.claims(subject: "v", audience: Self.audience, nonce: "r-1", now: Self.now(f)))
            #expect(try await f.auth(client, "token", ["provider": "acme", "idToken": first, "nonce": "r-1"]).status == .ok)
            #expect(issuer.keySetFetches == 1)
            try issuer.rotate(retiringOld: true)
            // Past the refresh interval, the unknown key makes the verifier fetch the set again.
            f.clock.advance(by: .seconds(31))
            let second = try await issuer.sign(issuer.claims(subject: "v", audience: Self.audience, nonce: "r-2", now: Self.now(f)))
            #expect(try await f.auth(client, "token", ["provider": "acme", "idToken": second, "nonce": "r-2"]).status == .ok)
            #expect(issuer.keySetFetches == 2)
        }
    }

    @Test("Sign in with Apple's native flow: the token carries the nonce's SHA-256")
    func appleHashedNonce() async throws {
        try await Self.with { f, client, issuer in
            let raw = "raw-nonce-from-the-app"
            let hashed = SHA256.hash(data: Data(raw.utf8)).map { String(format: "%02x", $0) }.joined()
            let token = try await issuer.sign(issuer.claims(subject: "apple-1", audience: Self.audience, nonce: hashed, now: Self.now(f)))
            #expect(try await f.auth(client, "token", ["provider": "apple", "idToken": token, "nonce": raw]).status == .ok)
            // A generic provider takes the nonce as sent only.
            let other = try await issuer.sign(issuer.claims(subject: "acme-1", audience: Self.audience, nonce: hashed, now: Self.now(f)))
            try await f.auth(client, "token", ["provider": "acme", "idToken": other, "nonce": "another-raw"]).expectError(
                "AUTHENTICATION_FAILED",
                status: .unauthorized
            )
        }
    }

    @Test("an email is never a link between accounts: unverified is dropped, and one another user has is not taken")
    func neverLinkedByEmail() async throws {
        try await Self.with { f, client, issuer in
            // Alice has alice@example.com. A token claiming it, unverified or verified, is a new user.
            for (index, verified) in [false, true].enumerated() {
                let token = try await issuer.sign(
                    issuer.claims(
                        subject: "mallory-\(index)",
                        audience: Self.audience,
                        nonce: "e-\(index)",
                        now: Self.now(f),
                        email: "alice@example.com",
                        emailVerified: verified
                    )
                )
                let body = try await f.auth(client, "token", ["provider": "acme", "idToken": token, "nonce": "e-\(index)"]).json
                #expect(body["userRecordName"] as? String != f.alice.user.userRecordName)
                let user = try #require(body["userRecordName"] as? String)
                let account = try await f.instance.accounts.user(user, container: HTTPFixture.container)
                #expect(account.emailAddress == nil)
            }
            // A verified address nobody has is the new user's.
            let token = try await issuer.sign(
                issuer.claims(
                    subject: "wes",
                    audience: Self.audience,
                    nonce: "e-new",
                    now: Self.now(f),
                    email: "Wes@Example.com",
                    emailVerified: true
                )
            )
            let body = try await f.auth(client, "token", ["provider": "acme", "idToken": token, "nonce": "e-new"]).json
            let account = try await f.instance.accounts.user(try #require(body["userRecordName"] as? String), container: HTTPFixture.container)
            #expect(account.emailAddress == "wes@example.com")
        }
    }

    @Test("a signed-in user links a provider account; it then signs in to them, and cannot be linked twice")
    func linkProvider() async throws {
        try await Self.with { f, client, issuer in
            let anonymous = try await f.auth(client, "signup", ["name": "Xena"]).json
            let webToken = try #require(anonymous["ckWebAuthToken"] as? String)
            let token = try await issuer.sign(issuer.claims(subject: "xena", audience: Self.audience, nonce: "l-1", now: Self.now(f)))
            #expect(try await f.auth(client, "link", ["provider": "acme", "idToken": token, "nonce": "l-1"], token: webToken).status == .ok)
            let again = try await issuer.sign(issuer.claims(subject: "xena", audience: Self.audience, nonce: "l-2", now: Self.now(f)))
            let signedIn = try await f.auth(client, "token", ["provider": "acme", "idToken": again, "nonce": "l-2"]).json
            #expect(signedIn["userRecordName"] as? String == anonymous["userRecordName"] as? String)
            let third = try await issuer.sign(issuer.claims(subject: "xena", audience: Self.audience, nonce: "l-3", now: Self.now(f)))
            try await f.auth(client, "link", ["provider": "acme", "idToken": third, "nonce": "l-3"], token: f.bob.webAuthToken)
                .expectError("EXISTS", status: .conflict)
        }
    }

    @Test("providers must be https (http only on loopback); callback URLs https in production")
    func settingsValidation() async throws {
        try await HTTPFixture.with { f, _ in
            let development = ContainerEnvironment(container: HTTPFixture.container, environment: .development)
            for issuer in ["http://accounts.example.com", "ftp://127.0.0.1", "http://127.0.0.1.evil.com", "http://user@127.0.0.1"] {
                var settings = SignInSettings()
                settings.providers = [SignInProvider(name: "x", kind: .generic, issuer: issuer, clientIDs: ["a"])]
                await #expect(throws: NimbusError.self, "\(issuer)") { try await f.instance.signIn.saveSettings(settings, for: development) }
            }
            var loopback = SignInSettings()
            loopback.providers = [SignInProvider(name: "x", kind: .generic, issuer: "http://127.0.0.1:9/", clientIDs: ["a"])]
            loopback.callbackURLs = ["http://localhost:3000/signed-in", "https://app.example.com/cb"]
            try await f.instance.signIn.saveSettings(loopback, for: development)
            var noClient = SignInSettings()
            noClient.providers = [SignInProvider(name: "x", kind: .generic, issuer: "https://id.example.com", clientIDs: [])]
            await #expect(throws: NimbusError.self) { try await f.instance.signIn.saveSettings(noClient, for: development) }
        }
    }
}
