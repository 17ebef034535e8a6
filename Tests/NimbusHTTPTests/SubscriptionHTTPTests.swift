//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// `subscriptions/list|lookup|modify` over the wire (CKWS §7), and their bad input.
@Suite("subscriptions over HTTP")
struct SubscriptionHTTPTests {
    static let querySubscription = """
        {"operations": [{"operationType": "create", "subscription": {
          "subscriptionType": "query", "subscriptionID": "artwork", "firesOn": ["create", "update"],
          "query": {"recordType": "Artwork", "filterBy": [{"fieldName": "artist", "comparator": "EQUALS",
            "fieldValue": {"value": {"recordName": "Mei Chen", "action": "NONE"}}}]},
          "notificationInfo": {"alertBody": "Artwork added", "shouldBadge": true, "titleLocalizationKey": "ART"}}}]}
        """

    @Test("create, list, lookup (with and without the database segment), update and delete")
    func lifecycle() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.alice.webAuthToken
            var response = try await client.send(.post, f.path("subscriptions/modify", user: token), json: Self.querySubscription)
            #expect(response.status == .ok)
            var saved = try #require((try response.json["subscriptions"] as? [[String: Any]])?.first)
            #expect(saved["subscriptionID"] as? String == "artwork")
            #expect(saved["subscriptionType"] as? String == "query")
            #expect(saved["firesOn"] as? [String] == ["create", "update"])
            #expect((saved["notificationInfo"] as? [String: Any])?["titleLocalizationKey"] as? String == "ART", "extras are echoed")
            #expect((saved["zoneID"] as? [String: Any])?["zoneName"] as? String == "_defaultZone")

            // A zone subscription with a server-assigned ID.
            response = try await client.send(
                .post,
                f.path("subscriptions/modify", user: token),
                json:
                    #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "zone", "zoneID": {"zoneName": "_defaultZone"}}}]}"#
            )
            saved = try #require((try response.json["subscriptions"] as? [[String: Any]])?.first)
            let assigned = try #require(saved["subscriptionID"] as? String)
            #expect(!assigned.isEmpty)

            response = try await client.send(.get, f.path("subscriptions/list", user: token))
            let listed = try #require(try response.json["subscriptions"] as? [[String: Any]])
            #expect(Set(listed.compactMap { $0["subscriptionID"] as? String }) == ["artwork", assigned])

            // Apple documents lookup without the database segment.
            let lookupPath =
                "/database/1/\(HTTPFixture.container)/development/subscriptions/lookup?ckAPIToken=\(f.apiToken)&ckWebAuthToken="
                + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            response = try await client.send(
                .post,
                lookupPath,
                json: #"{"subscriptions": [{"subscriptionID": "artwork"}, {"subscriptionID": "nope"}]}"#
            )
            let looked = try #require(try response.json["subscriptions"] as? [[String: Any]])
            #expect(looked.first?["subscriptionID"] as? String == "artwork")
            #expect(looked.last?["serverErrorCode"] as? String == "NOT_FOUND")
            #expect(looked.last?["subscriptionID"] as? String == "nope")

            response = try await client.send(
                .post,
                f.path("subscriptions/modify", user: token),
                json:
                    #"{"operations": [{"operationType": "update", "subscription": {"subscriptionID": "artwork", "subscriptionType": "database"}}, {"operationType": "delete", "subscription": {"subscriptionID": "\#(assigned)"}}]}"#
            )
            let modified = try #require(try response.json["subscriptions"] as? [[String: Any]])
            #expect(modified.first?["subscriptionType"] as? String == "database")
            #expect(modified.last?["deleted"] as? Bool == true)

