//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import HummingbirdWSClient
import Logging
import NimbusTestSupport
import Testing

/// The WebSocket notification channel, against a live server.
@Suite("notifications over WebSocket")
struct NotificationSocketTests {
    /// A WebSocket client that hands the test each text message it receives.
    final class SocketProbe: Sendable {
        let messages: AsyncStream<String>
        private let continuation: AsyncStream<String>.Continuation
        private let task: Task<Void, any Error>

        /// Connects and returns once the server accepted the upgrade.
        static func open(_ url: String, headers: HTTPFields = [:]) async throws -> SocketProbe {
            let (opened, openedContinuation) = AsyncStream.makeStream(of: Bool.self)
            let probe = SocketProbe(url: url, headers: headers, opened: openedContinuation)
            var iterator = opened.makeAsyncIterator()
            guard await iterator.next() == true else { throw FixtureFailure("the server refused the WebSocket at \(url)") }
            return probe
        }

        private init(url: String, headers: HTTPFields, opened: AsyncStream<Bool>.Continuation) {
            let (messages, continuation) = AsyncStream.makeStream(of: String.self)
            self.messages = messages
            self.continuation = continuation
            var configuration = WebSocketClientConfiguration()
            configuration.additionalHeaders = headers
            task = Task {
                defer { opened.yield(false); opened.finish(); continuation.finish() }
                try await WebSocketClient.connect(url: url, configuration: configuration, logger: Logger(label: "probe")) { inbound, _, _ in
                    opened.yield(true)
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        if case .text(let text) = message { continuation.yield(text) }
                    }
                }
            }
        }

