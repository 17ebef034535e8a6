//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// The notification channels, which belong to a user rather than a database:
/// `GET /database/1/{container}/{environment}/notifications/ws`, the WebSocket stream, and
/// `POST .../notifications/inbox`, the inbox read over plain HTTP.
struct NotificationsRoute {
    enum Channel: String {
        case ws
        case inbox
    }

    var container: String
    var environment: Environment
    var channel: Channel

    /// The route of `path`, or `nil` when the path is not the notification stream's.
    static func parse(_ path: String) -> NotificationsRoute? {
        // Every database request passes here first: rule most out without splitting the path
        // (empty segments, as in `…/notifications//ws/`, are allowed).
        var trimmed = Substring(path)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard trimmed.hasSuffix("/ws") || trimmed.hasSuffix("/inbox") else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 6, segments[0] == "database", segments[1] == "1", segments[4] == "notifications",
            let channel = Channel(rawValue: String(segments[5])), let environment = Environment(parsing: segments[3])
        else { return nil }
        return NotificationsRoute(container: String(segments[2]), environment: environment, channel: channel)
    }

    /// A device ID the client chose: short, printable.
    static func deviceID(_ text: Substring?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= 128, text.allSatisfy({ !$0.isNewline && $0 != "\0" }) else { return nil }
        return String(text)
    }
}
