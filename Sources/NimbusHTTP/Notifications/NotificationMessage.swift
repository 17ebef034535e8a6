//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
package import NimbusStore

/// A notification as every channel sends it: `{"id", "sequence", "ck": {...}, "aps": {...}}`.
package enum NotificationMessage {
    package static func bytes(of entry: InboxEntry) -> [UInt8] {
        var writer = JSONWriter(capacity: entry.payload.count + 64)
        writer.beginObject()
        writer.field("id", entry.notificationID)
        writer.field("sequence", entry.sequence)
        writer.endObject()
        var bytes = writer.bytes
        // The stored payload is an object: splice its members in after ours.
        if entry.payload.count > 2 {
            bytes.removeLast()
            bytes.append(UInt8(ascii: ","))
            bytes.append(contentsOf: entry.payload.dropFirst())
        }
        return bytes
    }

    static func text(of entry: InboxEntry) -> String {
        String(decoding: bytes(of: entry), as: UTF8.self)
    }
}
