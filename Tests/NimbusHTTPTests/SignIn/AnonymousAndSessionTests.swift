//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusEngine
import NimbusModel
import NimbusTesting
import Testing

@Suite("sign-in: anonymous accounts and sessions over /auth/1")
struct AnonymousAndSessionTests {
    @Test("a name alone makes an account; its credential signs in again after the token is gone")
    func anonymousAccount() async throws {
        try await HTTPFixture.with { f, client in
            let created = try await f.auth(client, "signup", ["name": "P"]).json
            let token = try #require(created["ckWebAuthToken"] as? String)
            let credential = try #require(created["anonymousCredential"] as? String)
            #expect(try await f.currentUser(client, token: token)?.name == "P")
            #expect(try await f.auth(client, "signout", [:], token: token).status == .ok)
            #expect(try await f.currentUser(client, token: token) == nil)
            let again = try await f.auth(client, "signin", ["anonymousCredential": credential]).json
            #expect(again["userRecordName"] as? String == created["userRecordName"] as? String)
            #expect(again["anonymousCredential"] == nil)
            var forged = credential
            forged.removeLast()
            forged += credential.hasSuffix("0") ? "1" : "0"
            try await f.auth(client, "signin", ["anonymousCredential": forged]).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            try await f.auth(client, "signin", ["anonymousCredential": "nonsense"]).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
        }
    }

