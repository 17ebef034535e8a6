//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusAPNs
import Testing

/// Pushes to Apple devices, against a fake APNs server that checks every request as APNs does.
@Suite("APNs delivery", .timeLimit(.minutes(2)))
struct APNsDeliveryTests {
    /// A device token, in the hexadecimal form apps send.
    static func deviceToken(_ digit: Character) -> String { String(repeating: digit, count: 64) }

    /// One zone subscription with an alert, on the default zone.
    static let alertSubscription =
        #"{"operations": [{"operationType": "create", "subscription": {"subscriptionType": "zone", "subscriptionID": "alerts", "#
        + #""zoneID": {"zoneName": "_defaultZone"}, "notificationInfo": {"alertBody": "A note changed"}}}]}"#

    static let subscriptions = """
        {"operations": [
          {"operationType": "create", "subscription": {"subscriptionType": "zone", "subscriptionID": "alerts",
            "zoneID": {"zoneName": "_defaultZone"},
            "notificationInfo": {"alertBody": "A note changed", "soundName": "default", "collapseIDKey": "notes"}}},
          {"operationType": "create", "subscription": {"subscriptionType": "zone", "subscriptionID": "sync",
            "zoneID": {"zoneName": "_defaultZone"}, "notificationInfo": {"shouldSendContentAvailable": true}}}]}
        """

    /// The server's APNs settings for a fake: both environments at the fake, its certificate trusted.
    static func configuration(_ fake: FakeAPNs, url: String) -> APNsConfiguration {
        APNsConfiguration(
            keyPEM: fake.signingKeyPEM,
            keyID: fake.keyID,
            teamID: fake.teamID,
            developmentURL: url,
            productionURL: url,
            additionalTrustRootsPEM: fake.certificatePEM
        )
    }

    static func register(
        _ token: String,
        device: String,
        environment: String = "development",
        user: String,
        f: HTTPFixture,
        client: any TestClientProtocol
    )
        async throws -> TestResponse
    {
        let query = "ckAPIToken=\(f.apiToken)&ckWebAuthToken=" + user.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try await client.send(
            .post,
            "/database/1/\(HTTPFixture.container)/development/tokens/register?\(query)",
            json: #"{"apnsEnvironment": "\#(environment)", "apnsToken": "\#(token)"}"#,
            headers: [HTTPField.Name("X-Nimbus-Device-ID")!: device]
        )
    }

    static func save(_ name: String, device: String, f: HTTPFixture, client: any TestClientProtocol) async throws {
        let response = try await client.send(
            .post,
            f.path("records/modify", user: f.alice.webAuthToken),
            json: #"{"operations": [{"operationType": "create", "record": {"recordName": "\#(name)", "recordType": "Note"}}]}"#,
            headers: [HTTPField.Name("X-Nimbus-Device-ID")!: device]
        )
        #expect(response.status == .ok)
    }

