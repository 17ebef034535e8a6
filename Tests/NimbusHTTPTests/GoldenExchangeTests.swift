//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// Replays Fixtures/golden-exchanges.md: requests existing clients send that Nimbus once
/// answered wrongly, each with the answer the client needs.
@Suite("golden exchanges: requests Nimbus once answered wrongly")
struct GoldenExchangeTests {
    @Test("each golden request gets the answer its client needs")
    func replay() async throws {
        let requests = try ClientCaptureTests.captures(in: "golden-exchanges.md")
        let text = try ClientCaptureTests.fixtureText("golden-exchanges.md")
        let pem = try #require(text.components(separatedBy: "```pem\n").last?.components(separatedBy: "```").first)
        @Sendable func items(_ prefix: String) -> [ClientCaptureTests.CapturedRequest] { requests.filter { $0.client.hasPrefix(prefix) } }
        #expect(["Item 8", "Item 9", "Item 10", "Item 11"].allSatisfy { !items($0).isEmpty })

        // The requests were signed on 2026-11-26; a wide date window lets them verify later.
        try await HTTPFixture.with(signatureWindowSeconds: 50 * 365 * 24 * 3600, seed: ClientCaptureTests.seed) { f, client in
            _ = try await f.instance.accounts.addServerKey(publicKeyPEM: pem, container: ClientCaptureTests.container)

            // Item 8: the sync token is standard base64.
            let changes = try await ClientCaptureTests.send(try #require(items("Item 8").first), with: client)
            let token = try #require(try changes.json["syncToken"] as? String)
            #expect(Data(base64Encoded: token) != nil, "\(token)")

            // Item 9: half the token's life (one hour) on, and two minutes later, the client that
            // ignores the rotated token it was handed is still signed in.
            let zones = try #require(items("Item 9").first)
            f.clock.advance(by: .seconds(31 * 60))
            let rotated = try await ClientCaptureTests.send(zones, with: client)
            #expect(rotated.status == .ok)
            #expect(rotated.headers[HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!] != nil)
            f.clock.advance(by: .seconds(120))
            #expect(try await ClientCaptureTests.send(zones, with: client).status == .ok)

            // Item 10: the key subscribes, and gets a web courier.
            let item10 = items("Item 10")
            let subscribed = try await ClientCaptureTests.send(item10[0], with: client).json
            #expect((subscribed["subscriptions"] as? [[String: Any]])?.first?["serverErrorCode"] == nil, "\(subscribed)")
            #expect((subscribed["subscriptions"] as? [[String: Any]])?.count == 1, "\(subscribed)")
            let courier = try await ClientCaptureTests.send(item10[1], with: client).json
            #expect((courier["webcourierURL"] as? String)?.contains("/webcourier/") == true, "\(courier)")

            // Item 11, in order: a zone; its share with __defaultOwner__; a record with a field
            // sent as {}; a body that is not JSON; PUT.
            let item11 = items("Item 11")
            #expect(try await ClientCaptureTests.send(item11[0], with: client).status == .ok)
            let share = try await ClientCaptureTests.send(item11[1], with: client)
            let shareRecord = try #require((try share.json["records"] as? [[String: Any]])?.first)
            #expect(shareRecord["serverErrorCode"] == nil, "\(shareRecord)")
            let note = try await ClientCaptureTests.send(item11[2], with: client)
            let saved = try #require((try note.json["records"] as? [[String: Any]])?.first)
            #expect((saved["fields"] as? [String: Any])?.keys.sorted() == ["title"], "\(saved)")
            try await ClientCaptureTests.send(item11[3], with: client).expectError("BAD_REQUEST", status: .badRequest)
            try await ClientCaptureTests.send(item11[4], with: client).expectError("BAD_REQUEST", status: .methodNotAllowed)
        }
    }
}
