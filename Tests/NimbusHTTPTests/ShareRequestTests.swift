//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HummingbirdTesting
import NimbusEngine
import Testing

/// Access requests (a Nimbus extension): on a share that takes them, a signed-in user who is
/// not a participant asks to join; the owner or an administrator approves or denies.
@Suite("sharing: requests to join")
struct ShareRequestTests {
    typealias Session = SharingScenarioTests.Session

    @Test("ask, list, approve, deny: the approved join with the granted permission; the denied cannot ask again")
    func requests() async throws {
        try await HTTPFixture.with { f, client in
            let s = Session(f: f, client: client)
            let carol = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: HTTPFixture.container)
            let dan = try await f.instance.accounts.addUser(name: "Dan", email: nil, phone: nil, container: HTTPFixture.container)
            try await s.client.modifyZones("create", ["Chats"], path: f.path("zones/modify", user: f.alice.webAuthToken))
            let created = try await s.modify(
                #"{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","requestsEnabled":true}}"#,
                as: f.alice
            )
            #expect(created.first?["requestsEnabled"] as? Bool == true, "\(created)")
            let guid = try #require(created.first?["shortGUID"] as? String)
            let zone = #"{"zoneName":"Chats"}"#

            // Bob is not invited: the share is closed to him, but he may ask.
            #expect(try await s.resolve(guid, as: f.bob)["serverErrorCode"] as? String == "ACCESS_DENIED")
            let asked = try await s.post("requests/create", #"{"shortGUID":"\#(guid)"}"#, as: f.bob, scope: "shared")
            #expect((asked["requests"] as? [[String: Any]])?.first?["status"] as? String == "PENDING")
            _ = try await s.post("requests/create", #"{"shortGUID":"\#(guid)"}"#, as: f.bob, scope: "shared")
            _ = try await s.post("requests/create", #"{"shortGUID":"\#(guid)"}"#, as: carol, scope: "shared")
            let listed = try await s.post("requests/list", #"{"zoneID":\#(zone)}"#, as: f.alice)
            #expect(
                (listed["requests"] as? [[String: Any]])?.compactMap { $0["userRecordName"] as? String }.sorted()
                    == [f.bob.user.userRecordName, carol.user.userRecordName].sorted()
            )

            // Approved with read-write: Bob sees the zone and writes in it.
            _ = try await s.post(
                "requests/approve",
                #"{"zoneID":\#(zone),"userRecordName":"\#(f.bob.user.userRecordName)","permission":"READ_WRITE"}"#,
                as: f.alice
            )
            #expect(try await s.sharedZones(f.bob) == ["Chats@\(f.alice.user.userRecordName)"])
            let written = try await s.modify(
                #"{"operationType":"create","record":{"recordName":"m1","recordType":"Message"}}"#,
                as: f.bob,
                scope: "shared",
                owner: f.alice.user.userRecordName
            )
            #expect(written.first?["serverErrorCode"] == nil, "\(written)")
            let again = try await client.send(
                .post,
                f.path("requests/create", scope: "shared", user: f.bob.webAuthToken),
                json: #"{"shortGUID":"\#(guid)"}"#
            )
            try again.expectError("BAD_REQUEST", status: .badRequest)

            // Bob, a participant but no administrator, sees no requests.
            let peek = try await client.send(
                .post,
                f.path("requests/list", scope: "shared", user: f.bob.webAuthToken),
                json: #"{"zoneID":{"zoneName":"Chats","ownerRecordName":"\#(f.alice.user.userRecordName)"}}"#
            )
            let reason = try peek.expectError("ACCESS_DENIED", status: .forbidden)
            #expect(reason.contains("requests to join") && !reason.contains("links"), "\(reason)")

            // Denied: Carol stays out and cannot ask again.
            let denied = try await s.post("requests/deny", #"{"zoneID":\#(zone),"userRecordName":"\#(carol.user.userRecordName)"}"#, as: f.alice)
            #expect((denied["requests"] as? [[String: Any]])?.first?["status"] as? String == "DENIED")
            #expect(try await s.sharedZones(carol).isEmpty)
            let carolAgain = try await client.send(
                .post,
                f.path("requests/create", scope: "shared", user: carol.webAuthToken),
                json: #"{"shortGUID":"\#(guid)"}"#
            )
            try carolAgain.expectError("ACCESS_DENIED", status: .forbidden)
            let nothingPending = try await client.send(
                .post,
                f.path("requests/approve", user: f.alice.webAuthToken),
                json: #"{"zoneID":\#(zone),"userRecordName":"\#(dan.user.userRecordName)"}"#
            )
            try nothingPending.expectError("NOT_FOUND", status: .notFound)

            // Requests switched off: nobody new may ask.
            let closed = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","recordChangeTag":"\#(try #require(created.first?["recordChangeTag"] as? String))","requestsEnabled":false}}"#,
                as: f.alice
            )
            #expect(closed.first?["serverErrorCode"] as? String == "CONFLICT", "the approval changed the share since")
            let current = try await s.post("records/lookup", #"{"zoneID":\#(zone),"records":[{"recordName":"cloudkit.zoneshare"}]}"#, as: f.alice)
            let tag = try #require((current["records"] as? [[String: Any]])?.first?["recordChangeTag"] as? String)
            let reopened = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","requestsEnabled":false}}"#,
                as: f.alice
            )
            #expect(reopened.first?["requestsEnabled"] as? Bool == false, "\(reopened)")
            let danAsks = try await client.send(
                .post,
                f.path("requests/create", scope: "shared", user: dan.webAuthToken),
                json: #"{"shortGUID":"\#(guid)"}"#
            )
            try danAsks.expectError("ACCESS_DENIED", status: .forbidden)
        }
    }
}
