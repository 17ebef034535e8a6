//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("change feeds over HTTP")
struct ChangeFeedHTTPTests {
    @Test("changes/database, zones/changes, changes/zone and records/changes answer in CloudKit's shapes")
    func shapes() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.alice.webAuthToken
            try await client.modifyZones("create", ["A", "B"], path: f.path("zones/modify", user: token))
            for zone in ["A", "B"] {
                _ = try await client.send(
                    .post,
                    f.path("records/modify", user: token),
                    json: """
                        {"zoneID":{"zoneName":"\(zone)"},"operations":[
                        {"operationType":"create","record":{"recordName":"\(zone)1","recordType":"Note","fields":{"n":{"value":1}}}},
                        {"operationType":"create","record":{"recordName":"\(zone)2","recordType":"Tag","fields":{"n":{"value":2}}}}]}
                        """
                )
            }
            // The first call of a sync may send no body at all.
            let database = try await client.send(.post, f.path("changes/database", user: token))
            #expect(database.status == .ok)
            let databaseBody = try database.json
            let zones = try #require(databaseBody["zones"] as? [[String: Any]])
            #expect(zones.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String } == ["A", "B"])
            // No per-zone token: it would be the zone's current one, and storing it would skip changes.
            #expect(zones.allSatisfy { $0["syncToken"] == nil && $0["atomic"] as? Bool == true })
            #expect(databaseBody["moreComing"] as? Bool == false)
            let databaseToken = try #require(databaseBody["syncToken"] as? String)