            // Bob's subscriptions are his own.
            response = try await client.send(.get, f.path("subscriptions/list", user: f.bob.webAuthToken))
            #expect((try response.json["subscriptions"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("bad input: a 400 or a per-item error with a reason, and nothing saved")
    func badInput() async throws {
        try await HTTPFixture.with { f, client in
            let path = f.path("subscriptions/modify", user: f.alice.webAuthToken)
            let requestErrors = [
                "{not json",
                #"{"operations": "all"}"#,
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "hourly"}}]}"#,
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "query"}}]}"#,
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "zone"}}]}"#,
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "query", "firesOn": ["sometimes"], "query": {"recordType": "A"}}}]}"#,
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "database", "notificationInfo": {"shouldBadge": "yes"}}}]}"#,
                #"{"operations": [{"operationType": "rename", "subscription": {"subscriptionID": "x"}}]}"#,
            ]
            for body in requestErrors {
                let response = try await client.send(.post, path, json: body)
                let reason = try response.expectError("BAD_REQUEST", status: .badRequest)
                #expect(!reason.isEmpty, "\(body)")
            }
            let itemErrors: [(String, String)] = [
                (#"{"subscriptionType": "zone", "zoneID": {"zoneName": "Missing"}}"#, "ZONE_NOT_FOUND"),
                (
                    #"{"subscriptionType": "query", "query": {"recordType": "Place", "filterBy": [{"fieldName": "at", "comparator": "NEAR", "fieldValue": {"value": {"latitude": 1, "longitude": 2}}}]}}"#,
                    "BAD_REQUEST"
                ),
            ]
            for (subscription, code) in itemErrors {
                let response = try await client.send(
                    .post,
                    path,
                    json: #"{"operations": [{"operationType": "create", "subscription": \#(subscription)}]}"#
                )
                #expect(response.status == .ok)
                let item = try #require((try response.json["subscriptions"] as? [[String: Any]])?.first)
                #expect(item["serverErrorCode"] as? String == code, "\(subscription): \(item)")
            }
            // Zone and database subscriptions belong to private and shared databases.
            let publicPath = f.path("subscriptions/modify", scope: "public", user: f.alice.webAuthToken)
            let response = try await client.send(
                .post,
                publicPath,
                json: #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "database"}}]}"#
            )
            #expect((try response.json["subscriptions"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "BAD_REQUEST")
            // Without a signed-in user there is no one to notify.
            let anonymous = try await client.send(.get, f.path("subscriptions/list"))
            try anonymous.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)

            for scope in ["private", "public"] {
                let listed = try await client.send(.get, f.path("subscriptions/list", scope: scope, user: f.alice.webAuthToken))
                #expect((try listed.json["subscriptions"] as? [Any])?.isEmpty == true, "something was saved in \(scope)")
            }
        }
    }

    @Test("rules travel with the subscription; notifications/explain answers for the caller's own records only")
    func rulesAndExplain() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.alice.webAuthToken
            let subscription = #"""
                {"operations": [{"operationType": "create", "subscription": {"subscriptionID": "notes", "subscriptionType": "zone",
                  "zoneID": {"zoneName": "_defaultZone"},
                  "rules": [{"name": "mine", "when": {"recipientIsWriter": true}, "then": "none"},
                            {"name": "drafts", "recordTypes": ["Note"], "when": {"field": {"fieldName": "draft", "comparator": "EQUALS", "fieldValue": {"value": 1}}}, "then": "silent"}]}}]}
                """#
            var response = try await client.send(.post, f.path("subscriptions/modify", user: token), json: subscription)
            let saved = try #require((try response.json["subscriptions"] as? [[String: Any]])?.first)
            #expect((saved["rules"] as? [[String: Any]])?.map { $0["name"] as? String } == ["mine", "drafts"])

            response = try await client.send(
                .post,
                f.path("records/modify", user: token),
                json:
                    #"{"operations": [{"operationType": "create", "record": {"recordName": "n1", "recordType": "Note", "fields": {"draft": {"value": 1}}}}]}"#
            )
            #expect(response.status == .ok)
            let explain = f.path("notifications/explain", user: token)
            response = try await client.send(.post, explain, json: #"{"subscriptionID": "notes", "recordName": "n1"}"#)
            var body = try response.json
            #expect(body["decision"] as? String == "none")
            #expect(body["rule"] as? String == "mine")
            #expect(body["fires"] as? Bool == true)
            response = try await client.send(
                .post,
                explain,
                json: #"{"subscriptionID": "notes", "recordName": "n1", "writer": "someone-else", "reason": "update"}"#
            )
            body = try response.json
            #expect(body["decision"] as? String == "silent")
            #expect(body["rule"] as? String == "drafts")
            #expect((body["steps"] as? [String])?.isEmpty == false)

            // Bob may not ask about Alice's records, nor about a subscription he does not hold.
            response = try await client.send(
                .post,
                f.path("notifications/explain", user: f.bob.webAuthToken),
                json: #"{"subscriptionID": "notes", "recordName": "n1"}"#
            )
            try response.expectError("NOT_FOUND", status: .notFound)
            response = try await client.send(.post, explain, json: #"{"subscriptionID": "notes", "recordName": "n1", "reason": "sometimes"}"#)
            try response.expectError("BAD_REQUEST", status: .badRequest)
        }
    }
}
