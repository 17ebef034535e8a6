//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusEngine
import Testing

/// A backend with a server-to-server key subscribes to the public database and hears of its
/// changes in the key's own inbox and web courier, as CloudKit clients do with a user.
@Suite("server-to-server keys: subscriptions and notifications", .timeLimit(.minutes(1)))
struct ServerKeyNotificationTests {
    private static var iso8601: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter
    }

    private func signed(_ key: OpenSSLKey, keyID: String, path: String, body: String) throws -> HTTPFields {
        let date = Self.iso8601.string(from: Date())
        return [
            HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!: keyID,
            HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!: date,
            HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!: try RequestSignature.sign(
                body: Array(body.utf8),
                path: path,
                date: date,
                privateKey: key.privateKey
            ),
        ]
    }

    @Test("a key's query and zone subscriptions in the public database fill the key's inbox and courier, not its creator's")
    func keySubscriptions() async throws {
        try await HTTPFixture.with { f, client in
            let key = try await OpenSSLKey.make()
            let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: key.publicKeyPEM, container: HTTPFixture.container)
            let base = "/database/1/\(HTTPFixture.container)/development"
            func post(_ path: String, _ body: String) async throws -> TestResponse {
                try await client.send(.post, base + path, json: body, headers: try signed(key, keyID: keyID, path: base + path, body: body))
            }
            let subscribed = try await post(
                "/public/subscriptions/modify",
                #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"query","#
                    + #""query":{"recordType":"Note"},"firesOn":["create","update"]}},{"operationType":"create","subscription":"#
                    + #"{"subscriptionID":"everything","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}}]}"#
            )
            #expect(subscribed.status == .ok)
            let saved = try #require(try subscribed.json["subscriptions"] as? [[String: Any]])
            #expect(saved.map { $0["serverErrorCode"] == nil } == [true, true], "\(saved)")
            let token = try await post("/public/tokens/create", "{}")
            let courier = try #require(try token.json["webcourierURL"] as? String).dropFirst("http://nimbus.test".count)
            // A key may not subscribe to a private database: it reads the public one only.
            let refused = try await post(
                "/private/subscriptions/modify",
                #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"p","subscriptionType":"database"}}]}"#
            )
            #expect(refused.status != .ok)

            // Alice saves a note in the public database; the courier answers once it is notified.
            let note = try await client.send(
                .post,
                f.path("records/modify", scope: "public", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{}}}]}"#
            )
            #expect(note.status == .ok)
            let pushed = try await client.send(.get, "\(courier)?timeout=10")
            #expect(pushed.status == .ok)
            #expect(String(buffer: pushed.body).contains("n1"), "\(String(buffer: pushed.body))")

            let inbox = try await post("/notifications/inbox", #"{"after":0}"#)
            #expect(inbox.status == .ok, "\(String(buffer: inbox.body))")
            let notifications = try #require(try inbox.json["notifications"] as? [[String: Any]])
            let ids = notifications.compactMap { notification -> String? in
                let ck = notification["ck"] as? [String: Any]
                return ((ck?["qry"] ?? ck?["fet"]) as? [String: Any])?["sid"] as? String
            }
            #expect(Set(ids) == ["notes", "everything"], "\(notifications)")
            // The key's creator is not the key: the developer's own inbox has none of it.
            let mine = try await client.send(
                .post,
                "\(base)/notifications/inbox?ckAPIToken=\(f.apiToken)&ckWebAuthToken="
                    + f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
                json: #"{"after":0}"#
            )
            #expect((try mine.json["notifications"] as? [[String: Any]])?.isEmpty == true)
            // A forged signature reads nothing.
            var forged = try signed(key, keyID: keyID, path: base + "/notifications/inbox", body: #"{"after":1}"#)
            forged[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!] = "AAAA"
            let stranger = try await client.send(.post, base + "/notifications/inbox", json: #"{"after":0}"#, headers: forged)
            try stranger.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
        }
    }
}
