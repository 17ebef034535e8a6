//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// Writes a notification's `ck` dictionary (CKWS §7.6) and, where an APNs payload would have
/// one, its `aps` dictionary.
///
/// Beyond CloudKit, `ck.nimbus` lists what changed (record name, type and reason, at most
/// ``maximumListedChanges``, with `ck.p` set when the list was cut) and the zone counter the
/// notification reflects; a query notification also lists every matching record in `qry.rids`.
struct NotificationPayload {
    /// The most changes listed in one notification.
    static let maximumListedChanges = 50

    let event: ChangeEvent
    let notificationID: String
    let recipient: NotificationPlanner.Recipient
    let subscription: Subscription
    let changes: [NotificationPlanner.VisibleChange]
    /// What the subscription's rules decided: a silent decision sends only `content-available`.
    let decision: NotificationRule.Decision
    /// The rules that decided, reported in `ck.nimbus.rules`.
    let rules: [String]

    func bytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        if let aps = apsWriter() {
            writer.key("aps")
            writer.value(aps)
        }
        writer.key("ck")
        writeCK(to: &writer)
        writer.endObject()
        return writer.bytes
    }

    // MARK: - ck

    private func writeCK(to writer: inout JSONWriter) {
        writer.beginObject()
        // `ce`: 1 development, 2 production (Apple's values are unconfirmed, see ckws.md §7.6).
        writer.field("ce", event.tenant.environment == .production ? 2 : 1)
        writer.field("cid", event.tenant.container)
        writer.field("nid", notificationID)
        writer.field("ckuserid", recipient.userRecordName)
        let listed = changes.prefix(Self.maximumListedChanges)
        if listed.count < changes.count {
            writer.key("p")
            writer.bool(true)
        }
        let scopeCode: Int64 =
            switch recipient.scope {
            case .public: 1
            case .private: 2
            case .shared: 3
            }
        let zoneOwner = event.tenant.isPublic ? "_defaultOwner" : event.tenant.owner
        switch subscription.kind {
        case .query:
            writer.key("qry")
            writer.beginObject()
            writer.field("sid", subscription.subscriptionID)
            if let first = changes.first {
                writer.field("rid", first.recordName)
                writer.field("fo", Self.reasonCode(first.reason))
                if let keys = subscription.notificationInfo.desiredKeys, let record = first.record, first.reason != .delete {
                    writer.key("af")
                    writer.beginObject()
                    for key in keys {
                        guard let value = record.fields[NameKey(key)] else { continue }
                        writer.key(escaping: key)
                        value.write(to: &writer)
                    }
                    writer.endObject()
                }
            }
            writer.field("zid", event.zoneName)
            writer.field("zoid", zoneOwner)
            writer.field("dbs", scopeCode)
            writer.key("rids")
            writer.beginArray()
            for change in listed { writer.string(change.recordName) }
            writer.endArray()
            writer.endObject()
        case .zone:
            writer.key("fet")
            writer.beginObject()
            writer.field("sid", subscription.subscriptionID)
            writer.field("zid", event.zoneName)
            writer.field("zoid", zoneOwner)
            writer.field("dbs", scopeCode)
            writer.endObject()
        case .database:
            writer.key("met")
            writer.beginObject()
            writer.field("sid", subscription.subscriptionID)
            writer.field("dbs", scopeCode)
            writer.endObject()
        }
        writer.key("nimbus")
        writer.beginObject()
        writer.field("zoneCounter", event.counterThrough)
        if event.note.zoneDeleted {
            writer.key("zoneDeleted")
            writer.bool(true)
        }
        writer.field("decision", decision.rawValue)
        if !rules.isEmpty {
            writer.key("rules")
            writer.beginArray()
            for rule in rules { writer.string(rule) }
            writer.endArray()
        }
        writer.key("changes")
        writer.beginArray()
        for change in listed {
            writer.beginObject()
            writer.field("rid", change.recordName)
            writer.field("rt", change.recordType)
            writer.field("fo", Self.reasonCode(change.reason))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        writer.endObject()
    }

    /// CloudKit's query notification reasons: 1 created, 2 updated, 3 deleted.
    private static func reasonCode(_ reason: Subscription.FiresOn) -> Int64 {
        switch reason {
        case .create: 1
        case .update: 2
        case .delete: 3
        }
    }

    // MARK: - aps

    /// The `aps` dictionary built from `notificationInfo`, or `nil` when the notification
    /// neither shows anything nor wakes the app.
    private func apsWriter() -> JSONValue? {
        if decision == .silent { return .object(["content-available": .integer(1)]) }
        let info = subscription.notificationInfo
        var aps: JSONObject = [:]
        var alert: JSONObject = [:]
        let alertKeys: [(String, String)] = [
            ("alertBody", "body"), ("title", "title"), ("subtitle", "subtitle"), ("alertLocalizationKey", "loc-key"),
            ("alertLocalizationArgs", "loc-args"), ("alertActionLocalizationKey", "action-loc-key"),
            ("alertLaunchImage", "launch-image"), ("titleLocalizationKey", "title-loc-key"),
            ("titleLocalizationArgs", "title-loc-args"), ("subtitleLocalizationKey", "subtitle-loc-key"),
            ("subtitleLocalizationArgs", "subtitle-loc-args"),
        ]
        for (key, apsKey) in alertKeys {
            if let value = info.values[key] { alert[apsKey] = value }
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        if info.shouldBadge { aps["badge"] = .integer(1) }
        if let sound = info.soundName { aps["sound"] = .string(sound) }
        if let category = info.category { aps["category"] = .string(category) }
        if info.shouldSendContentAvailable { aps["content-available"] = .integer(1) }
        if info.shouldSendMutableContent { aps["mutable-content"] = .integer(1) }
        return aps.isEmpty ? nil : .object(aps)
    }
}
