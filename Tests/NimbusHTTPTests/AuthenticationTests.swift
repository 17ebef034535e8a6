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
import Testing

@Suite("authentication: API tokens, web auth tokens, server-to-server signatures")
struct AuthenticationTests {
    private static var iso8601: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }

    /// The three signature headers for a request.
    private func signed(_ key: OpenSSLKey, keyID: String, path: String, body: String, date: Date = Date()) throws -> HTTPFields {
        let dateText = Self.iso8601.string(from: date)
        let signature = try RequestSignature.sign(body: Array(body.utf8), path: path, date: dateText, privateKey: key.privateKey)
        return [
            HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!: keyID,
            HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!: dateText,
            HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!: signature,
        ]
    }

    @Test("a request that needs a user and has none gets 421 AUTHENTICATION_REQUIRED with a redirectURL")
    func authenticationRequired() async throws {
        try await HTTPFixture.with { f, client in
            let response = try await client.send(.get, f.path("users/current", scope: "public"))
            try response.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
            let redirect = try #require(try response.json["redirectURL"] as? String)
            #expect(redirect.hasPrefix("http://nimbus.test/"))
            let page = try await client.send(.get, String(redirect.dropFirst("http://nimbus.test".count)))
            #expect(page.status == .ok)
        }
    }

    @Test("an anonymous caller may read the public database")
    func anonymousPublicRead() async throws {
        try await HTTPFixture.with { f, client in
            let response = try await client.send(.get, f.path("zones/list", scope: "public"))
            #expect(response.status == .ok)
        }
    }

    @Test("a missing or foreign API token is AUTHENTICATION_FAILED")
    func badAPIToken() async throws {
        try await HTTPFixture.with { f, client in
            let none = try await client.send(.get, "/database/1/\(HTTPFixture.container)/development/public/zones/list")
            try none.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            let wrong = try await client.send(
                .get,
                "/database/1/\(HTTPFixture.container)/development/public/zones/list?ckAPIToken=\(String(repeating: "0", count: 64))"
            )
            try wrong.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            // The development token does not open production.
            let production = try await client.send(.get, "/database/1/\(HTTPFixture.container)/production/public/zones/list?ckAPIToken=\(f.apiToken)")
            try production.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
        }
    }

    @Test("users/current and users/caller describe the signed-in user; the token comes back in the header")
    func currentUser() async throws {
        try await HTTPFixture.with { f, client in
            let current = try await client.send(.get, f.path("users/current", scope: "public", user: f.alice.webAuthToken))
            #expect(current.status == .ok)
            #expect(try current.json["userRecordName"] as? String == f.alice.user.userRecordName)
            #expect(try current.json["firstName"] as? String == "Alice")
            #expect(current.headers[HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!] == f.alice.webAuthToken)
            let caller = try await client.send(.get, f.path("users/caller", scope: "private", user: f.alice.webAuthToken))
            let users = try #require(try caller.json["users"] as? [[String: Any]])
            #expect(users.first?["userRecordName"] as? String == f.alice.user.userRecordName)
        }
    }

    @Test("a web auth token with '+' turned into a space still works")
    func plusAsSpace() async throws {
        try await HTTPFixture.with { f, client in
            var token = f.alice.webAuthToken
            var attempts = 0
            // Tokens are random; mint until one holds a '+', so the test exercises the rule.
            while !token.contains("+"), attempts < 50 {
                token = try await f.instance.accounts.addUser(name: "P", email: nil, phone: nil, container: HTTPFixture.container).webAuthToken
                attempts += 1
            }
            try #require(token.contains("+"))
            let mangled = token.replacingOccurrences(of: "+", with: " ").addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let response = try await client.send(
                .get,
                "/database/1/\(HTTPFixture.container)/development/public/users/current?ckAPIToken=\(f.apiToken)&ckWebAuthToken=\(mangled)"
            )
            #expect(response.status == .ok)
        }
    }

    /// The header a rotated token comes back in.
    private static let tokenHeader = HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!

    /// `users/current`, signed in with `token`.
    private static func current(_ token: String, _ f: HTTPFixture, _ client: any TestClientProtocol) async throws -> TestResponse {
        try await client.send(.get, f.path("users/current", scope: "public", user: token))
    }

    @Test("an old token is rotated through the response header; the old one works until the replacement is used, then for a grace period")
    func tokenRotation() async throws {
        try await HTTPFixture.with { f, client in
            let header = Self.tokenHeader
            func current(_ token: String) async throws -> TestResponse { try await Self.current(token, f, client) }
            f.clock.advance(by: .seconds(8 * 24 * 60 * 60))
            let first = try await current(f.alice.webAuthToken)
            #expect(first.status == .ok)
            let replacement = try #require(first.headers[header])
            #expect(replacement != f.alice.webAuthToken)
            // Until the replacement is used, the old token works, without minting more
            // replacements and without a header that would make a client switch back to it.
            f.clock.advance(by: .seconds(3 * 24 * 60 * 60))
            let stillOld = try await current(f.alice.webAuthToken)
            #expect(stillOld.status == .ok)
            #expect(stillOld.headers[header] == nil)

            // The replacement's first use starts the old token's grace period.
            let withReplacement = try await current(replacement)
            #expect(withReplacement.status == .ok)
            #expect(withReplacement.headers[header] == replacement)
            #expect(try await current(f.alice.webAuthToken).status == .ok, "requests in flight still pass")
            f.clock.advance(by: .seconds(120))
            try await current(f.alice.webAuthToken).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            #expect(try await current(replacement).status == .ok)
        }
    }

    @Test("a token is pruned an hour after it ends, not before; the replacement that retired it keeps working")
    func expiredTokenPruned() async throws {
        try await HTTPFixture.with { f, client in
            let header = Self.tokenHeader
            func current(_ token: String) async throws -> TestResponse { try await Self.current(token, f, client) }
            f.clock.advance(by: .seconds(8 * 24 * 60 * 60))
            let replacement = try #require(try await current(f.alice.webAuthToken).headers[header])
            // Its first use ends the old token a grace period (a minute) from now.
            #expect(try await current(replacement).status == .ok)
            _ = try await f.instance.pruneExpiredCredentials()  // whatever the fixture's set-up left
            f.clock.advance(by: .seconds(60 + 59 * 60))
            #expect(try await f.instance.pruneExpiredCredentials() == 0, "ended 59 minutes ago: kept")
            f.clock.advance(by: .seconds(2 * 60))
            #expect(try await f.instance.pruneExpiredCredentials() == 1, "ended 61 minutes ago: pruned")
            try await current(f.alice.webAuthToken).expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            #expect(try await current(replacement).status == .ok)
        }
    }

    @Test("a client that never reads the rotation header keeps working for its token's whole life, and no longer")
    func rotationIgnored() async throws {
        try await HTTPFixture.with { f, client in
            func current() async throws -> TestResponse {
                try await client.send(.get, f.path("users/current", scope: "public", user: f.alice.webAuthToken))
            }
            // Days 7, 8 and 13.9 of a 14-day token: the replacement handed out is never used.
            let hour: Int64 = 3600
            for (day, hours) in [(7, 7 * 24 + 1), (8, 23), (13, 5 * 24 + 21)] {
                f.clock.advance(by: .seconds(Int64(hours)) * hour)
                #expect(try await current().status == .ok, "day \(day)")
            }
            f.clock.advance(by: .seconds(3 * hour))
            try await current().expectError("AUTHENTICATION_FAILED", status: .unauthorized)
        }
    }

    @Test("server-to-server: an administrator registers a key in the console, and revokes it; signed requests then fail at once")
    func revokedServerKey() async throws {
        try await HTTPFixture.with { f, client in
            let key = try await OpenSSLKey.make()
            let admin = try await ConsoleTests.session(f, email: "admin@example.com", role: .admin)
            let container = "/console/containers/\(HTTPFixture.container)/development"
            let csrf = try #require(ConsoleTests.csrf(in: try await client.browse(.get, container, cookie: admin)))
            let notAKey = try await client.browse(.post, container + "/server-keys", form: "csrf=\(csrf)&publicKey=hello", cookie: admin)
            #expect(notAKey.status == .badRequest)
            let pem = key.publicKeyPEM.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            #expect(
                try await client.browse(.post, container + "/server-keys", form: "csrf=\(csrf)&publicKey=\(pem)", cookie: admin).status == .seeOther
            )
            let keyID = try #require(try await f.instance.accounts.serverKeys(ofContainer: HTTPFixture.container).first?.key.keyID)
            let path = "/database/1/\(HTTPFixture.container)/development/public/zones/list"
            #expect(try await client.send(.post, path, json: "{}", headers: try signed(key, keyID: keyID, path: path, body: "{}")).status == .ok)
            let page = try await client.browse(.get, container, cookie: admin)
            #expect(String(buffer: page.body).contains(keyID))
            let revoke = "/console/containers/\(HTTPFixture.container)/development/server-keys/\(keyID)/revoke"
            #expect(try await client.browse(.post, revoke, form: "csrf=\(csrf)", cookie: admin).status == .seeOther)
            let refused = try await client.send(.post, path, json: "{}", headers: try signed(key, keyID: keyID, path: path, body: "{}"))
            #expect(refused.status == .unauthorized)
            #expect(try await f.instance.accounts.serverKeys(ofContainer: HTTPFixture.container).isEmpty)
            #expect(try await f.instance.operators.auditLog().contains { $0.action == "server-key.revoke" && $0.target == keyID })
            // Revoking it again: no such key.
            #expect(try await client.browse(.post, revoke, form: "csrf=\(csrf)", cookie: admin).status == .notFound)
        }
    }

    @Test("server-to-server: a request signed with an openssl key acts on the public database as the key's creator")
    func signedRequests() async throws {
        try await HTTPFixture.with { f, client in
            let key = try await OpenSSLKey.make()
            let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: key.publicKeyPEM, container: HTTPFixture.container)
            #expect(keyID.count == 64)
            let path = "/database/1/\(HTTPFixture.container)/development/public/records/modify"
            let body =
                #"{"operations":[{"operationType":"create","record":{"recordName":"s2s","recordType":"Note","fields":{"title":{"value":"signed"}}}}]}"#
            let response = try await client.send(.post, path, json: body, headers: try signed(key, keyID: keyID, path: path, body: body))
            #expect(response.status == .ok)
            let record = try #require((try response.json["records"] as? [[String: Any]])?.first)
            #expect(record["recordChangeTag"] != nil)

            // GET with no body, signed MistKit's way: an empty string as the body hash.
            let listPath = "/database/1/\(HTTPFixture.container)/development/public/zones/list"
            let date = Self.iso8601.string(from: Date())
            let signature = try key.privateKey.signature(for: Data("\(date)::\(listPath)".utf8)).derRepresentation.base64EncodedString()
            let list = try await client.send(
                .get,
                listPath,
                headers: [
                    HTTPField.Name("X-Apple-Cloudkit-Request-Keyid")!: keyID,
                    HTTPField.Name("X-Apple-Cloudkit-Request-Iso8601date")!: date,
                    HTTPField.Name("X-Apple-Cloudkit-Request-Signaturev1")!: signature,
                ]
            )
            #expect(list.status == .ok)
        }
    }

    @Test("bad signatures are AUTHENTICATION_FAILED and write nothing")
    func badSignatures() async throws {
        try await HTTPFixture.with { f, client in
            let key = try await OpenSSLKey.make()
            let other = try await OpenSSLKey.make()
            let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: key.publicKeyPEM, container: HTTPFixture.container)
            // A key belongs to one container: this one's key is nothing in the fixture's.
            _ = try await f.instance.accounts.createContainer("iCloud.com.example.other", environment: .development)
            let otherContainersKey = try await f.instance.accounts.addServerKey(
                publicKeyPEM: other.publicKeyPEM,
                container: "iCloud.com.example.other"
            )
            let path = "/database/1/\(HTTPFixture.container)/development/public/records/modify"
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"forged","recordType":"Note"}}]}"#
            let tampered = body.replacingOccurrences(of: "forged", with: "forgeD")
            let cases: [(String, HTTPFields)] = [
                (tampered, try signed(key, keyID: keyID, path: path, body: body)),
                (body, try signed(other, keyID: keyID, path: path, body: body)),
                (body, try signed(key, keyID: keyID, path: path, body: body, date: Date().addingTimeInterval(-3600))),
                (body, try signed(key, keyID: keyID, path: path, body: body, date: Date().addingTimeInterval(3600))),
                (body, try signed(key, keyID: String(repeating: "a", count: 64), path: path, body: body)),
                (body, try signed(key, keyID: keyID, path: path.replacingOccurrences(of: "public", with: "private"), body: body)),
                (body, try signed(other, keyID: otherContainersKey, path: path, body: body)),
            ]
            for (sentBody, headers) in cases {
                let response = try await client.send(.post, path, json: sentBody, headers: headers)
                try response.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            }
            let lookup = try await f.instance.database.lookupRecords(
                named: ["forged", "forgeD"],
                inZone: nil,
                access: f.access(f.alice, scope: .public)
            )
            #expect(lookup.allSatisfy { if case .failure = $0 { true } else { false } })
        }
    }

    @Test("the signature date window is the server's setting: two minutes off passes the default window, not one of a minute")
    func configurableDateWindow() async throws {
        for (window, accepted) in [(300, true), (60, false)] {
            try await HTTPFixture.with(signatureWindowSeconds: window) { f, client in
                let key = try await OpenSSLKey.make()
                let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: key.publicKeyPEM, container: HTTPFixture.container)
                let path = "/database/1/\(HTTPFixture.container)/development/public/zones/list"
                for offset in [-120.0, 120.0] {
                    let response = try await client.send(
                        .get,
                        path,
                        headers: try signed(
                            key,
                            keyID: keyID,
                            path: path,
                            body: "",
                            date: Date(timeIntervalSince1970: Double(f.clock.milliseconds) / 1000 + offset)
                        )
                    )
                    if accepted {
                        #expect(response.status == .ok, "window \(window) s, offset \(offset) s")
                    } else {
                        try response.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
                    }
                }
            }
        }
    }

    @Test("a server-to-server key cannot reach a private database")
    func signedPrivateIsDenied() async throws {
        try await HTTPFixture.with { f, client in
            let key = try await OpenSSLKey.make()
            let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: key.publicKeyPEM, container: HTTPFixture.container)
            let path = "/database/1/\(HTTPFixture.container)/development/private/zones/list"
            let response = try await client.send(.get, path, headers: try signed(key, keyID: keyID, path: path, body: ""))
            try response.expectError("ACCESS_DENIED", status: .forbidden)
        }
    }
}