    @Test(
        "a change is pushed over HTTP/2 to the user's other devices: provider token, topic, push type, priority, collapse ID and the ck payload"
    )
    func pushes() async throws {
        try await FakeAPNs.with(topic: "test.http") { fake, url in
            try await HTTPFixture.with(apns: Self.configuration(fake, url: url)) { f, client in
                let alice = f.alice.webAuthToken
                let response = try await client.send(.post, f.path("subscriptions/modify", user: alice), json: Self.subscriptions)
                #expect(response.status == .ok)
                // The phone sends its token in hexadecimal, the laptop in base64 (how `Data` goes into JSON).
                #expect(try await Self.register(Self.deviceToken("a"), device: "phone", user: alice, f: f, client: client).status == .ok)
                let laptopBytes = Data(repeating: 0xbb, count: 32)
                #expect(try await Self.register(laptopBytes.base64EncodedString(), device: "laptop", user: alice, f: f, client: client).status == .ok)

                try await Self.save("n1", device: "phone", f: f, client: client)
                let received = try await fake.waitForRequests(2)
                // Anything sent to the phone was sent in the same pass as the laptop's pushes.
                await f.waitForIdleLoops()
                #expect(fake.received.count == 2, "\(fake.received.map(\.deviceToken))")
                for push in received {
                    #expect(push.deviceToken == Self.deviceToken("b"), "the writing device gets nothing; base64 became hex")
                    #expect(push.overHTTP2)
                    #expect(push.problem == nil, "APNs would refuse it: \(push.problem ?? "")")
                    #expect(push.headers["apns-topic"] == "test.http")
                    #expect(push.headers["apns-id"]?.lowercased() == push.ck["nid"] as? String)
                    #expect(push.ck["cid"] as? String == HTTPFixture.container)
                }
                let alert = try #require(received.first { $0.headers["apns-push-type"] == "alert" })
                #expect(alert.headers["apns-priority"] == "10")
                #expect(alert.headers["apns-collapse-id"] == "notes")
                #expect((alert.ck["fet"] as? [String: Any])?["sid"] as? String == "alerts")
                let aps = try #require(alert.json["aps"] as? [String: Any])
                #expect((aps["alert"] as? [String: Any])?["body"] as? String == "A note changed")
                #expect(aps["sound"] as? String == "default")
                let silent = try #require(received.first { $0.headers["apns-push-type"] == "background" })
                #expect(silent.headers["apns-priority"] == "5")
                #expect(silent.headers["apns-collapse-id"] == nil)
                #expect((silent.ck["fet"] as? [String: Any])?["sid"] as? String == "sync")
                #expect((silent.json["aps"] as? [String: Any])?["content-available"] as? Int == 1)
                #expect(alert.ck["nimbus"] != nil && alert.ck["p"] == nil, "a small payload keeps Nimbus's details")

                // Forty records with long names in one request: their list would pass APNs' 4 KB,
                // so the push leaves Nimbus's details out and says it was pruned.
                let operations = (0..<40).map { index in
                    #"{"operationType": "create", "record": {"recordName": "\#(String(repeating: "x", count: 200))\#(index)", "recordType": "Note"}}"#
                }
                let bulk = try await client.send(
                    .post,
                    f.path("records/modify", user: alice),
                    json: #"{"operations": [\#(operations.joined(separator: ","))]}"#
                )
                #expect(bulk.status == .ok)
                // No device sent it: the phone and the laptop both get both pushes.
                let pruned = try await fake.waitForRequests(6).dropFirst(2)
                #expect(pruned.count == 4)
                #expect(Set(pruned.map(\.deviceToken)) == [Self.deviceToken("a"), Self.deviceToken("b")])
                for push in pruned {
                    #expect(push.problem == nil, "APNs would refuse it: \(push.problem ?? "")")
                    #expect(push.payload.count <= 4096 && push.ck["p"] as? Bool == true && push.ck["nimbus"] == nil)
                    #expect(push.ck["fet"] != nil)
                }
            }
        }
    }

