//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import HummingbirdWSClient
import Logging
import NimbusClient

/// `nimbus notifications watch|inbox`: the signed-in user's notifications.
struct NotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "Watch notifications as they arrive, or read the inbox (a client of a Nimbus server).",
        subcommands: [Watch.self, Inbox.self]
    )

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print notifications as they arrive over the WebSocket stream, until interrupted."
        )
        @OptionGroup var client: ClientOptions
        @Option(help: "Replay the inbox after this sequence number first.") var after: Int64?
        @Option(name: .customLong("device-id"), help: "This device: changes it makes are not sent back to it.") var deviceID: String?
        @Option(help: "Stop after this many notifications.") var count: Int?

        func run() async throws {
            let container = try client.database().container
            guard let url = container.notificationStreamURL(after: after, deviceID: deviceID) else {
                throw CommandFailure(description: "watching notifications needs a signed-in user: pass --api-token and --web-auth-token")
            }
            let json = client.json
            let limit = count
            let logger = Logger(label: "nimbus.notifications")
            try await WebSocketClient.connect(url: url, logger: logger) { inbound, _, _ in
                var received = 0
                for try await message in inbound.messages(maxSize: 1 << 24) {
                    guard case .text(let text) = message else { continue }
                    NotificationsCommand.print(text, json: json)
                    received += 1
                    if let limit, received >= limit { return }
                }
            }
        }
    }

    struct Inbox: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the notifications of your inbox after a sequence number.")
        @OptionGroup var client: ClientOptions
        @Option(help: "Print what follows this sequence number (default: all the inbox holds).") var after: Int64 = 0
        @Option(help: "The most notifications to print, 1 to 200.") var limit: Int = 100

        func run() async throws {
            let page = try await client.database().container.notificationInbox(after: after, limit: limit)
            for notification in page.notifications { NotificationsCommand.print(notification.json, json: client.json) }
            if !client.json {
                Swift.print("last sequence \(page.lastSequence)\(page.moreComing ? " (more after this page)" : "")")
            }
        }
    }

    /// One line per notification: the message itself, or a summary. Written straight to the
    /// file descriptor: under a pipe, buffered lines would not arrive while the stream runs.
    static func print(_ text: String, json: Bool) {
        guard !json, let notification = try? ReceivedNotification(json: text) else {
            emit(text)
            return
        }
        var line = "#\(notification.sequence) \(notification.subscriptionID ?? "?")"
        if let zone = notification.zoneName { line += " in \(zone)" }
        if !notification.recordNames.isEmpty { line += ": " + notification.recordNames.joined(separator: ", ") }
        if notification.isPruned { line += ", ..." }
        if let decision = notification.decision, decision != "visible" { line += " (\(decision))" }
        emit(line)
    }

    private static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
