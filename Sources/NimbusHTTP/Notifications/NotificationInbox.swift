//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine
import NimbusModel
import NimbusStore
import NimbusWire

/// `POST .../notifications/inbox` (Nimbus extension): what a client that was away missed.
///
/// Request `{"after": N, "limit": M}` (both optional: from the start of what the inbox
/// retains, 100 at a time, at most 200). Response
/// `{"notifications": [message, ...], "lastSequence": L, "moreComing": bool}`, each message as
/// the WebSocket sends it; `lastSequence` is the recipient's latest, so a gap between it and
/// the last message received means entries that expired from the inbox.
struct NotificationInbox {
    let dispatcher: NotificationDispatcher
    let user: String
    let container: ContainerEnvironment

    func respond(to body: [UInt8]) async throws(NimbusError) -> [UInt8] {
        let request = try NotificationInboxRequest.parseAllowingEmpty(body)
        let (after, limit) = (request.after, request.limit)
        // The last sequence first: entries written after it are then at most extra, never a gap
        // the client would take for expired entries.
        var last = try await dispatcher.lastSequence(of: user, in: container)
        let entries = try await dispatcher.inbox(of: user, in: container, after: after, limit: limit + 1)
        var bytes = Array(#"{"notifications":["#.utf8)
        for (index, entry) in entries.prefix(limit).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes += NotificationMessage.bytes(of: entry)
            // An entry written between the two reads: the page never reports a last sequence
            // below one it carries.
            last = max(last, entry.sequence)
        }
        bytes += Array(#"],"lastSequence":\#(last),"moreComing":\#(entries.count > limit)}"#.utf8)
        return bytes
    }
}
