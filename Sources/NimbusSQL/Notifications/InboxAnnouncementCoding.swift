//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Announcements as `NOTIFY` payloads on the `nimbus_inbox` channel:
/// `{"i": instance, "r": [[container, environment, user], ...]}`, cut so each stays well
/// under PostgreSQL's 8,000-byte payload limit.
enum InboxAnnouncementCoding {
    static let channel = "nimbus_inbox"
    static let maximumPayload = 7_000

    static func payloads(of announcement: InboxAnnouncement) -> [String] {
        var payloads: [String] = []
        var batch: [InboxRecipient] = []
        var size = 0
        for recipient in announcement.recipients {
            let cost = recipient.container.container.utf8.count + recipient.userRecordName.utf8.count + 32
            if size + cost > maximumPayload, !batch.isEmpty {
                payloads.append(encode(instance: announcement.instance, batch))
                batch = []
                size = 0
            }
            batch.append(recipient)
            size += cost
        }
        if !batch.isEmpty { payloads.append(encode(instance: announcement.instance, batch)) }
        return payloads
    }

    static func decode(_ payload: String) -> InboxAnnouncement? {
        guard let members = try? JSONParser.parse(payload).object(at: ""), case .string(let instance)? = members["i"],
            case .array(let rows)? = members["r"]
        else { return nil }
        var recipients: [InboxRecipient] = []
        for row in rows {
            guard case .array(let parts) = row, parts.count == 3, case .string(let container) = parts[0],
                case .string(let environmentName) = parts[1], let environment = Environment(rawValue: environmentName),
                case .string(let user) = parts[2]
            else { continue }
            recipients.append(InboxRecipient(container: ContainerEnvironment(container: container, environment: environment), userRecordName: user))
        }
        return InboxAnnouncement(instance: instance, recipients: recipients)
    }

    private static func encode(instance: String, _ recipients: [InboxRecipient]) -> String {
        var writer = JSONWriter(capacity: maximumPayload)
        writer.beginObject()
        writer.field("i", instance)
        writer.key("r")
        writer.beginArray()
        for recipient in recipients {
            writer.beginArray()
            writer.string(recipient.container.container)
            writer.string(recipient.container.environment.rawValue)
            writer.string(recipient.userRecordName)
            writer.endArray()
        }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
