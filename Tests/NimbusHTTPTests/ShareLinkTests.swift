//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HummingbirdTesting
import NimbusEngine
import Testing

/// Extra invitation links (single-use, expiring, revocable) and the rotation of a share's main
/// link: Nimbus extensions over `links/*`, used through `records/accept` like any short GUID.
@Suite("sharing: extra invitation links")
struct ShareLinkTests {
    typealias Session = SharingScenarioTests.Session

    /// Alice's zone `Chats` shared whole and privately, with nobody invited.
    static func seed(_ s: Session) async throws {
        try await s.client.modifyZones("create", ["Chats"], path: s.f.path("zones/modify", user: s.f.alice.webAuthToken))
        let results = try await s.modify(
            #"""
            {"operationType":"create","record":{"recordName":"m1","recordType":"Message","fields":{"text":{"value":"hi"}}}},
            {"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","publicPermission":"NONE"}}
            """#,
            as: s.f.alice
        )
        #expect(results.allSatisfy { $0["serverErrorCode"] == nil }, "\(results)")
    }

    static func link(_ s: Session, _ body: String, as user: SharingScenarioTests.User, scope: String = "private") async throws -> [String: Any] {
        let response = try await s.post(
            "links/create",
            #"{"zoneID":{"zoneName":"Chats"\#(scope == "shared" ? #","ownerRecordName":"\#(s.f.alice.user.userRecordName)""# : "")},\#(body)}"#,
            as: user,
            scope: scope
        )
        return try #require((response["links"] as? [[String: Any]])?.first)
    }

    @Test("a single-use link admits one person with its permission; a second is told it was used")
    func singleUse() async throws {
        try await HTTPFixture.with { f, client in
            let s = Session(f: f, client: client)
            try await Self.seed(s)
            let carol = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: HTTPFixture.container)
            let link = try await Self.link(s, #""permission":"READ_WRITE","singleUse":true"#, as: f.alice)
            let guid = try #require(link["shortGUID"] as? String)
            #expect((link["url"] as? String) == "http://nimbus.test/share/\(guid)")

            let preview = try await s.resolve(guid, as: f.bob)
            #expect(preview["serverErrorCode"] == nil, "the link's holder may look before joining: \(preview)")
            let joined = try await s.resolve(guid, as: f.bob, accept: true)
            #expect(joined["serverErrorCode"] == nil, "\(joined)")
            #expect(joined["participantPermission"] as? String == "READ_WRITE")
            #expect(try await s.sharedZones(f.bob) == ["Chats@\(f.alice.user.userRecordName)"])
            // Bob writes, as the link allowed.
            let written = try await s.modify(
                #"{"operationType":"create","record":{"recordName":"m2","recordType":"Message"}}"#,
                as: f.bob,
                scope: "shared",
                owner: f.alice.user.userRecordName
            )
            #expect(written.first?["serverErrorCode"] == nil, "\(written)")

            let refused = try await s.resolve(guid, as: carol, accept: true)
            #expect(refused["serverErrorCode"] as? String == "ACCESS_DENIED", "\(refused)")
            #expect((refused["reason"] as? String)?.contains("already used") == true, "\(refused)")
            #expect(try await s.sharedZones(carol).isEmpty)
            // Bob, a member now, may open it again.
            #expect(try await s.resolve(guid, as: f.bob)["serverErrorCode"] == nil)

            let listed = try await s.post("links/list", #"{"zoneID":{"zoneName":"Chats"}}"#, as: f.alice)
            let links = try #require(listed["links"] as? [[String: Any]])
            #expect(links.count == 1 && links.first?["usedBy"] as? String == f.bob.user.userRecordName)
        }
    }

    @Test("an expired or revoked link admits nobody; who joined stays; rotation retires the main link")
    func expiryRevocationRotation() async throws {
        try await HTTPFixture.with { f, client in
            let s = Session(f: f, client: client)
            try await Self.seed(s)
            let carol = try await f.instance.accounts.addUser(name: "Carol", email: nil, phone: nil, container: HTTPFixture.container)
            let expiring = try await Self.link(s, #""expiresAt":\#(f.clock.milliseconds + 60_000)"#, as: f.alice)
            let revocable = try await Self.link(s, #""permission":"READ_ONLY""#, as: f.alice)
            let revocableGUID = try #require(revocable["shortGUID"] as? String)
            #expect(try await s.resolve(revocableGUID, as: f.bob, accept: true)["serverErrorCode"] == nil)

            f.clock.advance(by: .seconds(120))
            let late = try await s.resolve(try #require(expiring["shortGUID"] as? String), as: carol, accept: true)
            #expect((late["reason"] as? String)?.contains("expired") == true, "\(late)")

            let revoked = try await s.post("links/revoke", #"{"shortGUID":"\#(revocableGUID)"}"#, as: f.alice)
            #expect((revoked["links"] as? [[String: Any]])?.first?["revokedAt"] != nil)
            let afterRevoke = try await s.resolve(revocableGUID, as: carol, accept: true)
            #expect((afterRevoke["reason"] as? String)?.contains("revoked") == true, "\(afterRevoke)")
            #expect(try await s.sharedZones(f.bob) == ["Chats@\(f.alice.user.userRecordName)"], "revoking keeps who joined")

            // Bob, a read-only participant, manages no links; he does not learn that one exists.
            let bobsTry = try await client.send(
                .post,
                f.path("links/create", scope: "shared", user: f.bob.webAuthToken),
                json: #"{"zoneID":{"zoneName":"Chats","ownerRecordName":"\#(f.alice.user.userRecordName)"}}"#
            )
            try bobsTry.expectError("ACCESS_DENIED", status: .forbidden)
            let bobsRevoke = try await client.send(
                .post,
                f.path("links/revoke", scope: "shared", user: f.bob.webAuthToken),
                json: #"{"shortGUID":"\#(revocableGUID)"}"#
            )
            try bobsRevoke.expectError("NOT_FOUND", status: .notFound)

            // Rotation: the old main short GUID stops working.
            let share = try await s.post(
                "records/lookup",
                #"{"zoneID":{"zoneName":"Chats"},"records":[{"recordName":"cloudkit.zoneshare"}]}"#,
                as: f.alice
            )
            let oldGUID = try #require((share["records"] as? [[String: Any]])?.first?["shortGUID"] as? String)
            let rotated = try await s.post("links/rotate", #"{"zoneID":{"zoneName":"Chats"}}"#, as: f.alice)
            let newGUID = try #require(rotated["shortGUID"] as? String)
            #expect(newGUID != oldGUID)
            #expect(try await s.resolve(oldGUID, as: f.bob)["serverErrorCode"] as? String == "NOT_FOUND")
            #expect(try await s.resolve(newGUID, as: f.bob)["serverErrorCode"] == nil, "members open the new one")

            // Bad requests.
            for body in [#"{"zoneID":{"zoneName":"Chats"},"permission":"NONE"}"#, #"{"zoneID":{"zoneName":"Chats"},"expiresAt":1}"#] {
                let response = try await client.send(.post, f.path("links/create", user: f.alice.webAuthToken), json: body)
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
            let unknown = try await client.send(
                .post,
                f.path("links/create", user: f.alice.webAuthToken),
                json: #"{"zoneID":{"zoneName":"Chats"},"shareName":"nope"}"#
            )
            try unknown.expectError("NOT_FOUND", status: .notFound)
        }
    }
}
