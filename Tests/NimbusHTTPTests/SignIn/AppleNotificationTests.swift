//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import JWTKit
import NimbusModel
import NimbusStore
import NimbusTesting
import Testing

@Suite("sign-in: Sign in with Apple's server-to-server notifications")
struct AppleNotificationTests {
    struct Notification: JWTPayload {
        var iss: String
        var aud: String
        var iat: IssuedAtClaim
        var jti: String
        var events: String

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    static func notification(_ issuer: TestOpenIDIssuer, type: String, subject: String, at now: Date, id: String = UUID().uuidString) -> Notification
    {
        Notification(
            iss: issuer.url,
            aud: IDTokenExchangeTests.audience,
            iat: IssuedAtClaim(value: now),
            jti: id,
            events: #"{"type":"\#(type)","sub":"\#(subject)","event_time":\#(Int(now.timeIntervalSince1970 * 1000))}"#
        )
    }

    static func post(_ client: any TestClientProtocol, provider: String, payload: String) async throws -> TestResponse {
        try await client.send(
            .post,
            "/auth/1/\(HTTPFixture.container)/development/notifications/\(provider)",
            json: #"{"payload":"\#(payload)"}"#
        )
    }

    /// Signs in through the `apple` provider as `subject`; returns the web auth token and user.
    static func signIn(_ f: HTTPFixture, _ client: any TestClientProtocol, _ issuer: TestOpenIDIssuer, subject: String) async throws -> (
        String, String
    ) {
        let nonce = UUID().uuidString
        let token = try await issuer.sign(
            issuer.claims(subject: subject, audience: IDTokenExchangeTests.audience, nonce: nonce, now: IDTokenExchangeTests.now(f))
        )
        let body = try await f.auth(client, "token", ["provider": "apple", "idToken": token, "nonce": nonce]).json
        return (try #require(body["ckWebAuthToken"] as? String), try #require(body["userRecordName"] as? String))
    }

    @Test("a withdrawn consent ends the person's sessions; the same notification twice is refused")
    func consentRevoked() async throws {
        try await IDTokenExchangeTests.with { f, client, issuer in
            let (token, user) = try await Self.signIn(f, client, issuer, subject: "apple-1")
            let payload = try await issuer.sign(
                Self.notification(issuer, type: "consent-revoked", subject: "apple-1", at: IDTokenExchangeTests.now(f), id: "n-1")
            )
            let handled = try await Self.post(client, provider: "apple", payload: payload)
            #expect(handled.status == .ok)
            #expect(try handled.json["status"] as? String == "HANDLED")
            #expect(try await f.currentUser(client, token: token) == nil)
            try await Self.post(client, provider: "apple", payload: payload).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            // Consent given again: the same account.
            #expect(try await Self.signIn(f, client, issuer, subject: "apple-1").1 == user)
        }
    }

    @Test("a deleted Apple account ends the sessions and no longer signs in to the person's account")
    func accountDeleted() async throws {
        try await IDTokenExchangeTests.with { f, client, issuer in
            let (token, user) = try await Self.signIn(f, client, issuer, subject: "apple-2")
            let payload = try await issuer.sign(
                Self.notification(issuer, type: "account-delete", subject: "apple-2", at: IDTokenExchangeTests.now(f))
            )
            #expect(try await Self.post(client, provider: "apple", payload: payload).status == .ok)
            #expect(try await f.currentUser(client, token: token) == nil)
            #expect(try await Self.signIn(f, client, issuer, subject: "apple-2").1 != user)
        }
    }

    @Test("forged, stale, foreign and other-event notifications change nothing")
    func refusals() async throws {
        try await IDTokenExchangeTests.with { f, client, issuer in
            let (token, _) = try await Self.signIn(f, client, issuer, subject: "apple-3")
            let now = IDTokenExchangeTests.now(f)
            let forged = try await issuer.sign(Self.notification(issuer, type: "consent-revoked", subject: "apple-3", at: now), forged: true)
            try await Self.post(client, provider: "apple", payload: forged).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            let stale = try await issuer.sign(
                Self.notification(issuer, type: "consent-revoked", subject: "apple-3", at: now.addingTimeInterval(-2 * 86_400))
            )
            try await Self.post(client, provider: "apple", payload: stale).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            let valid = try await issuer.sign(Self.notification(issuer, type: "consent-revoked", subject: "apple-3", at: now))
            // The generic provider is not Sign in with Apple; an unknown one is no provider.
            try await Self.post(client, provider: "acme", payload: valid).expectError("BAD_REQUEST", status: .badRequest)
            try await Self.post(client, provider: "nobody", payload: valid).expectError("BAD_REQUEST", status: .badRequest)
            try await client.send(.post, "/auth/1/\(HTTPFixture.container)/development/notifications/apple", json: "{}")
                .expectError("BAD_REQUEST", status: .badRequest)
            let other = try await issuer.sign(Self.notification(issuer, type: "email-disabled", subject: "apple-3", at: now))
            #expect(try await Self.post(client, provider: "apple", payload: other).json["status"] as? String == "IGNORED")
            #expect(try await f.currentUser(client, token: token) != nil)
        }
    }
}
