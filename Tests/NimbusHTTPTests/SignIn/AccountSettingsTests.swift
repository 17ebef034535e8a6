//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusModel
import NimbusTesting
import Testing

@Suite("accounts: the person's own account")
struct AccountSettingsTests {
    /// What `users/lookup/email` and `users/discover` answer Bob for an address, as compared.
    private func lookups(_ f: HTTPFixture, _ client: any TestClientProtocol, _ email: String) async throws -> (String, String) {
        let byEmail = try await client.send(
            .post,
            f.path("users/lookup/email", user: f.bob.webAuthToken),
            json: #"{"users":[{"emailAddress":"\#(email)"}]}"#
        )
        let discover = try await client.send(
            .post,
            f.path("users/discover", user: f.bob.webAuthToken),
            json: #"{"lookupInfos":[{"emailAddress":"\#(email)"}]}"#
        )
        #expect(byEmail.status == .ok && discover.status == .ok)
        return (try byEmail.comparableBody, try discover.comparableBody)
    }

    @Test("a person who signed up is found by their address only once they opt in; until then, as an unknown address")
    func discoverability() async throws {
        try await HTTPFixture.with { f, client in
            let fay = try await f.signUp(client, email: "fay@example.com", password: "fay's long password", name: "Fay")
            let token = try #require(fay["ckWebAuthToken"] as? String)
            let (hidden, hiddenDiscover) = try await lookups(f, client, "fay@example.com")
            let (unknown, unknownDiscover) = try await lookups(f, client, "nobody-\(UUID().uuidString.prefix(4))@example.com")
            #expect(hidden == unknown)
            #expect(!hidden.contains("userRecordName") && !hiddenDiscover.contains("userRecordName"))
            #expect(!unknown.contains("userRecordName") && !unknownDiscover.contains("userRecordName"))

            let opted = try await f.auth(client, "account", ["discoverable": true], token: token)
            #expect(opted.status == .ok)
            #expect((try opted.json["account"] as? [String: Any])?["discoverable"] as? Bool == true)
            let (found, foundDiscover) = try await lookups(f, client, "fay@example.com")
            #expect(found.contains(try #require(fay["userRecordName"] as? String)))
            #expect(foundDiscover.contains(try #require(fay["userRecordName"] as? String)))

            // And out again.
            _ = try await f.auth(client, "account", ["discoverable": false], token: token)
            #expect(!(try await lookups(f, client, "fay@example.com")).0.contains("userRecordName"))
        }
    }

    @Test("a person renames themselves; users/current shows it; the account lists how they sign in")
    func renameAndRead() async throws {
        try await HTTPFixture.with { f, client in
            let gus = try await f.signUp(client, email: "gus@example.com", password: "gus's long password", name: "Gus")
            let token = try #require(gus["ckWebAuthToken"] as? String)
            let read = try await client.send(.get, f.authPath("account", token: token))
            let account = try #require(try read.json["account"] as? [String: Any])
            #expect(account["name"] as? String == "Gus")
            #expect(account["email"] as? String == "gus@example.com")
            #expect(account["providers"] as? [String] == ["email"])
            #expect(account["anonymous"] as? Bool == false && account["discoverable"] as? Bool == false)
            #expect(try await f.auth(client, "account", ["name": "Gus Grant"], token: token).status == .ok)
            #expect(try await f.currentUser(client, token: token)?.name == "Gus Grant")
            try await f.auth(client, "account", ["name": "  "], token: token).expectError("BAD_REQUEST", status: .badRequest)
            #expect(try await f.currentUser(client, token: token)?.name == "Gus Grant")
            try await f.auth(client, "account", [:]).expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
        }
    }
}

@Suite("accounts: exporting one's own data")
struct AccountExportTests {
    @Test("one request exports the account, its sessions, zones with their records, shared zones and subscriptions")
    func export() async throws {
        try await HTTPFixture.with { f, client in
            let hal = try await f.signUp(client, email: "hal@example.com", password: "hal's long password", name: "Hal")
            let token = try #require(hal["ckWebAuthToken"] as? String)
            let zones = try await client.send(
                .post,
                f.path("zones/modify", user: token),
                json: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
            )
            #expect(zones.status == .ok)
            let saved = try await client.send(
                .post,
                f.path("records/modify", user: token),
                json: #"""
                    {"zoneID":{"zoneName":"Notes"},"operations":[
                      {"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"text":{"value":"first"}}}},
                      {"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{"text":{"value":"second"}}}}]}
                    """#
            )
            #expect(saved.status == .ok)
            let subscribed = try await client.send(
                .post,
                f.path("subscriptions/modify", user: token),
                json:
                    #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#
            )
            #expect(subscribed.status == .ok)

            let exported = try await client.send(.get, f.authPath("export", token: token))
            #expect(exported.status == .ok)
            let body = try exported.json
            #expect((body["account"] as? [String: Any])?["email"] as? String == "hal@example.com")
            #expect((body["sessions"] as? [Any])?.count == 1)
            let exportedZones = try #require(body["zones"] as? [[String: Any]])
            let notes = try #require(exportedZones.first { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String == "Notes" })
            let records = try #require(notes["records"] as? [[String: Any]])
            #expect(Set(records.compactMap { $0["recordName"] as? String }) == ["n1", "n2"])
            #expect(records.contains { (($0["fields"] as? [String: Any])?["text"] as? [String: Any])?["value"] as? String == "second" })
            #expect((body["subscriptions"] as? [[String: Any]])?.first?["subscriptionID"] as? String == "notes")
            #expect((body["sharedZones"] as? [Any])?.isEmpty == true)
            // Nobody else's data, and nothing without a signed-in user.
            let bobs = try await client.send(.get, f.authPath("export", token: f.bob.webAuthToken)).json
            #expect(!String(describing: bobs).contains("second"))
            try await client.send(.get, f.authPath("export")).expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
        }
    }
}
