//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HummingbirdWSClient
import Logging
import NimbusClient
import NimbusModel
import Testing

@Suite("NimbusClient: subscriptions and the notification inbox against a live server", .timeLimit(.minutes(2)))
struct NotificationClientTests {
    let notes = ZoneID(zoneName: "Notes", ownerRecordName: "")

    @Test("a saved subscription fires on a save; the inbox pages what followed a sequence, in order, with the zone's counter")
    func inbox() async throws {
        try await ClientFixture.with { f in
            let container = f.container(as: f.alice)
            let database = container.privateCloudDatabase
            try await database.save(zones: [notes])
            let saved = try await database.save(subscriptions: [Subscription(subscriptionID: "notes", kind: .zone(notes))])
            #expect(saved.map(\.subscriptionID) == ["notes"])
            #expect(try await database.allSubscriptions().map(\.subscriptionID) == ["notes"])

            for name in ["n1", "n2", "n3"] { _ = try await database.save(.note(name, in: notes)) }
            var page = try await container.notificationInbox(after: 0)
            for _ in 0..<100 where page.notifications.count < 3 {
                try await Task.sleep(for: .milliseconds(50))
                page = try await container.notificationInbox(after: 0)
            }
            #expect(page.notifications.map(\.sequence) == [1, 2, 3])
            #expect(page.notifications.map(\.recordNames) == [["n1"], ["n2"], ["n3"]])
            #expect(page.notifications.allSatisfy { $0.subscriptionID == "notes" && $0.zoneName == "Notes" && !$0.isPruned })
            let counters = page.notifications.compactMap(\.zoneCounter)
            #expect(counters.count == 3 && counters == counters.sorted() && Set(counters).count == 3)
            #expect(page.lastSequence >= 3 && !page.moreComing)

            let rest = try await container.notificationInbox(after: 1, limit: 1)
            #expect(rest.notifications.map(\.sequence) == [2] && rest.moreComing)

            try await database.delete(subscriptionIDs: ["notes"])
            #expect(try await database.allSubscriptions().isEmpty)
        }
    }

    @Test("the stream URL the container makes connects, replays what followed a sequence, then delivers live changes")
    func notificationStream() async throws {
        // A WebSocket needs a socket: over the loopback route only.
        try await ClientFixture.with(over: [.loopback]) { f in
            let container = f.container(as: f.alice)
            let database = container.privateCloudDatabase
            try await database.save(zones: [notes])
            try await database.save(subscriptions: [Subscription(subscriptionID: "notes", kind: .zone(notes))])
            for name in ["n1", "n2"] { _ = try await database.save(.note(name, in: notes)) }
            for _ in 0..<100 where try await container.notificationInbox(after: 0).notifications.count < 2 {
                try await Task.sleep(for: .milliseconds(50))
            }
            let anonymous = Container(
                serverURL: f.url,
                identifier: ClientFixture.containerID,
                authentication: .apiToken(f.apiToken, webAuthToken: nil)
            )
            #expect(anonymous.notificationStreamURL() == nil, "a stream needs a signed-in user")
            let url = try #require(container.notificationStreamURL(after: 1, deviceID: "tablet"))
            #expect(url.hasPrefix("ws://") && url.contains("after=1") && url.contains("deviceID=tablet"), "\(url)")

            let (messages, delivered) = AsyncStream.makeStream(of: Int.self)
            let socket = Task {
                defer { delivered.finish() }
                try await WebSocketClient.connect(url: url, logger: Logger(label: "stream-test")) { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message,
                            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                            let sequence = object["sequence"] as? Int
                        else { continue }
                        delivered.yield(sequence)
                    }
                }
            }
            defer { socket.cancel() }
            // Ends the socket and the stream if a message does not come.
            let timeout = Task {
                try await Task.sleep(for: .seconds(10))
                socket.cancel()
            }
            defer { timeout.cancel() }
            var iterator = messages.makeAsyncIterator()
            // The replay comes first; then a change from another device arrives live.
            #expect(await iterator.next() == 2)
            _ = try await database.save(.note("n3", in: notes))
            #expect(await iterator.next() == 3)
        }
    }
}
