//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// `GET /database/1/{container}/{environment}/notifications/ws`: a user's notification stream.
struct NotificationsRoute {
    var container: String
    var environment: Environment

    /// The route of `path`, or `nil` when the path is not the notification stream's.
    static func parse(_ path: String) -> NotificationsRoute? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard segments.count == 6, segments[0] == "database", segments[1] == "1", segments[4] == "notifications", segments[5] == "ws",
            let environment = Environment(parsing: segments[3])
        else { return nil }
        return NotificationsRoute(container: String(segments[2]), environment: environment)
    }

    /// A device ID the client chose: short, printable.
    static func deviceID(_ text: Substring?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= 128, text.allSatisfy({ !$0.isNewline && $0 != "\0" }) else { return nil }
        return String(text)
    }
}