    @Test("an anonymous account adds an email and password, and then signs in with them")
    func anonymousAccountAddsEmail() async throws {
        try await HTTPFixture.with { f, client in
            let created = try await f.auth(client, "signup", ["name": "Quinn"]).json
            let token = try #require(created["ckWebAuthToken"] as? String)
            let user = try #require(created["userRecordName"] as? String)
            #expect(try await f.instance.signIn.users(inContainer: HTTPFixture.container, search: "Quinn").first?.isAnonymous == true)
            #expect(
                try await f.auth(client, "link", ["email": "quinn@example.com", "password": "quinn's long password"], token: token).status == .ok
            )
            let code = try #require(TestMailbox.code(in: try await f.mail.next(to: "quinn@example.com")))
            // Only the account that asked may use the code.
            try await f.auth(client, "verify", ["email": "quinn@example.com", "code": code], token: f.bob.webAuthToken)
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            _ = try await f.auth(client, "link", ["email": "quinn@example.com", "password": "quinn's long password"], token: token)
            let fresh = try #require(TestMailbox.code(in: try await f.mail.next(to: "quinn@example.com")))
            #expect(try await f.auth(client, "verify", ["email": "quinn@example.com", "code": fresh], token: token).status == .ok)
            let signedIn = try await f.auth(client, "signin", ["email": "quinn@example.com", "password": "quinn's long password"]).json
            #expect(signedIn["userRecordName"] as? String == user)
            #expect(try await f.instance.signIn.users(inContainer: HTTPFixture.container, search: "Quinn").first?.isAnonymous == false)
        }
    }

    @Test("anonymous sign-up turned off is refused, and creates nothing")
    func anonymousTurnedOff() async throws {
        try await HTTPFixture.with { f, client in
            try await f.configureSignIn { $0.anonymousEnabled = false }
            let users = try await f.userCount()
            try await f.auth(client, "signup", ["name": "R"]).expectError("ACCESS_DENIED", status: .forbidden)
            #expect(try await f.userCount() == users)
        }
    }

    @Test("sessions list each device once, end one, or all; signing out ends only the caller's")
    func sessions() async throws {
        try await HTTPFixture.with { f, client in
            let first = try await f.signUp(client, email: "sam@example.com", password: "sam's long password", name: "Sam")
            let laptop = try #require(first["ckWebAuthToken"] as? String)
            let phoneAnswer = try await client.send(
                .post,
                f.authPath("signin"),
                json: #"{"email":"sam@example.com","password":"sam's long password"}"#,
                headers: [.userAgent: "Tact/1.0 (iPhone)"]
            )
            let phone = try #require(try phoneAnswer.json["ckWebAuthToken"] as? String)
            let tablet = try #require(
                try await f.auth(client, "signin", ["email": "sam@example.com", "password": "sam's long password"]).json["ckWebAuthToken"] as? String
            )
            let listed = try await client.send(.get, f.authPath("sessions", token: laptop))
            #expect(listed.status == .ok)
            let sessions = try #require(try listed.json["sessions"] as? [[String: Any]])
            #expect(sessions.count == 3)
            #expect(sessions.filter { $0["current"] as? Bool == true }.count == 1)
            #expect(sessions.contains { $0["device"] as? String == "Tact/1.0 (iPhone)" })
            // The laptop ends the phone's session.
            let phoneSession = try #require(sessions.first { $0["device"] as? String == "Tact/1.0 (iPhone)" }?["sessionID"] as? String)
            let ended = try await f.auth(client, "sessions", ["end": phoneSession], token: laptop).json
            #expect(ended["ended"] as? Int == 1)
            #expect(try await f.currentUser(client, token: phone) == nil)
            #expect(try await f.currentUser(client, token: laptop) != nil)
            // Another user's session ID ends nothing of theirs.
            let otherSession = try #require(sessions.first { $0["current"] as? Bool == true }?["sessionID"] as? String)
            #expect(try await f.auth(client, "sessions", ["end": otherSession], token: f.bob.webAuthToken).json["ended"] as? Int == 0)
            #expect(try await f.currentUser(client, token: laptop) != nil)
            // Signing out ends the caller's own session only.
            #expect(try await f.auth(client, "signout", [:], token: tablet).status == .ok)
            #expect(try await f.currentUser(client, token: tablet) == nil)
            #expect(try await f.currentUser(client, token: laptop) != nil)
            // Everywhere.
            #expect(try await f.auth(client, "sessions", ["all": true], token: laptop).json["ended"] as? Int == 1)
            #expect(try await f.currentUser(client, token: laptop) == nil)
            // Without a signed-in user, sessions need one.
            try await f.auth(client, "sessions", [:]).expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
        }
    }

    @Test("a session keeps its identity as its token rotates")
    func sessionSurvivesRotation() async throws {
        try await HTTPFixture.with { f, client in
            let first = try await f.signUp(client, email: "tess@example.com", password: "tess's long password", name: "Tess")
            let token = try #require(first["ckWebAuthToken"] as? String)
            // Past half the token's life, the next request rotates it.
            f.clock.advance(by: .seconds(8 * 24 * 3600))
            let response = try await client.send(.get, f.path("users/current", scope: "public", user: token))
            let rotated = try #require(response.headers[HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!])
            #expect(rotated != token)
            let listed = try await client.send(.get, f.authPath("sessions", token: rotated))
            let sessions = try #require(try listed.json["sessions"] as? [[String: Any]])
            #expect(sessions.count == 1)
            #expect(sessions.first?["current"] as? Bool == true)
        }
    }

    @Test("one address signing in many times is not throttled for succeeding; many failures from it are")
    func clientThrottleCountsFailures() async throws {
        try await HTTPFixture.with { f, client in
            let created = try await f.auth(client, "signup", ["name": "Office"]).json
            let credential = try #require(created["anonymousCredential"] as? String)
            for _ in 0..<110 {
                #expect(try await f.auth(client, "signin", ["anonymousCredential": credential]).status == .ok)
            }
            var wrong = credential
            wrong.removeLast()
            wrong += credential.hasSuffix("0") ? "1" : "0"
            // The limit is 100 per 15 minutes; the sign-up (it made an account) was the first.
            for _ in 0..<99 {
                try await f.auth(client, "signin", ["anonymousCredential": wrong]).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            }
            try await f.auth(client, "signin", ["anonymousCredential": credential]).expectError("THROTTLED", status: .tooManyRequests)
        }
    }
}
