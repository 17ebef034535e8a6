//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusTestSupport
import Testing

/// Notifications from the command line, and across a crash: they are written with the change
/// they report, so a crash between the write's commit and the delivery loses nothing.
@Suite("notifications end to end")
struct NotificationDurabilityTests {
    @Test("subscription and notifications subcommands: create, list, watch a change arrive, read the inbox")
    func subcommands() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess(DataLocation(directory: directory))
        let client = try server.clientOptions()
        func nimbus(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await NimbusBinary.run(arguments + client)
        }
        let rulesFile = directory.appendingPathComponent("rules.json").path
        try #"[{"name": "no-drafts", "recordTypes": ["Draft"], "then": "none"}]"#.write(toFile: rulesFile, atomically: true, encoding: .utf8)
        let created = try await nimbus(["subscription", "create", "zone", "--zone", "_defaultZone", "--id", "notes", "--rules", rulesFile])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("notes  zone  zone _defaultZone  rules: no-drafts"), "\(created.stdout)")
        let badRules = directory.appendingPathComponent("bad.json").path
        try #"[{"name": "x", "then": "maybe"}]"#.write(toFile: badRules, atomically: true, encoding: .utf8)
        let refused = try await nimbus(["subscription", "create", "database", "--rules", badRules])
        #expect(refused.status != 0 && refused.stderr.contains("unknown decision 'maybe'"), "\(refused)")

        // The watcher replays from the start of the inbox, so it cannot miss the save below.
        let watcher = try ProcessLaunch.start(NimbusBinary.path, ["notifications", "watch", "--after", "0", "--count", "1", "--json"] + client)
        let saved = try await nimbus(["record", "save", "--json", #"{"recordName":"n1","recordType":"Note","fields":{}}"#])
        #expect(saved.status == 0, "\(saved.stderr)")
        for _ in 0..<100 where watcher.isRunning { try await Task.sleep(for: .milliseconds(100)) }
        if watcher.isRunning { watcher.signal(SIGKILL) }
        #expect(await watcher.waitForExit() == 0, "\(watcher.stderr)")
        let message = try JSONSerialization.jsonObject(with: Data(watcher.stdout.utf8)) as? [String: Any]
        #expect(message?["sequence"] as? Int == 1, "\(watcher.stdout)")
        #expect(((message?["ck"] as? [String: Any])?["fet"] as? [String: Any])?["sid"] as? String == "notes")

        let listed = try await nimbus(["subscription", "list", "--json"])
        #expect(listed.stdout.contains(#""subscriptionID":"notes""#), "\(listed)")
        let inbox = try await nimbus(["notifications", "inbox"])
        #expect(inbox.stdout.contains("#1 notes in _defaultZone: n1"), "\(inbox)")
        #expect(inbox.stdout.contains("last sequence 1"), "\(inbox)")
        #expect(try await nimbus(["subscription", "delete", "notes"]).stdout.contains("deleted notes"))
        #expect(try await server.stop() == 0)
    }

    @Test("a change committed just before SIGKILL is notified after the restart")
    func survivesKill() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = DataLocation(directory: directory)
        // The dispatcher waits a minute (the most it may) after a write, so the kill lands between
        // commit and delivery even on a machine so loaded that the requests below take seconds.
        let first = try await ServerProcess(data, environment: ["NIMBUS_NOTIFICATION_DELAY_MS": "60000"])
        let container = try #require(first.exported("NIMBUS_CONTAINER"))
        let apiToken = try #require(first.exported("NIMBUS_API_TOKEN"))
        let webAuthToken = try #require(first.exported("NIMBUS_WEB_AUTH_TOKEN"))

        func post(_ server: ServerProcess, _ path: String, _ body: String) async throws -> [String: Any] {
            let result = try await runProcess(
                "/usr/bin/env",
                [
                    "curl", "-s", "-X", "POST", "--url-query", "ckAPIToken=\(apiToken)", "--url-query", "ckWebAuthToken=\(webAuthToken)",
                    "-H", "Content-Type: application/json", "-d", body, "\(server.url)/database/1/\(container)/development/\(path)",
                ]
            )
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        }

        let subscribed = try await post(
            first,
            "private/subscriptions/modify",
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"_defaultZone"}}}]}"#
        )
        #expect((subscribed["subscriptions"] as? [[String: Any]])?.first?["subscriptionID"] as? String == "notes", "\(subscribed)")
        let saved = try await post(
            first,
            "private/records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"before-crash","recordType":"Note","fields":{}}}]}"#
        )
        #expect((saved["records"] as? [[String: Any]])?.first?["recordName"] as? String == "before-crash", "\(saved)")
        let undelivered = try await post(first, "notifications/inbox", "{}")
        #expect((undelivered["notifications"] as? [Any])?.isEmpty == true, "delivered before the kill: the test proves nothing")
        await first.kill()

        let second = try await ServerProcess(data)
        var notifications: [[String: Any]] = []
        for _ in 0..<100 where notifications.isEmpty {
            notifications = try await post(second, "notifications/inbox", "{}")["notifications"] as? [[String: Any]] ?? []
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
