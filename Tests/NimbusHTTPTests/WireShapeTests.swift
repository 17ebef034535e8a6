//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusModel
import Testing

@Suite("response shapes, request IDs, health and metrics")
struct WireShapeTests {
    @Test("records carry every key clients need; desiredKeys and numbersAsStrings are honoured")
    func recordShape() async throws {
        try await HTTPFixture.with { f, client in
            let uri = f.path("records/modify", user: f.alice.webAuthToken)
            let response = try await client.send(
                .post,
                uri,
                json: """
                    {"desiredKeys":["count"],"numbersAsStrings":true,"operations":[{"operationType":"create","record":{
                    "recordType":"Note","fields":{"count":{"value":9007199254740993},"title":{"value":"t"},
                    "secret":{"value":"s","isEncrypted":true}}}}]}
                    """
            )
            #expect(response.status == .ok)
            let record = try #require((try response.json["records"] as? [[String: Any]])?.first)
            for key in ["recordName", "recordType", "recordChangeTag", "fields", "created", "modified", "zoneID"] {
                #expect(record[key] != nil, "missing \(key)")
            }
            let created = try #require(record["created"] as? [String: Any])
            #expect(created["deviceID"] != nil && created["timestamp"] is Int && created["userRecordName"] as? String == f.alice.user.userRecordName)
            let fields = try #require(record["fields"] as? [String: Any])
            #expect(Set(fields.keys) == ["count"])
            #expect((fields["count"] as? [String: Any])?["value"] as? String == "9007199254740993")
            #expect((fields["count"] as? [String: Any])?["type"] as? String == "INT64")

            let lookup = try await client.send(
                .post,
                f.path("records/lookup", user: f.alice.webAuthToken),
                json: """
                    {"records":[{"recordName":"\(record["recordName"] as! String)"},{"recordName":"missing"}]}
                    """
            )
            let records = try #require(try lookup.json["records"] as? [[String: Any]])
            let secret = try #require((records[0]["fields"] as? [String: Any])?["secret"] as? [String: Any])
            #expect(secret["isEncrypted"] as? Bool == true && secret["value"] as? String == "s")
            #expect(records[1]["serverErrorCode"] as? String == "NOT_FOUND")
            #expect(records[1]["recordName"] as? String == "missing")
            #expect(records[1]["reason"] as? String == "Record not found")
        }
    }

    @Test("deletes answer with tombstones that carry recordType")
    func tombstoneShape() async throws {
        try await HTTPFixture.with { f, client in
            let uri = f.path("records/modify", user: f.alice.webAuthToken)
            _ = try await client.send(
                .post,
                uri,
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#
            )
            let response = try await client.send(
                .post,
                uri,
                json: #"{"operations":[{"operationType":"delete","record":{"recordName":"n1","fields":null,"deleted":false}}]}"#
            )
            let tombstone = try #require((try response.json["records"] as? [[String: Any]])?.first)
            #expect(tombstone["deleted"] as? Bool == true)
            #expect(tombstone["recordType"] as? String == "Note")
        }
    }

    @Test("every response has an X-Apple-Request-UUID; /health answers; /metrics counts requests and errors")
    func observability() async throws {
        try await HTTPFixture.with { f, client in
            let ok = try await client.send(.get, f.path("zones/list", user: f.alice.webAuthToken))
            #expect(ok.headers[HTTPField.Name("X-Apple-Request-UUID")!]?.count == 36)
            let anonymous = try await client.send(.get, f.path("zones/list"))
            let ids = [ok, anonymous].compactMap { $0.headers[HTTPField.Name("X-Apple-Request-UUID")!] }
            #expect(Set(ids).count == 2)
            let health = try await client.send(.get, "/health")
            #expect(health.status == .ok)
            // An item's error inside an HTTP 200 is counted too: a zone that is not there.
            let lookup = try await client.send(
                .post,
                f.path("zones/lookup", user: f.alice.webAuthToken),
                json: #"{"zones":[{"zoneName":"_defaultZone"},{"zoneName":"Missing"}]}"#
            )
            #expect(lookup.status == .ok)
            let metrics = try await client.send(.get, "/metrics")
            let text = String(buffer: metrics.body)
            #expect(text.contains(#"nimbus_requests_total{operation="zones/list"} 2"#))
            #expect(text.contains(#"nimbus_errors_total{operation="zones/list",code="AUTHENTICATION_REQUIRED"} 1"#))
            #expect(text.contains("nimbus_request_duration_seconds_bucket"))
            #expect(text.contains(#"nimbus_item_errors_total{operation="zones/lookup",code="ZONE_NOT_FOUND"} 1"#), "\(text)")
            #expect(!text.contains(#"nimbus_errors_total{operation="zones/lookup""#), "an HTTP 200 counted as a failed request")
            // Every metric is described, and the gauges read at the scrape are there.
            let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { $0.split(separator: " ")[2] }
            let helps = Set(text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.map { $0.split(separator: " ")[2] })
            #expect(!types.isEmpty && types.allSatisfy { helps.contains($0) }, "a metric without # HELP: \(text)")
            #expect(text.contains(#"nimbus_build_info{version="\#(NimbusVersion.current)"} 1"#))
            #expect(text.contains("nimbus_notification_listeners 0"))
            #expect(text.contains("nimbus_notification_backlog "))
            let storage = try #require(text.firstMatch(of: /nimbus_storage_bytes ([0-9]+)/)).1
            #expect(Int(storage)! > 0)
        }
    }
}