    @Test("a token APNs calls unregistered is removed; a throttled push is tried again with back-off and arrives once, with its ID")
    func failures() async throws {
        try await FakeAPNs.with(topic: "test.http") { fake, url in
            try await HTTPFixture.with(apns: Self.configuration(fake, url: url)) { f, client in
                let alice = f.alice.webAuthToken
                #expect(try await client.send(.post, f.path("subscriptions/modify", user: alice), json: Self.alertSubscription).status == .ok)
                let gone = Self.deviceToken("c")
                let busy = Self.deviceToken("d")
                fake.script(gone, [.init(status: 410, reason: "Unregistered")])
                fake.script(busy, [.init(status: 429, reason: "TooManyRequests"), .init(status: 503, reason: "ServiceUnavailable")])
                #expect(try await Self.register(gone, device: "old-phone", user: alice, f: f, client: client).status == .ok)
                #expect(try await Self.register(busy, device: "tablet", environment: "production", user: alice, f: f, client: client).status == .ok)

                try await Self.save("n1", device: "web", f: f, client: client)
                _ = try await fake.waitForRequests(2)
                #expect(try await Self.eventually(f, "SELECT count(*) FROM push_tokens WHERE apns_token = '\(gone)'", is: "0"))
                // The throttled push waits out its back-off (one second, then two) on the server's
                // clock, which moves only when the test says; each step waits until the server
                // has taken in APNs' last answer and its loops sleep again (a loop still awake
                // when the clock moves would sleep past the back-off's end).
                let failures = "SELECT failures FROM push_tokens WHERE apns_token = '\(busy)'"
                #expect(try await Self.eventually(f, failures, is: "1"))
                // The delivery loop went back to sleep without trying again; once the clock
                // passes the back-off, the retry comes (so the check below could fail).
                await f.waitForIdleLoops()
                #expect(fake.received.filter { $0.deviceToken == busy }.count == 1, "no retry before the back-off ends")
                f.clock.advance(by: .seconds(1))
                _ = try await fake.waitForRequests(3)
                #expect(try await Self.eventually(f, failures, is: "2"))
                await f.waitForIdleLoops()
                f.clock.advance(by: .seconds(2))
                _ = try await fake.waitForRequests(4)
                #expect(try await Self.eventually(f, failures, is: "0"))
                let tries = fake.received.filter { $0.deviceToken == busy }
                #expect(tries.count == 3)
                #expect(Set(tries.compactMap { $0.headers["apns-id"] }).count == 1, "every try carries the same notification ID")

                // A second change: the removed token gets nothing, the other its next push.
                try await Self.save("n2", device: "web", f: f, client: client)
                _ = try await fake.waitForRequests(5)
                await f.waitForIdleLoops()
                #expect(fake.received.filter { $0.deviceToken == gone }.count == 1)
                #expect(fake.received.filter { $0.deviceToken == busy }.count == 4)
                #expect(fake.received.allSatisfy { $0.problem == nil })
            }
        }
    }

    @Test("a provider token APNs calls expired is signed anew for the next try")
    func expiredProviderToken() async throws {
        try await FakeAPNs.with(topic: "test.http") { fake, url in
            try await HTTPFixture.with(apns: Self.configuration(fake, url: url)) { f, client in
                let alice = f.alice.webAuthToken
                #expect(try await client.send(.post, f.path("subscriptions/modify", user: alice), json: Self.alertSubscription).status == .ok)
                let device = Self.deviceToken("f")
                fake.script(device, [.init(status: 403, reason: "ExpiredProviderToken")])
                #expect(try await Self.register(device, device: "phone", user: alice, f: f, client: client).status == .ok)
                try await Self.save("n1", device: "web", f: f, client: client)
                _ = try await fake.waitForRequests(1)
                #expect(try await Self.eventually(f, "SELECT failures FROM push_tokens WHERE apns_token = '\(device)'", is: "1"))
                await f.waitForIdleLoops()
                f.clock.advance(by: .seconds(1))
                let tries = try await fake.waitForRequests(2)
                #expect(tries.count == 2 && tries.allSatisfy { $0.problem == nil })
                #expect(tries.first?.headers["authorization"] != tries.last?.headers["authorization"], "the same provider token was sent again")
            }
        }
    }

    /// Whether `sql` comes to answer `expected` within ten seconds.
    static func eventually(_ f: HTTPFixture, _ sql: String, is expected: String) async throws -> Bool {
        for _ in 0..<100 {
            if try await f.database.inspect(sql) == expected { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test("tokens/register refuses what is not a device token")
    func badTokens() async throws {
        try await HTTPFixture.with { f, client in
            for token in ["", "not a token", "abc", String(repeating: "g-", count: 32)] {
                let response = try await Self.register(token, device: "phone", user: f.alice.webAuthToken, f: f, client: client)
                try response.expectError("BAD_REQUEST", status: .badRequest)
            }
        }
    }
}