        /// The next message as JSON, or `nil` if none comes within `timeout`.
        func next(within timeout: Duration = .seconds(5)) async -> [String: Any]? {
            let messages = messages
            let text = await withTaskGroup(of: String?.self) { group in
                group.addTask {
                    var iterator = messages.makeAsyncIterator()
                    return await iterator.next()
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let text else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }

        func close() {
            task.cancel()
        }
    }

    static func streamURL(_ f: HTTPFixture, port: Int, token: String?, query: String = "") -> String {
        var url = "ws://127.0.0.1:\(port)/database/1/\(HTTPFixture.container)/development/notifications/ws?ckAPIToken=\(f.apiToken)"
        if let token { url += "&ckWebAuthToken=" + token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        return url + query
    }

    static func subscribeToDefaultZone(_ f: HTTPFixture, _ client: some TestClientProtocol) async throws {
        let response = try await client.send(
            .post,
            f.path("subscriptions/modify", user: f.alice.webAuthToken),
            json:
                #"{"operations": [{"operationType": "create", "subscription": {"subscriptionID": "notes", "subscriptionType": "zone", "zoneID": {"zoneName": "_defaultZone"}, "notificationInfo": {"shouldSendContentAvailable": true}}}]}"#
        )
        #expect(response.status == .ok)
    }

    static func save(_ name: String, _ f: HTTPFixture, _ client: some TestClientProtocol, device: String) async throws {
        let response = try await client.send(
            .post,
            f.path("records/modify", user: f.alice.webAuthToken),
            json: #"{"operations": [{"operationType": "create", "record": {"recordName": "\#(name)", "recordType": "Note", "fields": {}}}]}"#,
            headers: [HTTPField.Name("X-Nimbus-Device-ID")!: device]
        )
        #expect(response.status == .ok)
    }

    @Test("a change reaches connected devices in sequence, skips the device that made it, and replays after a reconnect")
    func deliverSkipAndReplay() async throws {
        try await HTTPFixture.with { f, client in
            let port = try #require(client.port)
            try await Self.subscribeToDefaultZone(f, client)
            let tablet = try await SocketProbe.open(Self.streamURL(f, port: port, token: f.alice.webAuthToken, query: "&deviceID=tablet"))
            let laptop = try await SocketProbe.open(Self.streamURL(f, port: port, token: f.alice.webAuthToken))
            defer {
                tablet.close()
                laptop.close()
            }
            try await Self.save("n1", f, client, device: "phone")
            let first = try #require(await tablet.next())
            #expect(first["sequence"] as? Int == 1)
            #expect((first["id"] as? String)?.isEmpty == false)
            let ck = try #require(first["ck"] as? [String: Any])
            #expect((ck["fet"] as? [String: Any])?["sid"] as? String == "notes")
            #expect(ck["nid"] as? String == first["id"] as? String)
            #expect((first["aps"] as? [String: Any])?["content-available"] as? Int == 1)
            #expect(await laptop.next()?["sequence"] as? Int == 1)

            // The tablet's own change goes to the laptop only.
            try await Self.save("n2", f, client, device: "tablet")
            #expect(await laptop.next()?["sequence"] as? Int == 2)
            try await Self.save("n3", f, client, device: "phone")
            #expect(await tablet.next()?["sequence"] as? Int == 3, "the tablet got its own change, or missed the next")

            // A device that reconnects after sequence 1 gets 2 and 3 from the inbox, then live ones.
            let returning = try await SocketProbe.open(Self.streamURL(f, port: port, token: f.alice.webAuthToken, query: "&after=1"))
            defer { returning.close() }
            #expect(await returning.next()?["sequence"] as? Int == 2)
            #expect(await returning.next()?["sequence"] as? Int == 3)
            try await Self.save("n4", f, client, device: "phone")
            #expect(await returning.next()?["sequence"] as? Int == 4)
        }
    }

    @Test("the stream refuses bad credentials with a CloudKit error, and plain HTTP with a reason")
    func refusals() async throws {
        try await HTTPFixture.with { f, client in
            let port = try #require(client.port)
            await #expect(throws: (any Error).self) {
                _ = try await SocketProbe.open(Self.streamURL(f, port: port, token: "forged"))
            }
            await #expect(throws: (any Error).self) {
                _ = try await SocketProbe.open(Self.streamURL(f, port: port, token: nil))
            }
            let path = "/database/1/\(HTTPFixture.container)/development/notifications/ws?ckAPIToken=\(f.apiToken)"
            let anonymous = try await client.send(.get, path)
            try anonymous.expectError("AUTHENTICATION_REQUIRED", status: .misdirectedRequest)
            let plain = try await client.send(
                .get,
                path + "&ckWebAuthToken=" + f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            )
            let reason = try plain.expectError("BAD_REQUEST", status: .badRequest)
            #expect(reason.contains("WebSocket"))
            let token = f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let badAfter = try await client.send(.get, path + "&ckWebAuthToken=\(token)&after=yesterday")
            #expect(try badAfter.expectError("BAD_REQUEST", status: .badRequest).contains("after"))
            await #expect(throws: (any Error).self) {
                _ = try await SocketProbe.open(Self.streamURL(f, port: port, token: f.alice.webAuthToken, query: "&after=-3"))
            }
        }
    }

    @Test(
        "a refused upgrade answers with the CloudKit error the same URL gets without Upgrade",
        arguments: [("", "AUTHENTICATION_REQUIRED", 421), ("forged", "AUTHENTICATION_FAILED", 401), ("alice&after=-5", "BAD_REQUEST", 400)]
    )
    func refusedUpgrades(token: String, code: String, status: Int) async throws {
        try await HTTPFixture.with { f, client in
            let port = try #require(client.port)
            let user = token.replacingOccurrences(
                of: "alice",
                with: f.alice.webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            )
            let url =
                "http://127.0.0.1:\(port)/database/1/\(HTTPFixture.container)/development/notifications/ws?ckAPIToken=\(f.apiToken)"
                + (token.isEmpty ? "" : "&ckWebAuthToken=\(user)")
            func answer(upgrading: Bool) async throws -> (status: Int, body: [String: Any]) {
                let upgrade = [
                    "-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H", "Sec-WebSocket-Version: 13", "-H",
                    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                ]
                let result = try await ProcessLaunch.runToCompletion(
                    "/usr/bin/env",
                    ["curl", "-s", "--max-time", "10", "-o", "-", "-w", "\n%{http_code}"] + (upgrading ? upgrade : []) + [url]
                )
                let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
                let body = lines.dropLast().joined(separator: "\n")
                let json = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
                return (Int(lines.last ?? "") ?? 0, json)
            }
            let upgraded = try await answer(upgrading: true)
            let plain = try await answer(upgrading: false)
            #expect(upgraded.status == status, "\(upgraded)")
            #expect(upgraded.body["serverErrorCode"] as? String == code, "\(upgraded.body)")
            #expect(upgraded.body["serverErrorCode"] as? String == plain.body["serverErrorCode"] as? String)
            #expect(upgraded.body["reason"] as? String == plain.body["reason"] as? String)
            #expect(upgraded.body["redirectURL"] as? String == plain.body["redirectURL"] as? String)
            if status == 421 { #expect((upgraded.body["redirectURL"] as? String)?.contains("/signin/") == true) }
        }
    }
}
