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

@Suite("bad input gets a CloudKit-shaped 4xx and writes nothing")
struct BadInputTests {
    private func makeZone(_ f: HTTPFixture, _ client: any TestClientProtocol) async throws {
        let response = try await client.send(
            .post,
            f.path("zones/modify", user: f.alice.webAuthToken),
            json: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        )
        #expect(response.status == .ok)
    }

    @Test("malformed JSON is a BAD_REQUEST")
    func malformedJSON() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            let bodies = [
                #"{"operations": [ {"operationType": "create", "record": {"recordName": "n1""#,
                #"{"operations": "create"}"#,
                #"{"operations": [{"operationType": "create", "record": {"recordName": "n1", "recordType": "Note", "fields": {"title": {"value": "x", "type": "NOPE"}}}}], "zoneID": {"zoneName": "Notes"}}"#,
                "",
                "[]",
            ]
            for body in bodies {
                let response = try await client.send(.post, f.path("records/modify", user: f.alice.webAuthToken), json: body)
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            #expect(await f.recordExists("n1", zone: "Notes", user: f.alice) == false)
        }
    }

    @Test("a save past the owner's storage quota is QUOTA_EXCEEDED (413) and writes nothing")
    func quotaExceeded() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            _ = try await f.instance.accounts.configureContainer(
                HTTPFixture.container,
                appURLScheme: nil,
                fallbackURL: nil,
                userQuotaBytes: .some(100)
            )
            let response = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json:
                    #"{"zoneID": {"zoneName": "Notes"}, "operations": [{"operationType": "create", "record": {"recordName": "n1", "recordType": "Note", "#
                    + #""fields": {"text": {"value": "\#(String(repeating: "x", count: 200))"}}}}]}"#
            )
            try response.expectError("QUOTA_EXCEEDED", status: .contentTooLarge)
            #expect(await f.recordExists("n1", zone: "Notes", user: f.alice) == false)
        }
    }

    @Test("records/count answers the number of matches, and bad queries as records/query does")
    func recordsCount() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            let saved = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json:
                    #"{"zoneID": {"zoneName": "Notes"}, "operations": [{"operationType": "create", "record": {"recordType": "Note", "fields": {"n": {"value": 1}}}}, "#
                    + #"{"operationType": "create", "record": {"recordType": "Note", "fields": {"n": {"value": 2}}}}]}"#
            )
            #expect(saved.status == .ok)
            let counted = try await client.send(
                .post,
                f.path("records/count", user: f.alice.webAuthToken),
                json:
                    #"{"zoneID": {"zoneName": "Notes"}, "query": {"recordType": "Note", "filterBy": [{"fieldName": "n", "comparator": "GREATER_THAN", "fieldValue": {"value": 1}}]}}"#
            )
            #expect(try counted.json["count"] as? Int == 1)
            for body in [
                #"{"zoneID": {"zoneName": "Notes"}}"#,
                #"{"zoneID": {"zoneName": "Notes"}, "query": {"recordType": "Note", "filterBy": [{"fieldName": "n", "comparator": "SOMETIMES", "fieldValue": {"value": 1}}]}}"#,
                "[1, 2",
            ] {
                let response = try await client.send(.post, f.path("records/count", user: f.alice.webAuthToken), json: body)
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            let elsewhere = try await client.send(
                .post,
                f.path("records/count", user: f.alice.webAuthToken),
                json: #"{"zoneID": {"zoneName": "Nowhere"}, "query": {"recordType": "Note"}}"#
            )
            try elsewhere.expectError("ZONE_NOT_FOUND", status: .notFound)
        }
    }

    @Test("a value of the wrong type for its field is a per-record BAD_REQUEST; the record is unchanged")
    func wrongFieldType() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            let uri = f.path("records/modify", user: f.alice.webAuthToken)
            _ = try await client.send(
                .post,
                uri,
                json:
                    #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"count":{"value":1}}}}]}"#
            )
            let response = try await client.send(
                .post,
                uri,
                json:
                    #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"n1","recordType":"Note","fields":{"count":{"value":"one","type":"STRING"}}}}]}"#
            )
            #expect(response.status == .ok)
            let item = try #require((try response.json["records"] as? [[String: Any]])?.first)
            #expect(item["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect(item["recordName"] as? String == "n1")
            let stored = try await f.instance.database.lookupRecords(
                named: ["n1"],
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                access: f.access(f.alice)
            )
            #expect((try? stored.first?.get())?.fields["count"] == .int64(1))
        }
    }

    @Test("an unknown zone is ZONE_NOT_FOUND and is not created")
    func unknownZone() async throws {
        try await HTTPFixture.with { f, client in
            let response = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json: #"{"zoneID":{"zoneName":"Nowhere"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#
            )
            try response.expectError("ZONE_NOT_FOUND", status: .notFound)
            let zones = try await f.instance.database.zones(access: f.access(f.alice))
            #expect(zones.map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
        }
    }

    @Test("a stale change tag is a CONFLICT carrying the server record; the record is unchanged")
    func staleChangeTag() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            let uri = f.path("records/modify", user: f.alice.webAuthToken)
            let created = try await client.send(
                .post,
                uri,
                json:
                    #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"v1"}}}}]}"#
            )
            let tag = try #require(((try created.json["records"] as? [[String: Any]])?.first?["recordChangeTag"]) as? String)
            let update =
                #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"update","record":{"recordName":"n1","recordChangeTag":"\#(tag)","fields":{"title":{"value":"TAG"}}}}]}"#
            _ = try await client.send(.post, uri, json: update.replacingOccurrences(of: "TAG", with: "v2"))
            let stale = try await client.send(.post, uri, json: update.replacingOccurrences(of: "TAG", with: "v3"))
            #expect(stale.status == .ok)
            let item = try #require((try stale.json["records"] as? [[String: Any]])?.first)
            #expect(item["serverErrorCode"] as? String == "CONFLICT")
            let serverRecord = try #require(item["serverRecord"] as? [String: Any])
            #expect(((serverRecord["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == "v2")
            let stored = try await f.instance.database.lookupRecords(
                named: ["n1"],
                inZone: ZoneID(zoneName: "Notes", ownerRecordName: ""),
                access: f.access(f.alice)
            )
            #expect((try? stored.first?.get())?.fields["title"] == .string("v2"))
        }
    }

    @Test("proving an address: a code is sent; malformed requests and wrong codes are BAD_REQUESTs that link nothing")
    func contactVerification() async throws {
        try await HTTPFixture.with { f, client in
            let verify = f.path("users/contacts/verify", user: f.bob.webAuthToken)
            let started = try await client.send(.post, verify, json: #"{"lookupInfo":{"emailAddress":"Bob@Work.example"}}"#)
            #expect(started.status == .ok)
            let body = try started.json
            #expect(body["status"] as? String == "CODE_SENT")
            #expect((body["lookupInfo"] as? [String: Any])?["emailAddress"] as? String == "bob@work.example")
            #expect(body["expiresAt"] is Int)
            for bad in ["{}", #"{"lookupInfo":{"userRecordName":"_x"}}"#, #"{"lookupInfo":{"emailAddress":7}}"#, "[]"] {
                try await client.send(.post, verify, json: bad).expectError("BAD_REQUEST", status: .badRequest)
            }
            let confirm = f.path("users/contacts/confirm", user: f.bob.webAuthToken)
            try await client.send(.post, confirm, json: #"{"lookupInfo":{"emailAddress":"bob@work.example"}}"#)
                .expectError("BAD_REQUEST", status: .badRequest)
            try await client.send(.post, confirm, json: #"{"lookupInfo":{"emailAddress":"bob@work.example"},"code":"not-it"}"#)
                .expectError("BAD_REQUEST", status: .badRequest)
            // Nothing was linked: the address still finds nobody.
            let lookup = try await client.send(
                .post,
                f.path("users/lookup/email", user: f.alice.webAuthToken),
                json: #"{"users":[{"emailAddress":"bob@work.example"}]}"#
            )
            #expect((try lookup.json["users"] as? [Any])?.isEmpty == true)
            // Without a signed-in user there is nothing to prove.
            try await client.send(.post, f.path("users/contacts/verify"), json: #"{"lookupInfo":{"emailAddress":"z@example.com"}}"#)
                .expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
        }
    }

    @Test("a body over the size limit is a BAD_REQUEST naming the limit")
    func oversizedBody() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            let filler = String(repeating: "a", count: 17 * 1024 * 1024)
            let body =
                #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"big","recordType":"Note","fields":{"body":{"value":"\#(filler)"}}}}]}"#
            let response = try await client.send(.post, f.path("records/modify", user: f.alice.webAuthToken), json: body)
            let reason = try response.expectError("BAD_REQUEST", status: .badRequest)
            #expect(reason.contains("limit"))
            #expect(await f.recordExists("big", zone: "Notes", user: f.alice) == false)
        }
    }

    @Test("an expired web auth token is AUTHENTICATION_FAILED and writes nothing")
    func expiredToken() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            f.clock.advance(by: .seconds(15 * 24 * 60 * 60))
            let response = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json: #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"late","recordType":"Note"}}]}"#
            )
            try response.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            #expect(await f.recordExists("late", zone: "Notes", user: f.alice) == false)
        }
    }

    @Test("another user's zone answers exactly like a zone that does not exist")
    func anotherUsersData() async throws {
        try await HTTPFixture.with { f, client in
            try await makeZone(f, client)
            _ = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json:
                    #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"secret","recordType":"Note"}}]}"#
            )
            let owner = f.alice.user.userRecordName
            let lookups = [
                #"{"zoneID":{"zoneName":"Notes","ownerRecordName":"\#(owner)"},"records":[{"recordName":"secret"}]}"#,
                #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"secret"}]}"#,
                #"{"zoneID":{"zoneName":"NoSuchZone"},"records":[{"recordName":"secret"}]}"#,
            ]
            var reasons: Set<String> = []
            for body in lookups {
                let response = try await client.send(.post, f.path("records/lookup", user: f.bob.webAuthToken), json: body)
                reasons.insert(try response.expectError("ZONE_NOT_FOUND", status: .notFound))
            }
            #expect(reasons.count == 1)
            let write = try await client.send(
                .post,
                f.path("records/modify", user: f.bob.webAuthToken),
                json:
                    #"{"zoneID":{"zoneName":"Notes","ownerRecordName":"\#(owner)"},"operations":[{"operationType":"forceDelete","record":{"recordName":"secret"}}]}"#
            )
            try write.expectError("ZONE_NOT_FOUND", status: .notFound)
            #expect(await f.recordExists("secret", zone: "Notes", user: f.alice))
        }
    }

    @Test(
        "unknown paths, environments and operations are BAD_REQUESTs",
        arguments: [
            "/database/1/iCloud.test.http/staging/private/zones/list",
            "/database/1/iCloud.test.http/development/elsewhere/zones/list",
            "/database/1/iCloud.test.http/development/private/records/teleport",
            "/database/2/iCloud.test.http/development/private/zones/list",
        ]
    )
    func unknownRoutes(path: String) async throws {
        try await HTTPFixture.with { f, client in
            let response = try await client.send(.get, path + "?ckAPIToken=\(f.apiToken)")
            try response.expectError("BAD_REQUEST", status: .badRequest)
        }
    }
}
