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

@Suite("sign-in: email and password over /auth/1")
struct PasswordSignInTests {
    @Test("signing up mails a code; the code creates the account and signs it in; the password signs in again")
    func signUpVerifySignIn() async throws {
        try await HTTPFixture.with { f, client in
            let signedUp = try await f.signUp(client, email: "Carol@Example.com", password: "correct horse battery", name: "Carol")
            let token = try #require(signedUp["ckWebAuthToken"] as? String)
            #expect(signedUp["isNewUser"] as? Bool == true)
            #expect(try await f.currentUser(client, token: token)?.name == "Carol")
            // The address in another case is the same address.
            let signedIn = try await f.auth(client, "signin", ["email": "carol@example.com", "password": "correct horse battery"])
            #expect(signedIn.status == .ok)
            let body = try signedIn.json
            #expect(body["userRecordName"] as? String == signedUp["userRecordName"] as? String)
            #expect(body["isNewUser"] as? Bool == false)
            #expect(body["ckWebAuthToken"] as? String != token)
        }
    }

    @Test("a wrong password and an unknown address get the same answer, and neither signs in")
    func noEnumerationAtSignIn() async throws {
        try await HTTPFixture.with { f, client in
            _ = try await f.signUp(client, email: "dave@example.com", password: "correct horse battery", name: "Dave")
            let wrong = try await f.auth(client, "signin", ["email": "dave@example.com", "password": "wrong password here"])
            let unknown = try await f.auth(client, "signin", ["email": "nobody@example.com", "password": "wrong password here"])
            try wrong.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            try unknown.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            #expect(try wrong.comparableBody == unknown.comparableBody)
        }
    }

    @Test("sign-up, code and reset answer the same for an address with an account and one without")
    func noEnumerationAtSignUp() async throws {
        try await HTTPFixture.with { f, client in
            _ = try await f.signUp(client, email: "erin@example.com", password: "correct horse battery", name: "Erin")
            let users = try await f.userCount()
            for (action, extra) in [("signup", ["password": "another long password", "name": "Mallory"]), ("code", [:]), ("reset", [:])] {
                var known: [String: Any] = ["email": "erin@example.com"]
                var unknown: [String: Any] = ["email": "frank-\(action)@example.com"]
                for (key, value) in extra {
                    known[key] = value
                    unknown[key] = value
                }
                let knownAnswer = try await f.auth(client, action, known)
                let unknownAnswer = try await f.auth(client, action, unknown)
                #expect(knownAnswer.status == .ok, "\(action)")
                #expect(unknownAnswer.status == .ok, "\(action)")
                var knownBody = try knownAnswer.json
                var unknownBody = try unknownAnswer.json
                // The expiry is the request's time plus the code's life: equal up to the clock.
                #expect(knownBody.removeValue(forKey: "expiresAt") != nil)
                #expect(unknownBody.removeValue(forKey: "expiresAt") != nil)
                #expect(knownBody as NSDictionary == unknownBody as NSDictionary, "\(action)")
            }
            // A second sign-up of a known address tells its owner, and gives no code.
            let notice = try await f.mail.next(to: "erin@example.com")
            #expect(notice.subject == "You already have an account")
            #expect(TestMailbox.code(in: notice) == nil)
            #expect(try await f.userCount() == users)
        }
    }

