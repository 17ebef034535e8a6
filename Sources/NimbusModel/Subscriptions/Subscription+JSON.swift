//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The CloudKit subscription dictionary (CKWS §7.1): what `subscriptions/modify` reads, what
/// every subscription endpoint answers, and how the store keeps a subscription.
extension Subscription {
    /// The longest subscription ID accepted.
    package static let maximumIDLength = 255

    /// Reads a subscription dictionary. A missing `subscriptionID` comes back empty, for the
    /// server to assign; a missing `subscriptionType` is inferred from `query` or `zoneID`.
    package static func read(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Subscription {
        let members = try json.object(at: path())
        let id = try members.optional("subscriptionID")?.string(at: jsonPath(path(), "subscriptionID")) ?? ""
        if id.utf8.count > maximumIDLength || id.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw .badRequest("\(jsonPath(path(), "subscriptionID")) must be at most \(maximumIDLength) bytes on one line")
        }
        let zoneID = try members.optional("zoneID").map { (zone) throws(NimbusError) in try ZoneID.read(zone, at: jsonPath(path(), "zoneID")) }
        let typePath = jsonPath(path(), "subscriptionType")
        let typeName =
            try members.optional("subscriptionType")?.string(at: typePath).lowercased()
            ?? (members.optional("query") != nil ? "query" : zoneID != nil ? "zone" : "")
        let kind: Kind
        switch typeName {
        case "query":
            let query = try Query.read(try members.required("query", at: path()), at: jsonPath(path(), "query"))
            let zoneWide = try members.optional("zoneWide")?.bool(at: jsonPath(path(), "zoneWide")) ?? false
            let firesOnce = try members.optional("firesOnce")?.bool(at: jsonPath(path(), "firesOnce")) ?? false
            var firesOn = Set(FiresOn.allCases)
            if let list = members.optional("firesOn") {
                let listPath = jsonPath(path(), "firesOn")
                firesOn = []
                for (index, element) in try list.array(at: listPath).enumerated() {
                    let name = try element.string(at: jsonPath(listPath, index))
                    guard let operation = FiresOn(rawValue: name.lowercased()) else {
                        throw .badRequest("unknown firesOn value '\(name)' at \(jsonPath(listPath, index)): expected create, update or delete")
                    }
                    firesOn.insert(operation)
                }
                if firesOn.isEmpty { throw .badRequest("\(listPath) is empty: the subscription would never fire") }
            }
            kind = .query(
                query,
                zoneID: zoneWide ? nil : (zoneID ?? ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: "")),
                firesOn: firesOn,
                firesOnce: firesOnce
            )
        case "zone":
            guard let zoneID else {
                throw .badRequest(
                    "missing required field 'zoneID' in \(path().isEmpty ? "the subscription" : path()): a zone subscription names its zone"
                )
            }
            kind = .zone(zoneID)
        case "database":
            kind = .database
        case "":
            throw .badRequest("missing required field 'subscriptionType' in \(path().isEmpty ? "the subscription" : path())")
        default:
            throw .badRequest("unknown subscriptionType '\(typeName)' at \(typePath): expected query, zone or database")
        }
        let info = try NotificationInfo.read(members.optional("notificationInfo"), at: jsonPath(path(), "notificationInfo"))
        let rules = try members.optional("rules").map { (json) throws(NimbusError) in
            try NotificationRule.readList(json, at: jsonPath(path(), "rules"))
        }
        return Subscription(subscriptionID: id, kind: kind, notificationInfo: info, rules: rules ?? [])
    }

    /// Writes the subscription dictionary.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("subscriptionID", subscriptionID)
        writer.field("subscriptionType", kind.typeName)
        switch kind {
        case .query(let query, let zoneID, let firesOn, let firesOnce):
            writer.key("query")
            query.write(to: &writer)
            if let zoneID { Self.write(zoneID, to: &writer) }
            writer.key("zoneWide")
            writer.bool(zoneID == nil)
            writer.key("firesOn")
            writer.beginArray()
            for operation in firesOn.sorted() { writer.string(operation.rawValue) }
            writer.endArray()
            writer.key("firesOnce")
            writer.bool(firesOnce)
        case .zone(let zoneID):
            Self.write(zoneID, to: &writer)
        case .database:
            break
        }
        writer.key("notificationInfo")
        writer.value(.object(notificationInfo.values))
        if !rules.isEmpty {
            writer.key("rules")
            writer.beginArray()
            for rule in rules { rule.write(to: &writer) }
            writer.endArray()
        }
        writer.endObject()
    }

    private static func write(_ zoneID: ZoneID, to writer: inout JSONWriter) {
        writer.key("zoneID")
        writer.beginObject()
        writer.field("zoneName", zoneID.zoneName)
        writer.field("ownerRecordName", zoneID.ownerRecordName)
        writer.field("ownerName", zoneID.ownerRecordName)
        writer.endObject()
    }
}

extension NotificationInfo {
    /// The types the documented keys must have; other keys are kept as sent.
    private static let stringKeys: Set<String> = [
        "alertBody", "alertLocalizationKey", "alertActionLocalizationKey", "alertLaunchImage", "soundName", "category",
        "title", "titleLocalizationKey", "subtitle", "subtitleLocalizationKey", "collapseIDKey",
    ]
    private static let boolKeys: Set<String> = ["shouldBadge", "shouldSendContentAvailable", "shouldSendMutableContent"]
    private static let stringListKeys: Set<String> = [
        "alertLocalizationArgs", "desiredKeys", "titleLocalizationArgs", "subtitleLocalizationArgs",
    ]

    /// Reads `notificationInfo`, checking the types of the documented keys.
    package static func read(_ json: JSONValue?, at path: @autoclosure () -> String) throws(NimbusError) -> NotificationInfo {
        guard let json else { return NotificationInfo() }
        let members = try json.object(at: path())
        for (key, value) in members where !value.isNull {
            let keyPath = jsonPath(path(), key)
            if stringKeys.contains(key) { _ = try value.string(at: keyPath) }
            if boolKeys.contains(key) { _ = try value.bool(at: keyPath) }
            if stringListKeys.contains(key) {
                for (index, element) in try value.array(at: keyPath).enumerated() { _ = try element.string(at: jsonPath(keyPath, index)) }
            }
        }
        let info = NotificationInfo(values: members.filter { !$0.value.isNull })
        // It is copied into every notification, for every recipient.
        var size = JSONWriter()
        size.value(.object(info.values))
        guard size.bytes.count <= maximumSize else {
            throw .badRequest("\(path()) is \(size.bytes.count) bytes; at most \(maximumSize) are allowed")
        }
        return info
    }

    /// The largest `notificationInfo`, in bytes of JSON.
    package static let maximumSize = 4_096
}
