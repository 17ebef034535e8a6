//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusStore
import Synchronization
import Testing

/// A backend's webhook: the notifications of a server-to-server key's subscriptions, POSTed
/// signed to a URL and sent again until the receiver takes them.
@Suite("webhooks of server-to-server keys", .timeLimit(.minutes(1)))
struct WebhookTests {
    /// A receiver on loopback that answers each POST with the next scripted status (200 once
    /// the script runs out) and hands the test each request.
    struct Receiver {
        let url: String
        let requests: AsyncStream<(headers: [String: String], body: [UInt8])>
    }

    static func withReceiver(answering script: [HTTPResponse.Status], _ body: (Receiver) async throws -> Void) async throws {
        let (requests, continuation) = AsyncStream.makeStream(of: (headers: [String: String], body: [UInt8]).self)
        let remaining = Mutex(script)
        let router = Router()
        router.post("hook") { request, _ -> Response in
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            continuation.yield((headers, Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)))
            let status = remaining.withLock { $0.isEmpty ? .ok : $0.removeFirst() }
            return Response(status: status)
        }
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .error
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw FixtureFailure("the webhook receiver did not start") }
        try await body(Receiver(url: "http://127.0.0.1:\(port)/hook", requests: requests))
    }

    @Test("a key's notifications are POSTed signed, retried after a refusal, with the inbox's sequence numbers and IDs")
    func deliveries() async throws {
        try await Self.withReceiver(answering: [.serviceUnavailable]) { receiver in
            try await HTTPFixture.with { f, client in
                let key = try await OpenSSLKey.make()
                let keyID = try await f.instance.accounts.addServerKey(publicKeyPEM: key.publicKeyPEM, container: HTTPFixture.container)
                let container = ContainerEnvironment(container: HTTPFixture.container, environment: .development)
                await #expect(throws: NimbusError.self) {
                    _ = try await f.instance.configureWebhook(keyID: keyID, container: container, url: "http://example.com/hook")
                }
                await #expect(throws: NimbusError.self, "a name that begins like a loopback address is not one") {
                    _ = try await f.instance.configureWebhook(keyID: keyID, container: container, url: "http://127.example.com/hook")
                }
                let secretHex = try await f.instance.configureWebhook(keyID: keyID, container: container, url: receiver.url)
                #expect(secretHex.count == 64)
                // The key subscribes to notes in the public database, as ServerKeyNotificationTests does.
                let subscription = try await f.instance.database.modifySubscriptions(
                    [
                        .create(
                            Subscription(
                                subscriptionID: "notes",
                                kind: .query(Query(recordType: "Note"), zoneID: nil, firesOn: [.create], firesOnce: false)
                            )
                        )
                    ],
                    access: DatabaseAccess(
                        caller: Caller(
                            container: HTTPFixture.container,
                            environment: .development,
                            kind: .serverKey,
                            userRecordName: f.alice.user.userRecordName,
                            keyID: keyID
                        ),
                        scope: .public
                    )
                )
                guard case .saved? = subscription.first else { throw FixtureFailure("not subscribed: \(subscription)") }
                let saved = try await client.send(
                    .post,
                    f.path("records/modify", scope: "public", user: f.alice.webAuthToken),
                    json: #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{}}}]}"#
                )
                #expect(saved.status == .ok)

                var deliveries = receiver.requests.makeAsyncIterator()
                let refused = try #require(await deliveries.next())
                // The receiver said 503: the same notifications go again once the back-off (one
                // second after a first failure) is over on the server's clock, which is the test's.
                await f.waitForIdleLoops()
                f.clock.advance(by: .seconds(1))
                let accepted = try #require(await deliveries.next())
                #expect(accepted.body == refused.body)

                let signature = try #require(accepted.headers["x-nimbus-signature"])
                let parts = Dictionary(
                    uniqueKeysWithValues: signature.split(separator: ",").map { part in
                        let pair = part.split(separator: "=", maxSplits: 1)
                        return (String(pair[0]), String(pair.count > 1 ? pair[1] : ""))
                    }
                )
                // The secret as printed is the HMAC key, as a receiver would use it.
                let secret = Array(secretHex.utf8)
                let mac = HMAC<SHA256>.authenticationCode(for: Array("\(parts["t"] ?? "").".utf8) + accepted.body, using: SymmetricKey(data: secret))
                #expect(parts["v1"] == mac.map { String(format: "%02x", $0) }.joined(), "the signature verifies with the secret")

                let delivered = try #require(try JSONSerialization.jsonObject(with: Data(accepted.body)) as? [String: Any])
                let messages = try #require(delivered["notifications"] as? [[String: Any]])
                let inbox = try await f.instance.dispatcher.inbox(of: Caller.recipient(ofKey: keyID), in: container, after: 0, limit: 10)
                #expect(messages.map { $0["sequence"] as? Int } == inbox.map { Int($0.sequence) })
                #expect(messages.map { $0["id"] as? String } == inbox.map(\.notificationID))
                #expect(String(decoding: accepted.body, as: UTF8.self).contains("n1"))
                #expect(try await f.instance.removeWebhook(keyID: keyID, container: container))
            }
        }
    }
}