            let zoneChanges = try await client.send(
                .post,
                f.path("changes/zone", user: token),
                json: """
                    {"numberAsStrings":true,"desiredKeys":["n"],"zones":[
                    {"zoneID":{"zoneName":"A"},"resultsLimit":1},
                    {"zoneID":{"zoneName":"B"},"desiredRecordTypes":["Tag"]},
                    {"zoneID":{"zoneName":"Missing"}}]}
                    """
            )
            #expect(zoneChanges.status == .ok)
            let pages = try #require(try zoneChanges.json["zones"] as? [[String: Any]])
            #expect(pages.count == 3)
            let a = pages[0]
            #expect((a["zoneID"] as? [String: Any])?["zoneName"] as? String == "A")
            #expect((a["records"] as? [[String: Any]])?.map { $0["recordName"] as? String } == ["A1"])
            #expect(a["moreComing"] as? Bool == true)
            // A private zone's page says how far through the zone's changes it is.
            let progress = try #require(a["nimbusProgress"] as? [String: Any], "\(a)")
            let (from, through, latest) = (progress["from"] as? Int, progress["through"] as? Int, progress["latest"] as? Int)
            #expect(from == 0 && (through ?? 0) > 0 && (through ?? 0) < (latest ?? 0), "\(progress)")
            let field = ((a["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any])?["n"] as? [String: Any]
            #expect(field?["value"] as? String == "1", "numberAsStrings (Apple's spelling) is honoured")
            #expect((pages[1]["records"] as? [[String: Any]])?.map { $0["recordName"] as? String } == ["B2"])
            #expect(pages[2]["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
            #expect((pages[2]["zoneID"] as? [String: Any])?["zoneName"] as? String == "Missing")

            // records/changes resumes A's feed after its first page; a delete comes as a tombstone.
            _ = try await client.send(
                .post,
                f.path("records/modify", user: token),
                json: #"{"zoneID":{"zoneName":"A"},"operations":[{"operationType":"forceDelete","record":{"recordName":"A1"}}]}"#
            )
            let resumed = try await client.send(
                .post,
                f.path("records/changes", user: token),
                json: #"{"zoneID":{"zoneName":"A"},"syncToken":"\#(a["syncToken"] as! String)"}"#
            )
            #expect(resumed.status == .ok)
            let resumedBody = try resumed.json
            let records = try #require(resumedBody["records"] as? [[String: Any]])
            #expect(records.count == 2)
            #expect(records[0]["recordName"] as? String == "A2" && records[0]["fields"] != nil)
            #expect(records[1]["recordName"] as? String == "A1")
            #expect(records[1]["recordType"] as? String == "Note")
            #expect(records[1]["deleted"] as? Bool == true)
            #expect(resumedBody["moreComing"] as? Bool == false)

            // zones/changes is the older name of the same feed: A changed since the database token.
            let since = try await client.send(.post, f.path("zones/changes", user: token), json: #"{"syncToken":"\#(databaseToken)"}"#)
            let changed = try #require(try since.json["zones"] as? [[String: Any]])
            #expect(changed.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String } == ["A"])
        }
    }

    @Test("bad sync tokens are a BAD_REQUEST naming the problem, never another zone's data")
    func badTokens() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.alice.webAuthToken
            try await client.modifyZones("create", ["A"], path: f.path("zones/modify", user: token))
            let list = try await client.send(.get, f.path("zones/list", user: token))
            let zones = try #require(try list.json["zones"] as? [[String: Any]])
            let defaultToken = try #require(
                zones.first { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String == "_defaultZone" }?["syncToken"] as? String
            )
            for (body, fragment) in [
                (#"{"zoneID":{"zoneName":"A"},"syncToken":"\#(defaultToken)"}"#, "not issued"),
                (#"{"zoneID":{"zoneName":"A"},"syncToken":"AAAA.BBBB"}"#, "not issued"),
                (#"{"zoneID":{"zoneName":"A"},"syncToken":7}"#, "syncToken"),
                (#"{"zoneID":{"zoneName":"A"},"resultsLimit":0}"#, "resultsLimit"),
                (#"{"zoneID":{"zoneName":"A"}"#, "JSON"),
            ] {
                let response = try await client.send(.post, f.path("records/changes", user: token), json: body)
                let reason = try response.expectError("BAD_REQUEST", status: .badRequest)
                #expect(reason.contains(fragment), "\(body): \(reason)")
            }
            // Bob cannot read Alice's zone through her token, and learns nothing about it.
            let bobs = try await client.send(
                .post,
                f.path("records/changes", user: f.bob.webAuthToken),
                json: #"{"zoneID":{"zoneName":"A","ownerRecordName":"\#(f.alice.user.userRecordName)"}}"#
            )
            _ = try bobs.expectError("ZONE_NOT_FOUND", status: .notFound)
            // Without a signed-in user the private feeds ask for one.
            let anonymous = try await client.send(.post, f.path("changes/database"), json: "{}")
            _ = try anonymous.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
        }
    }

    @Test("changes/zone without a signed-in user is a 421 for the whole request, not per-zone errors")
    func anonymousZoneChanges() async throws {
        try await HTTPFixture.with { f, client in
            let response = try await client.send(.post, f.path("changes/zone"), json: #"{"zones":[{"zoneID":{"zoneName":"A"}}]}"#)
            _ = try response.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
            #expect(try response.json["redirectURL"] is String)
        }
    }

    @Test("a deleted zone comes as deleted in zones/changes; reverse orders a page newest first")
    func deletedZonesAndReverse() async throws {
        try await HTTPFixture.with { f, client in
            let token = f.alice.webAuthToken
            try await client.modifyZones("create", ["A", "B"], path: f.path("zones/modify", user: token))
            _ = try await client.send(
                .post,
                f.path("records/modify", user: token),
                json: """
                    {"zoneID":{"zoneName":"A"},"operations":[
                    {"operationType":"create","record":{"recordName":"first","recordType":"Note"}},
                    {"operationType":"create","record":{"recordName":"second","recordType":"Note"}}]}
                    """
            )
            let start = try await client.send(.post, f.path("zones/changes", user: token), json: "{}")
            let startToken = try #require(try start.json["syncToken"] as? String)
            try await client.modifyZones("delete", ["B"], path: f.path("zones/modify", user: token))
            let since = try await client.send(.post, f.path("zones/changes", user: token), json: #"{"syncToken":"\#(startToken)"}"#)
            let zones = try #require(try since.json["zones"] as? [[String: Any]])
            #expect(zones.count == 1)
            #expect((zones.first?["zoneID"] as? [String: Any])?["zoneName"] as? String == "B")
            #expect(zones.first?["deleted"] as? Bool == true)

            let reversed = try await client.send(
                .post,
                f.path("changes/zone", user: token),
                json: #"{"reverse":true,"zones":[{"zoneID":{"zoneName":"A"}}]}"#
            )
            let page = try #require((try reversed.json["zones"] as? [[String: Any]])?.first)
            #expect((page["records"] as? [[String: Any]])?.map { $0["recordName"] as? String } == ["second", "first"])
        }
    }
}

extension TestClientProtocol {
    /// Creates or deletes zones through `zones/modify`, failing the test if any operation fails.
    func modifyZones(_ operationType: String, _ names: [String], path: String) async throws {
        let operations = names.map { #"{"operationType":"\#(operationType)","zone":{"zoneID":{"zoneName":"\#($0)"}}}"# }
        let response = try await send(.post, path, json: #"{"operations":[\#(operations.joined(separator: ","))]}"#)
        let zones = try #require(try response.json["zones"] as? [[String: Any]])
        #expect(zones.allSatisfy { $0["serverErrorCode"] == nil }, "\(zones)")
    }
}
