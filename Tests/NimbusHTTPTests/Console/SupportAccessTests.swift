//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NimbusEngine
import NimbusHTTP
import NimbusModel
import NimbusServer
import NimbusStore
import Testing

/// Support access with the user's consent: without a grant the console shows counts, never
/// contents; under a grant every read is recorded where the user sees it.
@Suite("console: support access with the user's consent")
struct SupportAccessTests {
    static let base = "/console/containers/\(HTTPFixture.container)/development/users/"

    /// Alice's private zone `Diary` with one record, and a zone `Work` with another.
    static func aliceWrites(_ f: HTTPFixture, _ client: some TestClientProtocol) async throws {
        let creates = ["Diary", "Work"].map { #"{"operationType":"create","zone":{"zoneID":{"zoneName":"\#($0)"}}}"# }
        let zones = try await client.send(
            .post,
            f.path("zones/modify", user: f.alice.webAuthToken),
            json: #"{"operations":[\#(creates.joined(separator: ","))]}"#
        )
        #expect(zones.status == .ok)
        for (zone, text) in [("Diary", "a private thought"), ("Work", "the quarterly plan")] {
            let record = #"{"recordType":"Entry","fields":{"text":{"value":"\#(text)"}}}"#
            let saved = try await client.send(
                .post,
                f.path("records/modify", user: f.alice.webAuthToken),
                json: #"{"zoneID":{"zoneName":"\#(zone)"},"operations":[{"operationType":"create","record":\#(record)}]}"#
            )
            #expect(saved.status == .ok)
        }
    }

    static func support(_ f: HTTPFixture, _ client: some TestClientProtocol, _ operation: String, _ json: String) async throws -> TestResponse {
        try await client.send(.post, f.path("users/support/\(operation)", user: f.alice.webAuthToken), json: json)
    }

    @Test("without a grant, the data page is refused and shows nothing; a grant opens it, every read is recorded and the user lists the reads")
    func grantReadAndSeeReads() async throws {
        try await HTTPFixture.with { f, client in
            try await Self.aliceWrites(f, client)
            let reader = try await ConsoleTests.session(f, email: "reader@example.com", role: .readOnly)
            let user = f.alice.user.userRecordName
            let refused = try await client.browse(.get, Self.base + user + "/data", cookie: reader)
            #expect(refused.status == .forbidden)
            #expect(!String(buffer: refused.body).contains("Diary"))
            let direct = try await client.browse(.get, Self.base + user + "/data?database=private&zone=Diary", cookie: reader)
            #expect(direct.status == .forbidden)
            #expect(!String(buffer: direct.body).contains("a private thought"))
            #expect(try await f.instance.operators.auditLog().allSatisfy { $0.action != "support.read" })

            let granted = try await Self.support(f, client, "grant", #"{"hours":2}"#)
            #expect(granted.status == .ok, "\(String(buffer: granted.body))")
            let grants = try #require(try granted.json["grants"] as? [[String: Any]])
            #expect(grants.count == 1 && grants[0]["live"] as? Bool == true && grants[0]["zoneName"] == nil)

            let profile = String(buffer: try await client.browse(.get, Self.base + user, cookie: reader).body)
            #expect(profile.contains("granted support access to all their data"))
            let zones = try await client.browse(.get, Self.base + user + "/data", cookie: reader)
            #expect(zones.status == .ok)
            #expect(String(buffer: zones.body).contains("Diary") && String(buffer: zones.body).contains("Work"))
            let records = try await client.browse(.get, Self.base + user + "/data?database=private&zone=Diary", cookie: reader)
            #expect(records.status == .ok)
            #expect(String(buffer: records.body).contains("a private thought"))
            #expect(!String(buffer: records.body).contains("the quarterly plan"))

            // The user sees both reads, by whom and of what; the audit log has them too.
            let listed = try await Self.support(f, client, "list", "{}")
            let reads = try #require((try listed.json["grants"] as? [[String: Any]])?.first?["reads"] as? [[String: Any]])
            #expect(reads.count == 2)
            #expect(reads.allSatisfy { $0["operator"] as? String == "reader@example.com" })
            #expect(reads.first?["what"] as? String == "the records of zone Diary (private database)")
            let audited = try await f.instance.operators.auditLog().filter { $0.action == "support.read" }
            #expect(audited.count == 2 && audited.allSatisfy { $0.subjectUser == user })
        }
    }

    @Test("a grant to one zone opens that zone only; a revoked or expired grant opens nothing")
    func zoneRevokeAndExpiry() async throws {
        try await HTTPFixture.with { f, client in
            try await Self.aliceWrites(f, client)
            let admin = try await ConsoleTests.session(f, email: "admin@example.com", role: .admin)
            let user = f.alice.user.userRecordName
            let granted = try await Self.support(f, client, "grant", #"{"hours":1,"zoneName":"Diary"}"#)
            let grantID = try #require((try granted.json["grants"] as? [[String: Any]])?.first?["grantID"] as? String)
            let zones = String(buffer: try await client.browse(.get, Self.base + user + "/data", cookie: admin).body)
            #expect(zones.contains("Diary") && !zones.contains("Work"))
            let other = try await client.browse(.get, Self.base + user + "/data?database=private&zone=Work", cookie: admin)
            #expect(other.status == .forbidden)
            #expect(!String(buffer: other.body).contains("the quarterly plan"))

            // Revoked: nothing opens, at once.
            let revoked = try await Self.support(f, client, "revoke", #"{"grantID":"\#(grantID)"}"#)
            #expect(revoked.status == .ok)
            #expect((try revoked.json["grants"] as? [[String: Any]])?.first?["live"] as? Bool == false)
            #expect(try await client.browse(.get, Self.base + user + "/data?database=private&zone=Diary", cookie: admin).status == .forbidden)
            // Revoking it again: there is no such live grant.
            #expect(try await Self.support(f, client, "revoke", #"{"grantID":"\#(grantID)"}"#).status == .notFound)

            // A new grant ends by itself after its hours.
            #expect(try await Self.support(f, client, "grant", #"{"hours":1}"#).status == .ok)
            #expect(try await client.browse(.get, Self.base + user + "/data", cookie: admin).status == .ok)
            f.clock.advance(by: .seconds(3601))
            #expect(try await client.browse(.get, Self.base + user + "/data", cookie: admin).status == .forbidden)
        }
    }

    @Test("under a grant of all their data, the console shows their subscriptions and runs their dry run; a grant of one zone does not")
    func subscriptionsAndDryRun() async throws {
        try await HTTPFixture.with { f, client in
            try await Self.aliceWrites(f, client)
            let subscription = try await client.send(
                .post,
                f.path("subscriptions/modify", user: f.alice.webAuthToken),
                json: """
                    {"operations": [{"operationType": "create", "subscription": {"subscriptionType": "zone", "subscriptionID": "diary-watch",
                      "zoneID": {"zoneName": "Diary"}, "notificationInfo": {"alertBody": "Diary changed"}}}]}
                    """
            )
            #expect(subscription.status == .ok)
            let entries = try await client.send(
                .post,
                f.path("records/query", user: f.alice.webAuthToken),
                json: #"{"zoneID":{"zoneName":"Diary"},"query":{"recordType":"Entry"}}"#
            )
            let recordName = try #require((try entries.json["records"] as? [[String: Any]])?.first?["recordName"] as? String)
            let admin = try await ConsoleTests.session(f, email: "admin@example.com", role: .admin)
            let user = f.alice.user.userRecordName

            // A grant of one zone: the zone's records, not her account.
            #expect(try await Self.support(f, client, "grant", #"{"hours":1,"zoneName":"Diary"}"#).status == .ok)
            let narrow = String(buffer: try await client.browse(.get, Self.base + user + "/data", cookie: admin).body)
            #expect(narrow.contains("Diary") && !narrow.contains("diary-watch"))
            let refused = try await client.browse(
                .get,
                Self.base + user + "/data?subscription=private%7Cdiary-watch&record=\(recordName)&explainZone=Diary",
                cookie: admin
            )
            #expect(!String(buffer: refused.body).contains("would notify"))

            // A grant of all her data: the subscription and its dry run, her device and how far it delivered.
            let query =
                "ckAPIToken=\(f.apiToken)&ckWebAuthToken=" + f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let registered = try await client.send(
                .post,
                "/database/1/\(HTTPFixture.container)/development/tokens/register?\(query)",
                json: #"{"apnsEnvironment": "development", "apnsToken": "\#(String(repeating: "ab", count: 32))"}"#,
                headers: [HTTPField.Name("X-Nimbus-Device-ID")!: "alices-phone"]
            )
            #expect(registered.status == .ok)
            #expect(try await Self.support(f, client, "grant", #"{"hours":1}"#).status == .ok)
            let page = String(buffer: try await client.browse(.get, Self.base + user + "/data", cookie: admin).body)
            #expect(page.contains("diary-watch") && page.contains("zone Diary"))
            #expect(page.contains("APNs (development)") && page.contains("alices-phone"), "\(page)")
            let dryRun = String(
                buffer: try await client.browse(
                    .get,
                    Self.base + user + "/data?subscription=private%7Cdiary-watch&record=\(recordName)&explainZone=Diary",
                    cookie: admin
                ).body
            )
            #expect(dryRun.contains("A change to \(recordName) would notify them: visible"), "\(dryRun)")
            let reads = try await f.instance.operators.auditLog().filter { $0.action == "support.read" }.map(\.target)
            #expect(reads.contains("a dry run of subscription diary-watch on record \(recordName)"))
        }
    }

    @Test("bad grants are 4xx and keep nothing: hours out of range, a zone the user does not have, no signed-in user")
    func badGrants() async throws {
        try await HTTPFixture.with { f, client in
            for body in [#"{"hours":0}"#, #"{"hours":169}"#, #"{"hours":"two"}"#, #"{"zoneName":"Nowhere"}"#, "[1]"] {
                let refused = try await Self.support(f, client, "grant", body)
                #expect((400..<500).contains(Int(refused.status.code)), "\(body): \(refused.status)")
                #expect(try refused.json["serverErrorCode"] is String, "\(body)")
            }
            let anonymous = try await client.send(.post, f.path("users/support/grant", scope: "public"), json: "{}")
            let anonymousCode = try anonymous.json["serverErrorCode"] as? String
            #expect(anonymous.status.code == 421 && anonymousCode == "AUTHENTICATION_REQUIRED")
            let listed = try await Self.support(f, client, "list", "{}")
            #expect((try listed.json["grants"] as? [Any])?.isEmpty == true)
        }
    }
}
