//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("environments and zones/lookup")
struct EnvironmentAndZoneLookupTests {
    @Test("development and production are separate data: a record of one is not in the other")
    func environmentsAreSeparate() async throws {
        try await HTTPFixture.with { f, client in
            let production = try await f.instance.accounts.createContainer(HTTPFixture.container, environment: .production)
            let saved = try await client.send(
                .post,
                f.path("records/modify", scope: "public", user: f.alice.webAuthToken),
                json: #"{"operations":[{"operationType":"create","record":{"recordName":"dev-only","recordType":"Note"}}]}"#
            )
            #expect(saved.status == .ok)
            let lookup = #"{"records":[{"recordName":"dev-only"}]}"#
            let inDevelopment = try await client.send(.post, f.path("records/lookup", scope: "public"), json: lookup)
            #expect((try inDevelopment.json["records"] as? [[String: Any]])?.first?["recordType"] as? String == "Note")
            let inProduction = try await client.send(
                .post,
                "/database/1/\(HTTPFixture.container)/production/public/records/lookup?ckAPIToken=\(production.apiToken)",
                json: lookup
            )
            #expect(inProduction.status == .ok)
            #expect((try inProduction.json["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String == "NOT_FOUND")
            // Each environment's API token opens only its own.
            let crossed = try await client.send(
                .post,
                "/database/1/\(HTTPFixture.container)/production/public/records/lookup?ckAPIToken=\(f.apiToken)",
                json: lookup
            )
            try crossed.expectError("AUTHENTICATION_FAILED", status: .unauthorized)
        }
    }

    @Test("zones/lookup answers each zone in order: found, missing, and another user's zone alike as missing")
    func zonesLookup() async throws {
        try await HTTPFixture.with { f, client in
            for user in [f.alice, f.bob] {
                let zone = user.user.userRecordName == f.alice.user.userRecordName ? "Notes" : "BobsZone"
                let created = try await client.send(
                    .post,
                    f.path("zones/modify", user: user.webAuthToken),
                    json: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#
                )
                #expect(created.status == .ok)
            }
            let response = try await client.send(
                .post,
                f.path("zones/lookup", user: f.alice.webAuthToken),
                json: #"{"zones":[{"zoneName":"Notes"},{"zoneName":"Missing"},{"zoneName":"BobsZone"}]}"#
            )
            #expect(response.status == .ok)
            let zones = try #require(try response.json["zones"] as? [[String: Any]])
            #expect(zones.count == 3)
            #expect((zones[0]["zoneID"] as? [String: Any])?["zoneName"] as? String == "Notes")
            #expect(zones[0]["syncToken"] is String)
            #expect(zones[1]["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
            #expect(zones[2]["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
            #expect(zones[1]["reason"] as? String == zones[2]["reason"] as? String, "another user's zone must look like a missing one")
        }
    }
}
