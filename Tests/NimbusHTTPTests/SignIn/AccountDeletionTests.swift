//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusEngine
import NimbusModel
import NimbusTesting
import Testing

@Suite("accounts: deleting one's own account")
struct AccountDeletionTests {
    /// Posts a database operation as the holder of `token` and returns the body.
    private func post(
        _ f: HTTPFixture,
        _ client: any TestClientProtocol,
        _ operation: String,
        _ body: String,
        token: String,
        scope: String = "private"
    )
        async throws -> [String: Any]
    {
        let response = try await client.send(.post, f.path(operation, scope: scope, user: token), json: body)
        #expect(response.status == .ok, "\(operation): \(String(buffer: response.body))")
        return try response.json
    }

    /// `owner` shares a new zone's root with `guest` (by record name); `guest` accepts.
    private func share(_ f: HTTPFixture, _ client: any TestClientProtocol, zone: String, owner: String, guest: (String, String)) async throws {
        _ = try await post(
            f,
            client,
            "zones/modify",
            #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#,
            token: owner
        )
        let saved = try await post(
            f,
            client,
            "records/modify",
            #"""
            {"zoneID":{"zoneName":"\#(zone)"},"operations":[
              {"operationType":"create","record":{"recordName":"root","recordType":"Chat"}},
              {"operationType":"create","record":{"recordName":"share","recordType":"cloudkit.share","forRecord":{"recordName":"root"},
                "participants":[{"type":"USER","permission":"READ_WRITE","userIdentity":{"lookupInfo":{"userRecordName":"\#(guest.0)"}}}]}}]}
            """#,
            token: owner
        )
        let guid = try #require((saved["records"] as? [[String: Any]])?.last?["shortGUID"] as? String)
        _ = try await post(f, client, "records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: guest.1, scope: "public")
    }

    @Test("deleting an account leaves the shares it joined, ends the ones it owns, removes its data and its ways in")
    func deleteAccount() async throws {
        try await HTTPFixture.with { f, client in
            let dana = try await f.signUp(client, email: "dana@example.com", password: "dana's long password", name: "Dana")
            let danaToken = try #require(dana["ckWebAuthToken"] as? String)
            let danaUser = try #require(dana["userRecordName"] as? String)
            let eli = try await f.auth(client, "signup", ["name": "Eli"]).json
            let eliToken = try #require(eli["ckWebAuthToken"] as? String)
            let eliUser = try #require(eli["userRecordName"] as? String)
            try await share(f, client, zone: "DanaChats", owner: danaToken, guest: (eliUser, eliToken))
            try await share(f, client, zone: "EliChats", owner: eliToken, guest: (danaUser, danaToken))
            _ = try await post(
                f,
                client,
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"diary","recordType":"Note","fields":{"text":{"value":"secret"}}}}]}"#,
                token: danaToken
            )
            let sharedBefore = try await post(f, client, "zones/list", "{}", token: eliToken, scope: "shared")
            #expect((sharedBefore["zones"] as? [Any])?.count == 1)

            // Without the confirmation nothing happens.
            try await f.auth(client, "delete", [:], token: danaToken).expectError("BAD_REQUEST", status: .badRequest)
            #expect(try await f.currentUser(client, token: danaToken) != nil)

            let deleted = try await f.auth(client, "delete", ["confirm": true], token: danaToken)
            #expect(deleted.status == .ok)
            let report = try deleted.json
            #expect(report["status"] as? String == "DELETED")
            #expect(report["zonesDeleted"] as? Int == 1)
            #expect(report["sharesLeft"] as? Int == 1)

            // Eli no longer sees Dana's zone; Eli's own zone stays Eli's.
            let sharedAfter = try await post(f, client, "zones/list", "{}", token: eliToken, scope: "shared")
            #expect((sharedAfter["zones"] as? [Any])?.isEmpty == true)
            let eliZones = try await post(f, client, "zones/list", "{}", token: eliToken)
            #expect(
                (eliZones["zones"] as? [[String: Any]])?.contains { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String == "EliChats" } == true
            )

            // Dana's data and ways in are gone.
            #expect(try await f.currentUser(client, token: danaToken) == nil)
            let diary = try? await f.instance.database.lookupRecords(
                named: ["diary"],
                inZone: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: ""),
                access: DatabaseAccess(
                    caller: Caller(container: HTTPFixture.container, environment: .development, kind: .user, userRecordName: danaUser),
                    scope: .private
                )
            )
            if case .success? = diary?.first { Issue.record("Dana's private record survived the deletion") }
            try await f.auth(client, "signin", ["email": "dana@example.com", "password": "dana's long password"])
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)
            // The address is free again: signing up with it makes a new account.
            let again = try await f.signUp(client, email: "dana@example.com", password: "dana's new password!", name: "Dana")
            #expect(again["userRecordName"] as? String != danaUser)
        }
    }

    @Test("an operator deletes a user as the user would: shares end, sessions end, the address is free; an unknown user is NOT_FOUND")
    func operatorDeletes() async throws {
        try await HTTPFixture.with { f, client in
            let gus = try await f.signUp(client, email: "gus@example.com", password: "gus's long password", name: "Gus")
            let gusToken = try #require(gus["ckWebAuthToken"] as? String)
            let gusUser = try #require(gus["userRecordName"] as? String)
            let hal = try await f.auth(client, "signup", ["name": "Hal"]).json
            let halToken = try #require(hal["ckWebAuthToken"] as? String)
            let halUser = try #require(hal["userRecordName"] as? String)
            try await share(f, client, zone: "GusChats", owner: gusToken, guest: (halUser, halToken))

            let deletion = try await f.instance.signIn.deleteUser(gusUser, container: HTTPFixture.container, database: f.instance.database)
            #expect(deletion.zonesDeleted == 1 && deletion.sharesLeft == 0)
            #expect(try await f.currentUser(client, token: gusToken) == nil)
            let shared = try await post(f, client, "zones/list", "{}", token: halToken, scope: "shared")
            #expect((shared["zones"] as? [Any])?.isEmpty == true)
            try await f.auth(client, "signin", ["email": "gus@example.com", "password": "gus's long password"])
                .expectError("AUTHENTICATION_FAILED", status: .unauthorized)

            await #expect(throws: NimbusError.self) {
                try await f.instance.signIn.deleteUser(gusUser, container: HTTPFixture.container, database: f.instance.database)
            }
            #expect(try await f.currentUser(client, token: halToken) != nil)
        }
    }

    @Test("deleting needs a signed-in user")
    func needsUser() async throws {
        try await HTTPFixture.with { f, client in
            try await f.auth(client, "delete", ["confirm": true]).expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
        }
    }
}
