//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import HummingbirdTesting
import NimbusHTTP
import NimbusModel
import Testing

/// What existing CloudKit clients send that Nimbus once misread: placeholders for the caller,
/// empty field dictionaries, bodies that are not JSON, methods no endpoint takes.
@Suite("what clients send: placeholders, empty fields, stray bodies and methods")
struct ClientQuirkTests {
    @Test("__defaultOwner__ in a share's participant list means the caller, as the owner's own entry")
    func defaultOwnerParticipant() async throws {
        try await HTTPFixture.with { f, client in
            _ = try await client.send(
                .post,
                f.path("zones/modify", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Chats"}}}]}"#
            )
            let body = """
                {"zoneID":{"zoneName":"Chats"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare",\
                "recordType":"cloudkit.share","participants":[{"type":"OWNER","permission":"READ_WRITE","acceptanceStatus":"ACCEPTED",\
                "userIdentity":{"lookupInfo":{"userRecordName":"__defaultOwner__"}}},{"permission":"READ_ONLY",\
                "userIdentity":{"lookupInfo":{"userRecordName":"\(f.bob.user.userRecordName)"}}}]}}]}
                """
            let response = try await client.send(.post, f.path("records/modify", user: f.alice.webAuthToken), json: body)
            #expect(response.status == .ok)
            let share = try #require((try response.json["records"] as? [[String: Any]])?.first)
            #expect(share["serverErrorCode"] == nil, "\(share)")
            let participants = try #require(share["participants"] as? [[String: Any]])
            let names = participants.compactMap { ($0["userIdentity"] as? [String: Any])?["userRecordName"] as? String }
            #expect(names == [f.alice.user.userRecordName, f.bob.user.userRecordName])
            #expect(participants.map { $0["type"] as? String } == ["OWNER", "USER"])
        }
    }

    @Test("a field sent as {} is removed, as {\"value\": null} is; other keys without a value are still refused")
    func emptyFieldRemoves() async throws {
        try await HTTPFixture.with { f, client in
            let path = f.path("records/modify", user: f.alice.webAuthToken)
            let created = try await client.send(
                .post,
                path,
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":"#
                    + #"{"a":{"value":"x"},"b":{"value":"y"},"c":{"value":"z"}}}}]}"#
            )
            let tag = try #require((try created.json["records"] as? [[String: Any]])?.first?["recordChangeTag"] as? String)
            let updated = try await client.send(
                .post,
                path,
                json: #"{"operations":[{"operationType":"update","record":{"recordName":"n1","recordChangeTag":"\#(tag)","#
                    + #""fields":{"a":{},"b":{"type":"STRING"}}}}]}"#
            )
            let record = try #require((try updated.json["records"] as? [[String: Any]])?.first)
            #expect(record["serverErrorCode"] == nil, "\(record)")
            #expect((record["fields"] as? [String: Any])?.keys.sorted() == ["c"])
            let misspelt = try await client.send(
                .post,
                path,
                json: #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"n1","fields":{"c":{"Value":"w"}}}}]}"#
            )
            try misspelt.expectError("BAD_REQUEST", status: .badRequest)
            #expect(await f.recordExists("n1", zone: "_defaultZone", user: f.alice))
        }
    }

    @Test("a body that is not JSON is a BAD_REQUEST on every endpoint", arguments: DatabaseRoute.Operation.allCases)
    func nonJSONBodies(operation: DatabaseRoute.Operation) async throws {
        try await HTTPFixture.with { f, client in
            for body in ["not json", "{\"unterminated\": ", "\u{1}"] {
                let response = try await client.send(.post, f.path(operation.rawValue, user: f.alice.webAuthToken), json: body)
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            // Whitespace is no body: endpoints that need none still answer.
            if operation.ignoresBody {
                #expect(try await client.send(.post, f.path(operation.rawValue, user: f.alice.webAuthToken), json: " \n").status == .ok)
            }
        }
    }

    @Test("a method no endpoint takes is a 405 with an Allow header, in CloudKit's error shape")
    func unsupportedMethods() async throws {
        try await HTTPFixture.with { f, client in
            let paths = [f.path("records/modify", user: f.alice.webAuthToken), f.path("zones/list", user: f.alice.webAuthToken)]
            for method in [HTTPRequest.Method.put, .delete, .patch] {
                for path in paths {
                    let response = try await client.send(method, path, json: "{}")
                    try response.expectError("BAD_REQUEST", status: .methodNotAllowed)
                    #expect(response.headers[.allow] == "GET, POST")
                }
                let inbox = try await client.send(method, "/database/1/\(HTTPFixture.container)/development/notifications/inbox")
                #expect(inbox.status == .methodNotAllowed)
                let health = try await client.send(method, "/health")
                #expect(health.status == .methodNotAllowed)
                #expect(health.headers[.allow] == "GET, HEAD")
            }
            #expect(try await client.send(.get, "/health").status == .ok)
        }
    }

    @Test("names that differ only in normalization stay two: a batch lookup answers each slot with its own record")
    func canonicallyEquivalentNames() async throws {
        try await HTTPFixture.with { f, client in
            let path = f.path("records/modify", user: f.alice.webAuthToken)
            let saved = try await client.send(
                .post,
                path,
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"Caf\u00e9","recordType":"Note","#
                    + #""fields":{"n":{"value":1}}}},"#
                    + #"{"operationType":"create","record":{"recordName":"Cafe\u0301","recordType":"Note","fields":{"n":{"value":2}}}}]}"#
            )
            #expect((try saved.json["records"] as? [[String: Any]])?.allSatisfy { $0["serverErrorCode"] == nil } == true)
            let found = try await client.send(
                .post,
                f.path("records/lookup", user: f.alice.webAuthToken),
                json: #"{"records":[{"recordName":"Cafe\u0301"},{"recordName":"Caf\u00e9"}]}"#
            )
            let records = try #require(try found.json["records"] as? [[String: Any]])
            let values = records.map { (($0["fields"] as? [String: Any])?["n"] as? [String: Any])?["value"] as? Int }
            #expect(values == [2, 1])
            // Fields "Key" and "\u212Aey" (Kelvin sign): the second is no field name, and the save
            // is refused whole rather than keeping one of the two.
            let fields = try await client.send(
                .post,
                path,
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"k","recordType":"Note","#
                    + #""fields":{"Key":{"value":"a"},"\u212Aey":{"value":"b"}}}}]}"#
            )
            #expect((try fields.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect(await f.recordExists("k", zone: "_defaultZone", user: f.alice) == false)
        }
    }
}