    @Test("a code works once; five wrong codes end it")
    func codesWorkOnce() async throws {
        try await HTTPFixture.with { f, client in
            _ = try await f.auth(client, "signup", ["email": "gina@example.com", "password": "correct horse battery", "name": "Gina"])
            let code = try #require(TestMailbox.code(in: try await f.mail.next(to: "gina@example.com")))
            let wrongCode = code == "000000" ? "111111" : "000000"
            try await f.auth(client, "verify", ["email": "gina@example.com", "code": wrongCode]).expectError(
                "AUTHENTICATION_FAILED",
                status: .unauthorized
            )
            #expect(try await f.auth(client, "verify", ["email": "gina@example.com", "code": code]).status == .ok)
            try await f.auth(client, "verify", ["email": "gina@example.com", "code": code]).expectError(
                "AUTHENTICATION_FAILED",
                status: .unauthorized
            )

            _ = try await f.auth(client, "code", ["email": "henry@example.com"])
            let second = try #require(TestMailbox.code(in: try await f.mail.next(to: "henry@example.com")))
            let wrongSecond = second == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                try await f.auth(client, "verify", ["email": "henry@example.com", "code": wrongSecond]).expectError(
                    "AUTHENTICATION_FAILED",
                    status: .unauthorized
                )
            }
            try await f.auth(client, "verify", ["email": "henry@example.com", "code": second]).expectError(
                "AUTHENTICATION_FAILED",
                status: .unauthorized
            )
        }
    }

    @Test("a code by email signs in the address's account, or creates one")
    func emailCodeSignIn() async throws {
        try await HTTPFixture.with { f, client in
            let first = try await f.auth(client, "code", ["email": "ivy@example.com", "name": "Ivy"])
            #expect(first.status == .ok)
            let code = try #require(TestMailbox.code(in: try await f.mail.next(to: "ivy@example.com")))
            let created = try await f.auth(client, "verify", ["email": "ivy@example.com", "code": code]).json
            #expect(created["isNewUser"] as? Bool == true)
            _ = try await f.auth(client, "code", ["email": "ivy@example.com"])
            let again = try #require(TestMailbox.code(in: try await f.mail.next(to: "ivy@example.com")))
            let signedIn = try await f.auth(client, "verify", ["email": "ivy@example.com", "code": again]).json
            #expect(signedIn["isNewUser"] as? Bool == false)
            #expect(signedIn["userRecordName"] as? String == created["userRecordName"] as? String)
            #expect(try await f.currentUser(client, token: #require(signedIn["ckWebAuthToken"] as? String))?.name == "Ivy")
        }
    }

    @Test("a password reset sets the new password and ends every session")
    func passwordReset() async throws {
        try await HTTPFixture.with { f, client in
            let before = try await f.signUp(client, email: "jack@example.com", password: "old password that leaked", name: "Jack")
            let oldToken = try #require(before["ckWebAuthToken"] as? String)
            _ = try await f.auth(client, "reset", ["email": "jack@example.com"])
            let code = try #require(TestMailbox.code(in: try await f.mail.next(to: "jack@example.com")))
            // Too short a password is refused, and the code still works.
            try await f.auth(client, "verify", ["email": "jack@example.com", "code": code, "password": "short"]).expectError(
                "BAD_REQUEST",
                status: .badRequest
            )
            let reset = try await f.auth(client, "verify", ["email": "jack@example.com", "code": code, "password": "a new and long password"])
            #expect(reset.status == .ok)
            #expect(try await f.currentUser(client, token: oldToken) == nil)
            try await f.auth(client, "signin", ["email": "jack@example.com", "password": "old password that leaked"]).expectError(
                "AUTHENTICATION_FAILED",
                status: .unauthorized
            )
            #expect(try await f.auth(client, "signin", ["email": "jack@example.com", "password": "a new and long password"]).status == .ok)
        }
    }

    @Test("a signed-in user changes their password: the current one is required, other sessions end")
    func changePassword() async throws {
        try await HTTPFixture.with { f, client in
            let first = try await f.signUp(client, email: "kim@example.com", password: "first long password", name: "Kim")
            let firstToken = try #require(first["ckWebAuthToken"] as? String)
            let second = try await f.auth(client, "signin", ["email": "kim@example.com", "password": "first long password"]).json
            let secondToken = try #require(second["ckWebAuthToken"] as? String)
            try await f.auth(client, "password", ["currentPassword": "not the password", "password": "second long password"], token: secondToken)
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            let changed = try await f.auth(
                client,
                "password",
                ["currentPassword": "first long password", "password": "second long password"],
                token: secondToken
            )
            #expect(changed.status == .ok)
            #expect(try await f.currentUser(client, token: secondToken) != nil)
            #expect(try await f.currentUser(client, token: firstToken) == nil)
            #expect(try await f.auth(client, "signin", ["email": "kim@example.com", "password": "second long password"]).status == .ok)
        }
    }

    @Test("bad input gets a 400 in the CloudKit shape and creates nothing")
    func badInput() async throws {
        try await HTTPFixture.with { f, client in
            let users = try await f.userCount()
            let cases: [(String, [String: Any])] = [
                ("signup", ["email": "not-an-address", "password": "long enough password", "name": "X"]),
                ("signup", ["email": "lee@example.com", "password": "short", "name": "X"]),
                ("signup", ["email": "lee@example.com", "password": "long enough password", "name": "   "]),
                ("signup", ["email": "lee@example.com", "password": String(repeating: "p", count: 2000), "name": "X"]),
                ("signup", ["name": ""]),
                ("signup", ["name": String(repeating: "n", count: 101)]),
                ("signup", ["name": 7]),
                ("signin", ["email": "lee@example.com"]),
                ("verify", ["email": "lee@example.com"]),
                ("token", ["provider": "nowhere", "idToken": "a.b.c", "nonce": "n"]),
                ("token", ["idToken": "a.b.c"]),
            ]
            for (action, body) in cases {
                let response = try await f.auth(client, action, body)
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            try await client.send(.post, f.authPath("signup"), json: "{not json").expectError("BAD_REQUEST", status: .badRequest)
            try await client.send(.post, f.authPath("nonsense"), json: "{}").expectError("BAD_REQUEST", status: .badRequest)
            try await client.send(.post, "/auth/1/\(HTTPFixture.container)/staging/signup?ckAPIToken=\(f.apiToken)", json: #"{"name":"X"}"#)
                .expectError("BAD_REQUEST", status: .badRequest)
            try await client.send(.post, "/auth/1/\(HTTPFixture.container)/development/signup", json: #"{"name":"X"}"#)
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            try await client.send(.post, "/auth/1/\(HTTPFixture.container)/production/signup?ckAPIToken=\(f.apiToken)", json: #"{"name":"X"}"#)
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            #expect(try await f.userCount() == users)
            #expect(f.mail.sent.isEmpty)
        }
    }

    @Test("too many wrong passwords for one address are throttled with retryAfter, even with the right one")
    func throttling() async throws {
        try await HTTPFixture.with { f, client in
            _ = try await f.signUp(client, email: "max@example.com", password: "the right password", name: "Max")
            for _ in 0..<10 {
                try await f.auth(client, "signin", ["email": "max@example.com", "password": "a wrong password"]).expectError(
                    "AUTHENTICATION_FAILED",
                    status: .unauthorized
                )
            }
            let throttled = try await f.auth(client, "signin", ["email": "max@example.com", "password": "the right password"])
            try throttled.expectError("THROTTLED", status: .tooManyRequests)
            let retryAfter = try #require(try throttled.json["retryAfter"] as? Int)
            #expect(retryAfter > 0 && retryAfter <= 15 * 60)
            // The window passes: the right password works again.
            f.clock.advance(by: .seconds(15 * 60))
            #expect(try await f.auth(client, "signin", ["email": "max@example.com", "password": "the right password"]).status == .ok)
        }
    }

    @Test("a disabled user cannot sign in, and their sessions end; enabled again, they can")
    func disabledUser() async throws {
        try await HTTPFixture.with { f, client in
            let signedUp = try await f.signUp(client, email: "nina@example.com", password: "nina's long password", name: "Nina")
            let token = try #require(signedUp["ckWebAuthToken"] as? String)
            let user = try #require(signedUp["userRecordName"] as? String)
            try await f.instance.signIn.setDisabled(true, user: user, container: HTTPFixture.container)
            #expect(try await f.currentUser(client, token: token) == nil)
            try await f.auth(client, "signin", ["email": "nina@example.com", "password": "nina's long password"]).expectError(
                "ACCESS_DENIED",
                status: .forbidden
            )
            try await f.instance.signIn.setDisabled(false, user: user, container: HTTPFixture.container)
            #expect(try await f.auth(client, "signin", ["email": "nina@example.com", "password": "nina's long password"]).status == .ok)
        }
    }

    @Test("turned off for the container, passwords and codes are refused and nothing is created")
    func turnedOff() async throws {
        try await HTTPFixture.with { f, client in
            try await f.configureSignIn {
                $0.passwordEnabled = false
                $0.emailCodeEnabled = false
            }
            try await f.auth(client, "signup", ["email": "olga@example.com", "password": "long enough password", "name": "Olga"])
                .expectError("ACCESS_DENIED", status: .forbidden)
            try await f.auth(client, "code", ["email": "olga@example.com"]).expectError("ACCESS_DENIED", status: .forbidden)
            #expect(f.mail.sent.isEmpty)
        }
    }
}
