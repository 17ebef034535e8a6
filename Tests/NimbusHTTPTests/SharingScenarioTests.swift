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

/// The steps of spec `sharing.md` §4 (private shares) and §5 (public shares), over HTTP, with
/// what every user sees after each step.
@Suite("sharing scenarios over HTTP")
struct SharingScenarioTests {
    typealias User = NimbusEngine.AccountService.NewUser

    /// A session of several users against one server.
    struct Session {
        let f: HTTPFixture
        let client: any TestClientProtocol

        func post(_ operation: String, _ json: String, as user: User, scope: String = "private") async throws -> [String: Any] {
            let response = try await client.send(.post, f.path(operation, scope: scope, user: user.webAuthToken), json: json)
            #expect(response.status == .ok, "\(operation): \(String(buffer: response.body))")
            return try response.json
        }

        /// Saves records to Alice's `Chats` zone (or through a shared database) and returns the results.
        func modify(_ operations: String, as user: User, scope: String = "private", owner: String? = nil) async throws -> [[String: Any]] {
            let zone = owner.map { #"{"zoneName":"Chats","ownerRecordName":"\#($0)"}"# } ?? #"{"zoneName":"Chats"}"#
            let body = try await post("records/modify", #"{"zoneID":\#(zone),"operations":[\#(operations)]}"#, as: user, scope: scope)
            return try #require(body["records"] as? [[String: Any]])
        }

        /// The zones of a user's shared database, as `zoneName@owner`.
        func sharedZones(_ user: User) async throws -> [String] {
            let response = try await client.send(.get, f.path("zones/list", scope: "shared", user: user.webAuthToken))
            let zones = try #require(try response.json["zones"] as? [[String: Any]])
            return zones.compactMap { zone in
                let id = zone["zoneID"] as? [String: Any]
                return "\(id?["zoneName"] as? String ?? "")@\(id?["ownerRecordName"] as? String ?? "")"
            }
        }

        /// A page of a user's shared database feed: each zone as `zoneName@owner`, with
        /// `deleted` for zones they lost, and the next token.
        func sharedDatabaseChanges(_ user: User, after token: String?) async throws -> (zones: [String], token: String) {
            let body = try await post("changes/database", token.map { #"{"syncToken":"\#($0)"}"# } ?? "{}", as: user, scope: "shared")
            let zones = try #require(body["zones"] as? [[String: Any]])
            let names = zones.map { zone in
                let id = zone["zoneID"] as? [String: Any]
                let name = "\(id?["zoneName"] as? String ?? "")@\(id?["ownerRecordName"] as? String ?? "")"
                return zone["deleted"] as? Bool == true ? name + " deleted" : name
            }
            return (names, try #require(body["syncToken"] as? String))
        }

        /// The record names of a user's view of Alice's `Chats` zone, from scratch.
        func sharedZoneRecords(_ user: User, owner: User) async throws -> Set<String> {
            let zone = #"{"zoneName":"Chats","ownerRecordName":"\#(owner.user.userRecordName)"}"#
            let body = try await post("changes/zone", #"{"zones":[{"zoneID":\#(zone)}]}"#, as: user, scope: "shared")
            let page = try #require((body["zones"] as? [[String: Any]])?.first)
            // How many changes the owner's zone holds is not a participant's to know.
            #expect(page["nimbusProgress"] == nil, "\(page)")
            let records = try #require(page["records"] as? [[String: Any]], "\(page)")
            return Set(records.compactMap { $0["recordName"] as? String })
        }

        /// Which of the records a user can read through their shared database.
        func visible(_ names: [String], to user: User, owner: User) async throws -> Set<String> {
            let response = try await client.send(
                .post,
                f.path("records/lookup", scope: "shared", user: user.webAuthToken),
                json:
                    #"{"zoneID":{"zoneName":"Chats","ownerRecordName":"\#(owner.user.userRecordName)"},"records":[\#(names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#
            )
            guard response.status == .ok else { return [] }
            let records = try #require(try response.json["records"] as? [[String: Any]])
            return Set(records.filter { $0["serverErrorCode"] == nil }.compactMap { $0["recordName"] as? String })
        }

        /// The share record as a user reads it (owner: private database; others: shared).
        func share(as user: User, owner: User) async throws -> [String: Any]? {
            let isOwner = user.user.userRecordName == owner.user.userRecordName
            let zone = isOwner ? #"{"zoneName":"Chats"}"# : #"{"zoneName":"Chats","ownerRecordName":"\#(owner.user.userRecordName)"}"#
            let response = try await client.send(
                .post,
                f.path("records/lookup", scope: isOwner ? "private" : "shared", user: user.webAuthToken),
                json: #"{"zoneID":\#(zone),"records":[{"recordName":"share1"}]}"#
            )
            guard response.status == .ok, let record = (try response.json["records"] as? [[String: Any]])?.first,
                record["serverErrorCode"] == nil
            else { return nil }
            return record
        }

        /// The participants of a share record as `name:TYPE:STATUS`, name being the user record
        /// name or the lookup address.
        static func participants(_ share: [String: Any]?) -> Set<String> {
            Set(
                (share?["participants"] as? [[String: Any]] ?? []).map { participant in
                    let identity = participant["userIdentity"] as? [String: Any]
                    let lookup = identity?["lookupInfo"] as? [String: Any]
                    let name = identity?["userRecordName"] as? String ?? lookup?["emailAddress"] as? String ?? "?"
                    return "\(name):\(participant["type"] as? String ?? ""):\(participant["acceptanceStatus"] as? String ?? "")"
                }
            )
        }

        func resolve(_ guid: String, as user: User, accept: Bool = false) async throws -> [String: Any] {
            let body = try await post(
                accept ? "records/accept" : "records/resolve",
                #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true}]}"#,
                as: user,
                scope: "public"
            )
            return try #require((body["results"] as? [[String: Any]])?.first)
        }
    }

    private func seedChat(_ s: Session, publicPermission: String = "NONE") async throws -> String {
        try await s.client.modifyZones("create", ["Chats"], path: s.f.path("zones/modify", user: s.f.alice.webAuthToken))
        // Step 1: the root and its share in one request.
        let results = try await s.modify(
            #"""
            {"operationType":"create","record":{"recordName":"chat1","recordType":"Chat","fields":{"title":{"value":"Tea"}}}},
            {"operationType":"create","record":{"recordName":"msg1","recordType":"Message","fields":{"text":{"value":"hi"}},"parent":{"recordName":"chat1"}}},
            {"operationType":"create","record":{"recordName":"private1","recordType":"Message","fields":{"text":{"value":"diary"}}}},
            {"operationType":"create","record":{"recordName":"share1","recordType":"cloudkit.share",
              "fields":{"cloudkit.title":{"value":"Tea chat","type":"STRING"}},
              "forRecord":{"recordName":"chat1"},"publicPermission":"\#(publicPermission)"}}
            """#,
            as: s.f.alice
        )
        #expect(results.allSatisfy { $0["serverErrorCode"] == nil }, "\(results)")
        #expect((results[0]["share"] as? [String: Any])?["recordName"] as? String == "share1", "the root answers with its share")
        let share = results[3]
        #expect(share["recordType"] as? String == "cloudkit.share")
        #expect(share["publicPermission"] as? String == publicPermission)
        #expect((share["owner"] as? [String: Any])?["type"] as? String == "OWNER")
        return try #require(share["shortGUID"] as? String)
    }

    @Test("spec §4: create, invite, resolve, accept, leave, remove, unshare")
    func privateShareLifecycle() async throws {
        try await HTTPFixture.with { f, client in
            let s = Session(f: f, client: client)
            let carol = try await f.instance.accounts.addUser(
                name: "Carol Jones",
                email: "carol@example.com",
                phone: nil,
                container: HTTPFixture.container
            )
            let dave = try await f.instance.accounts.addUser(name: "Dave", email: nil, phone: nil, container: HTTPFixture.container)
            let (alice, bob) = (f.alice, f.bob)
            let guid = try await seedChat(s)
            #expect(guid.count == 25)
            #expect(Session.participants(try await s.share(as: alice, owner: alice)) == ["\(alice.user.userRecordName):OWNER:ACCEPTED"])

            // Step 2: invite Bob by record name, Carol by email, and an address with no account.
            let current = try #require(try await s.share(as: alice, owner: alice))
            let invited = try await s.modify(
                #"""
                {"operationType":"update","record":{"recordName":"share1","recordType":"cloudkit.share","recordChangeTag":"\#(current["recordChangeTag"] as? String ?? "")",
                  "participants":[
                    {"type":"USER","permission":"READ_WRITE","acceptanceStatus":"INVITED","userIdentity":{"lookupInfo":{"userRecordName":"\#(bob.user.userRecordName)"}}},
                    {"type":"USER","permission":"READ_ONLY","userIdentity":{"lookupInfo":{"emailAddress":"Carol@Example.com"}}},
                    {"type":"USER","permission":"READ_ONLY","userIdentity":{"lookupInfo":{"emailAddress":"zed@example.com"}}}]}}
                """#,
                as: alice
            )
            #expect(invited.first?["serverErrorCode"] == nil, "\(invited)")
            let ownerView = Session.participants(try await s.share(as: alice, owner: alice))
            #expect(
                ownerView == [
                    "\(alice.user.userRecordName):OWNER:ACCEPTED", "\(bob.user.userRecordName):USER:PENDING",
                    "\(carol.user.userRecordName):USER:PENDING", "zed@example.com:USER:PENDING",
                ]
            )
            // Nobody has the zone before accepting.
            for user in [bob, carol, dave] { #expect(try await s.sharedZones(user).isEmpty) }

            // Step 3: the URL alone is not enough, and to a stranger a private share that takes
            // no requests to join answers as a short GUID that names no share.
            let stranger = try await s.resolve(guid, as: dave, accept: true)
            let random = try await s.resolve(String(repeating: "x", count: guid.count), as: dave, accept: true)
            #expect(stranger["serverErrorCode"] as? String == "NOT_FOUND")
            #expect(stranger["serverErrorCode"] as? String == random["serverErrorCode"] as? String)
            #expect(stranger["reason"] as? String == random["reason"] as? String)
            #expect(stranger["share"] == nil && stranger["rootRecord"] == nil)
            #expect(try await s.sharedZones(dave).isEmpty)

            // Step 4: Bob resolves (a preview), then accepts.
            let preview = try await s.resolve(guid, as: bob)
            #expect(preview["participantStatus"] as? String == "PENDING")
            #expect(preview["rootRecordName"] as? String == "chat1")
            #expect((preview["rootRecord"] as? [String: Any])?["recordName"] as? String == "chat1")
            #expect((preview["ownerIdentity"] as? [String: Any])?["userRecordName"] as? String == alice.user.userRecordName)
            // A pending member sees the owner and themself, not the other pending invitations.
            #expect(
                Session.participants(preview["share"] as? [String: Any])
                    == ["\(alice.user.userRecordName):OWNER:ACCEPTED", "\(bob.user.userRecordName):USER:PENDING"]
            )
            let bobsFeed = try await s.sharedDatabaseChanges(bob, after: nil)
            #expect(bobsFeed.zones.isEmpty)
            let accepted = try await s.resolve(guid, as: bob, accept: true)
            #expect(accepted["participantStatus"] as? String == "ACCEPTED")
            #expect(try await s.sharedZones(bob) == ["Chats@\(alice.user.userRecordName)"])
            // The zone appears in Bob's shared database feed, holding the hierarchy only.
            let joined = try await s.sharedDatabaseChanges(bob, after: bobsFeed.token)
            #expect(joined.zones == ["Chats@\(alice.user.userRecordName)"])
            #expect(try await s.sharedZoneRecords(bob, owner: alice) == ["chat1", "msg1", "share1"])
            #expect(try await s.visible(["chat1", "msg1", "private1", "share1"], to: bob, owner: alice) == ["chat1", "msg1", "share1"])
            _ = try await s.resolve(guid, as: carol, accept: true)
            // Members see accepted members (and the owner); only the owner sees the pending address.
            let memberView = Session.participants(try await s.share(as: carol, owner: alice))
            #expect(
                memberView == [
                    "\(alice.user.userRecordName):OWNER:ACCEPTED", "\(bob.user.userRecordName):USER:ACCEPTED",
                    "\(carol.user.userRecordName):USER:ACCEPTED",
                ]
            )
            #expect(Session.participants(try await s.share(as: alice, owner: alice)).contains("zed@example.com:USER:PENDING"))

            // Step 5: Bob leaves by deleting the share through his shared database.
            let left = try await s.modify(
                #"{"operationType":"forceDelete","record":{"recordName":"share1"}}"#,
                as: bob,
                scope: "shared",
                owner: alice.user.userRecordName
            )
            #expect(left.first?["deleted"] as? Bool == true, "\(left)")
            #expect(try await s.sharedZones(bob).isEmpty)
            #expect(try await s.sharedDatabaseChanges(bob, after: joined.token).zones == ["Chats@\(alice.user.userRecordName) deleted"])
            #expect(try await s.visible(["chat1"], to: bob, owner: alice).isEmpty)
            #expect(!Session.participants(try await s.share(as: carol, owner: alice)).contains { $0.hasPrefix(bob.user.userRecordName) })
            #expect(try await s.share(as: alice, owner: alice) != nil, "the share survives a member leaving")

            // Step 6: the owner removes Carol by leaving her out of the list.
            let before = try #require(try await s.share(as: alice, owner: alice))
            let removed = try await s.modify(
                #"""
                {"operationType":"update","record":{"recordName":"share1","recordChangeTag":"\#(before["recordChangeTag"] as? String ?? "")",
                  "participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"zed@example.com"}}}]}}
                """#,
                as: alice
            )
            #expect(removed.first?["serverErrorCode"] == nil, "\(removed)")
            #expect(try await s.sharedZones(carol).isEmpty)
            #expect(try await s.visible(["chat1", "msg1"], to: carol, owner: alice).isEmpty)

            // Step 7: unsharing takes everyone's access and the root's share reference.
            _ = try await s.resolve(guid, as: carol)  // still refused below, after unsharing
            let unshared = try await s.modify(#"{"operationType":"forceDelete","record":{"recordName":"share1"}}"#, as: alice)
            #expect(unshared.first?["deleted"] as? Bool == true)
            let root = try await s.post("records/lookup", #"{"zoneID":{"zoneName":"Chats"},"records":[{"recordName":"chat1"}]}"#, as: alice)
            let rootRecord = (root["records"] as? [[String: Any]])?.first
            #expect(rootRecord?["share"] == nil)
            #expect(rootRecord?["recordName"] as? String == "chat1", "the records stay with the owner")
            let gone = try await s.resolve(guid, as: bob)
            #expect(gone["serverErrorCode"] as? String == "NOT_FOUND")
        }
    }

    @Test("spec §5: public shares, adding to them fails, and going private removes only public users")
    func publicShareTransitions() async throws {
        try await HTTPFixture.with { f, client in
            let s = Session(f: f, client: client)
            let dave = try await f.instance.accounts.addUser(name: "Dave", email: nil, phone: nil, container: HTTPFixture.container)
            let (alice, bob) = (f.alice, f.bob)
            let guid = try await seedChat(s)
            // Bob is invited while the share is private, then accepts.
            var tag = try #require(try await s.share(as: alice, owner: alice))["recordChangeTag"] as? String ?? ""
            _ = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"share1","recordChangeTag":"\#(tag)","participants":[{"permission":"READ_WRITE","userIdentity":{"lookupInfo":{"userRecordName":"\#(bob.user.userRecordName)"}}}]}}"#,
                as: alice
            )
            _ = try await s.resolve(guid, as: bob, accept: true)

            // Making it public keeps Bob.
            tag = try #require(try await s.share(as: alice, owner: alice))["recordChangeTag"] as? String ?? ""
            let madePublic = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"share1","recordChangeTag":"\#(tag)","publicPermission":"READ_ONLY"}}"#,
                as: alice
            )
            #expect(madePublic.first?["publicPermission"] as? String == "READ_ONLY", "\(madePublic)")
            #expect(try await s.sharedZones(bob) == ["Chats@\(alice.user.userRecordName)"])

            // Anyone signed in with the URL joins as a public user with the public permission.
            let preview = try await s.resolve(guid, as: dave)
            #expect(preview["participantStatus"] as? String == "UNKNOWN")
            let joined = try await s.resolve(guid, as: dave, accept: true)
            #expect(joined["participantType"] as? String == "PUBLIC_USER")
            #expect(joined["participantPermission"] as? String == "READ_ONLY")
            #expect(try await s.visible(["chat1", "msg1", "private1"], to: dave, owner: alice) == ["chat1", "msg1"])
            let daveWrite = try await s.modify(
                #"{"operationType":"create","record":{"recordName":"d1","recordType":"Message","parent":{"recordName":"chat1"}}}"#,
                as: dave,
                scope: "shared",
                owner: alice.user.userRecordName
            )
            #expect(daveWrite.first?["serverErrorCode"] as? String == "ACCESS_DENIED")

            // Adding a participant to a public share fails, and changes nothing.
            let shareBefore = try #require(try await s.share(as: alice, owner: alice))
            tag = shareBefore["recordChangeTag"] as? String ?? ""
            let carolLookup = #"{"userIdentity":{"lookupInfo":{"emailAddress":"carol@example.com"}}}"#
            let everyone = (shareBefore["participants"] as? [[String: Any]] ?? []).compactMap { $0["participantId"] as? String }
                .map { #"{"participantId":"\#($0)"}"# }
            let refused = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"share1","recordChangeTag":"\#(tag)","participants":[\#((everyone + [carolLookup]).joined(separator: ","))]}}"#,
                as: alice
            )
            #expect(refused.first?["serverErrorCode"] as? String == "BAD_REQUEST")
            #expect((refused.first?["reason"] as? String)?.contains("public share") == true)
            #expect(try await s.share(as: alice, owner: alice)?["recordChangeTag"] as? String == tag)

            // READ_WRITE lets public users write children.
            _ = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"share1","recordChangeTag":"\#(tag)","publicPermission":"READ_WRITE"}}"#,
                as: alice
            )
            let daveWrites = try await s.modify(
                #"{"operationType":"create","record":{"recordName":"d2","recordType":"Message","parent":{"recordName":"chat1"}}}"#,
                as: dave,
                scope: "shared",
                owner: alice.user.userRecordName
            )
            #expect(daveWrites.first?["serverErrorCode"] == nil, "\(daveWrites)")

            // Back to private: Dave (public) goes and the response says so; Bob (invited) stays.
            tag = try #require(try await s.share(as: alice, owner: alice))["recordChangeTag"] as? String ?? ""
            let madePrivate = try await s.modify(
                #"{"operationType":"update","record":{"recordName":"share1","recordChangeTag":"\#(tag)","publicPermission":"NONE"}}"#,
                as: alice
            )
            let removed = (madePrivate.first?["removedParticipants"] as? [[String: Any]] ?? []).compactMap {
                ($0["userIdentity"] as? [String: Any])?["userRecordName"] as? String
            }
            #expect(removed == [dave.user.userRecordName])
            #expect(try await s.sharedZones(dave).isEmpty)
            #expect(try await s.sharedZones(bob) == ["Chats@\(alice.user.userRecordName)"])
            #expect(
                Session.participants(try await s.share(as: alice, owner: alice)) == [
                    "\(alice.user.userRecordName):OWNER:ACCEPTED", "\(bob.user.userRecordName):USER:ACCEPTED",
                ]
            )
            // And Dave cannot rejoin through the URL now.
            #expect(try await s.resolve(guid, as: dave, accept: true)["serverErrorCode"] as? String == "ACCESS_DENIED")
        }
    }
}
