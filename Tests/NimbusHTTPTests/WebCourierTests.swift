//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NimbusModel
import NimbusStore
import Testing

/// CKWS push tokens and the web courier long poll (§7.4, §7.5).
@Suite("push tokens and the web courier")
struct WebCourierTests {
    @Test("tokens/create on every documented path; the courier answers the next notification, or empty after its timeout")
    func longPoll() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.alice.webAuthToken
            let query = "ckAPIToken=\(f.apiToken)&ckWebAuthToken=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            var courierPaths: [String] = []
            for base in [
                "/database/1/\(HTTPFixture.container)/development/tokens/create",
                "/device/1/\(HTTPFixture.container)/development/tokens/create",
                "/database/1/\(HTTPFixture.container)/development/private/tokens/create",
            ] {
                let response = try await client.send(.post, base + "?" + query, json: #"{"apnsEnvironment": "development"}"#)
                let body = try response.json
                #expect(body["apnsEnvironment"] as? String == "development")
                let url = try #require(body["webcourierURL"] as? String)
                #expect(url.hasPrefix("http://nimbus.test/webcourier/"))
                #expect((body["apnsToken"] as? String).map { url.hasSuffix($0) } == true)
                courierPaths.append(String(url.dropFirst("http://nimbus.test".count)))
            }
            _ = try await client.send(
                .post,
                f.path("subscriptions/modify", user: token),
                json:
                    #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "notes", "subscriptionType": "zone", "zoneID": {"zoneName": "_defaultZone"}}}]}"#
            )
            // Nothing yet: an empty 200 once the timeout passes.
            let empty = try await f.pollPastTimeout(courierPaths[0], timeout: 7, client: client)
            #expect(empty.status == .ok)
            #expect(empty.body.readableBytes == 0)

            // A poll waiting when the change happens gets it. The test client has one connection,
            // so the write goes to the engine directly.
            let firstCourier = courierPaths[0]
            let deadline = f.clock.now.advanced(by: .seconds(15))
            async let waiting = client.send(.get, firstCourier + "?timeout=15")
            await f.clock.waitForSleeper(until: deadline)
            let results = try await f.instance.database.modifyRecords(
                [RecordOperation(kind: .create, recordName: "n1", recordType: "Note")],
                inZone: nil,
                atomic: false,
                access: f.access(f.alice)
            )
            #expect(results.count == 1)
            let delivered = try await waiting
            let message = try delivered.json
            #expect(message["sequence"] as? Int == 1)
            #expect(((message["ck"] as? [String: Any])?["fet"] as? [String: Any])?["sid"] as? String == "notes")

            // Each token has its own position: the second token still gets sequence 1; the first
            // has nothing more.
            #expect(try await client.send(.get, courierPaths[1] + "?timeout=5").json["sequence"] as? Int == 1)
            #expect(try await f.pollPastTimeout(courierPaths[0], timeout: 7, client: client).body.readableBytes == 0)
        }
    }

    @Test("bad tokens and requests: NOT_FOUND, BAD_REQUEST, AUTHENTICATION_REQUIRED; tokens/register stores a device")
    func refusals() async throws {
        try await HTTPFixture.with { f, client in
            let unknown = try await client.send(.get, "/webcourier/0123456789abcdef?timeout=1")
            try unknown.expectError("NOT_FOUND", status: .notFound)
            let tokenPath = "/database/1/\(HTTPFixture.container)/development/tokens"
            let anonymous = try await client.send(.post, "\(tokenPath)/create?ckAPIToken=\(f.apiToken)", json: "{}")
            try anonymous.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
            let query =
                "ckAPIToken=\(f.apiToken)&ckWebAuthToken=" + f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let badEnvironment = try await client.send(.post, "\(tokenPath)/create?\(query)", json: #"{"apnsEnvironment": "staging"}"#)
            try badEnvironment.expectError("BAD_REQUEST", status: .badRequest)
            let missing = try await client.send(.post, "\(tokenPath)/register?\(query)", json: #"{"apnsEnvironment": "production"}"#)
            try missing.expectError("BAD_REQUEST", status: .badRequest)
            let registered = try await client.send(
                .post,
                "\(tokenPath)/register?\(query)",
                json: #"{"apnsEnvironment": "production", "apnsToken": "a1b2c3d4e5f6"}"#
            )
            let body = try registered.json
            #expect(body["apnsToken"] as? String == "a1b2c3d4e5f6")
            #expect(body["apnsEnvironment"] as? String == "production")
            let badTimeout = try await client.send(.get, "/webcourier/abc?timeout=600")
            try badTimeout.expectError("BAD_REQUEST", status: .badRequest)
        }
    }
    @Test("a courier token nobody polls for the inbox retention is removed; a user keeps their 100 latest device tokens")
    func tokenLifetimes() async throws {
        try await HTTPFixture.with { f, client in
            let query =
                "ckAPIToken=\(f.apiToken)&ckWebAuthToken=" + f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let tokenPath = "/database/1/\(HTTPFixture.container)/development/tokens"
            func courier() async throws -> String {
                let created = try await client.send(.post, "\(tokenPath)/create?\(query)", json: "{}")
                let url = try #require(try created.json["webcourierURL"] as? String)
                return String(url.dropFirst("http://nimbus.test".count))
            }
            for index in 0...PushToken.maximumPerUser {
                f.clock.advance(by: .seconds(1))
                let device = String(format: "%064x", index)
                let registered = try await client.send(
                    .post,
                    "\(tokenPath)/register?\(query)",
                    json: #"{"apnsEnvironment": "production", "apnsToken": "\#(device)"}"#
                )
                #expect(registered.status == .ok)
            }
            #expect(try await f.database.inspect("SELECT count(*) FROM push_tokens WHERE kind = 'apns'") == "\(PushToken.maximumPerUser)")
            let oldest = String(format: "%064x", 0)
            #expect(try await f.database.inspect("SELECT count(*) FROM push_tokens WHERE apns_token = '\(oldest)'") == "0")

            // The courier tokens: the web auth token runs out in the days below, the URLs do not.
            let idle = try await courier()
            let polled = try await courier()
            f.clock.advance(by: .seconds(4 * 24 * 3600))
            #expect(try await f.pollPastTimeout(polled, timeout: 7, client: client).status == .ok)
            // Eight days after both were made, four after one was last polled.
            f.clock.advance(by: .seconds(4 * 24 * 3600))
            _ = try await f.instance.pruneInboxes()
            try await client.send(.get, "\(idle)?timeout=1").expectError("NOT_FOUND", status: .notFound)
            #expect(try await f.pollPastTimeout(polled, timeout: 7, client: client).status == .ok)
        }
    }
}
