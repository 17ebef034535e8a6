//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// Notifications are written with the change they report: a crash between the write's commit
/// and the notification's delivery loses nothing.
@Suite("notifications survive a crash")
struct NotificationDurabilityTests {
    @Test("a change committed just before SIGKILL is notified after the restart")
    func survivesKill() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        // The dispatcher waits 10 s after a write, so the kill lands between commit and delivery.
        let first = try await ServerProcess(data, environment: ["NIMBUS_NOTIFICATION_DELAY_MS": "10000"])
        let container = try #require(first.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(first.exported("NIMBUS_API_TOKEN"))
        let webAuthToken = try #require(first.exported("NIMBUS_WEB_AUTH_TOKEN"))

        func post(_ server: ServerProcess, _ path: String, _ body: String) throws -> [String: Any] {
            let result = try runProcess(
                "/usr/bin/env",
                [
                    "curl", "-s", "-X", "POST", "--url-query", "ckAPIToken=\(apiToken)", "--url-query", "ckWebAuthToken=\(webAuthToken)",
                    "-H", "Content-Type: application/json", "-d", body, "\(server.url)/database/1/\(container)/development/\(path)",
                ]
            )
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        }

        let subscribed = try post(
            first,
            "private/subscriptions/modify",
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}}]}"#
        )
        #expect((subscribed["subscriptions"] as? [[String: Any]])?.first?["subscriptionID"] as? String == "notes", "\(subscribed)")
        let saved = try post(
            first,
            "private/records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"before-crash","recordType":"Note","fields":{}}}]}"#
        )
        #expect((saved["records"] as? [[String: Any]])?.first?["recordName"] as? String == "before-crash", "\(saved)")
        let undelivered = try post(first, "notifications/inbox", "{}")
        #expect((undelivered["notifications"] as? [Any])?.isEmpty == true, "delivered before the kill: the test proves nothing")
        first.kill()

        let second = try await ServerProcess(data)
        var notifications: [[String: Any]] = []
        for _ in 0..<100 where notifications.isEmpty {
            notifications = try post(second, "notifications/inbox", "{}")["notifications"] as? [[String: Any]] ?? []
            if notifications.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(notifications.count == 1)
        let notification = try #require(notifications.first)
        #expect(notification["sequence"] as? Int == 1)
        let ck = try #require(notification["ck"] as? [String: Any])
        #expect((ck["fet"] as? [String: Any])?["sid"] as? String == "notes")
        let changes = (ck["nimbus"] as? [String: Any])?["changes"] as? [[String: Any]]
        #expect(changes?.first?["rid"] as? String == "before-crash")
        #expect(try await second.stop() == 0)
    }
}