@Suite("user lookup endpoints")
struct UserLookupHTTPTests {
    @Test("users/lookup/email, users/lookup/id and users/discover answer in CloudKit's shapes")
    func shapes() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.bob.webAuthToken
            let byEmail = try await client.send(
                .post,
                f.path("users/lookup/email", user: token),
                json: #"{"users":[{"emailAddress":"Alice@Example.com"},{"emailAddress":"nobody@example.com"}]}"#
            )
            #expect(byEmail.status == .ok)
            let users = try #require(try byEmail.json["users"] as? [[String: Any]])
            #expect(users.count == 1)
            #expect(users.first?["userRecordName"] as? String == f.alice.user.userRecordName)
            #expect(users.first?["firstName"] as? String == "Alice" && users.first?["lastName"] as? String == "Liddell")
            #expect(users.first?["emailAddress"] as? String == "Alice@Example.com")

            let byID = try await client.send(
                .post,
                f.path("users/lookup/id", scope: "public", user: token),
                json: #"{"users":[{"userRecordName":"\#(f.alice.user.userRecordName)"}]}"#
            )
            let idUsers = try #require(try byID.json["users"] as? [[String: Any]])
            #expect(idUsers.first?["userRecordName"] as? String == f.alice.user.userRecordName)
            #expect(idUsers.first?["emailAddress"] == nil, "a lookup by ID does not reveal the email address")

            let discover = try await client.send(
                .post,
                f.path("users/discover", user: token),
                json: #"{"lookupInfos":[{"emailAddress":"alice@example.com"},{"phoneNumber":"+15550000000"}]}"#
            )
            let identities = try #require(try discover.json["users"] as? [[String: Any]])
            #expect(identities.count == 2)
            #expect(identities[0]["userRecordName"] as? String == f.alice.user.userRecordName)
            #expect((identities[0]["nameComponents"] as? [String: Any])?["givenName"] as? String == "Alice")
            #expect((identities[0]["lookupInfo"] as? [String: Any])?["emailAddress"] as? String == "alice@example.com")
            #expect(identities[1]["userRecordName"] == nil)
            #expect((identities[1]["lookupInfo"] as? [String: Any])?["phoneNumber"] as? String == "+15550000000")

            let contacts = try await client.send(.post, f.path("users/lookup/contacts", user: token), json: "{}")
            #expect((try contacts.json["users"] as? [Any])?.isEmpty == true)
            let get = try await client.send(.get, f.path("users/discover", user: token))
            #expect((try get.json["users"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("lookups need a signed-in user and a well-formed body")
    func badInput() async throws {
        try await HTTPFixture.with { f, client in
            let anonymous = try await client.send(.post, f.path("users/lookup/email"), json: #"{"users":[{"emailAddress":"alice@example.com"}]}"#)
            _ = try anonymous.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
            for body in [#"{"users":[{"nickname":"x"}]}"#, #"{"users":{}}"#, #"{"users":[{"emailAddress":7}]}"#, "{"] {
                let response = try await client.send(.post, f.path("users/lookup/email", user: f.bob.webAuthToken), json: body)
                _ = try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            let unknown = try await client.send(.post, f.path("users/lookup/nothing", user: f.bob.webAuthToken), json: "{}")
            _ = try unknown.expectError("BAD_REQUEST", status: .badRequest)
        }
    }
}
