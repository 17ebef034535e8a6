//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The record dictionary of the wire protocol, as clients write and read it: the SDK's requests
/// and responses, tools' JSON files, and ``Record``'s `Codable` form.
///
/// The server reads and writes the same shape with its own request and response types
/// (`NimbusWire`), tuned for its hot paths.
package enum RecordWireCoding {
    /// Which dictionary of a record to write.
    package enum Form: Sendable {
        /// As a `records/modify` request carries it: name, type, change tag (when it has one),
        /// fields (encrypted ones marked `isEncrypted`) and parent.
        case request
        /// As the server answers it, and as tools and `Codable` keep it: the request's keys and
        /// its system fields (created and modified stamps, zone, share), 64-bit numbers as
        /// strings when asked.
        case response(numbersAsStrings: Bool)
    }

    /// Writes a record dictionary: the one writer of records, for the SDK's requests and the
    /// server's answers alike. `moreKeys` writes keys of the dictionary this module does not
    /// know (a share record's share keys).
    package static func write(
        _ record: Record,
        to writer: inout JSONWriter,
        as form: Form = .request,
        moreKeys: (inout JSONWriter) -> Void = { _ in }
    ) {
        var numbersAsStrings = false
        var isResponse = false
        if case .response(let asStrings) = form {
            numbersAsStrings = asStrings
            isResponse = true
        }
        writer.beginObject()
        writer.field("recordName", record.recordID.recordName)
        writer.field("recordType", record.recordType)
        if isResponse || !record.recordChangeTag.isEmpty { writer.field("recordChangeTag", record.recordChangeTag) }
        writer.key("fields")
        writer.beginObject()
        for (name, value) in record.fields {
            writer.key(escaping: name.string)
            value.write(to: &writer, numbersAsStrings: numbersAsStrings)
        }
        for (name, value) in record.encryptedFields {
            writer.key(escaping: name.string)
            value.write(to: &writer, numbersAsStrings: numbersAsStrings, isEncrypted: true)
        }
        writer.endObject()
        if isResponse {
            writer.key("created")
            write(record.created, to: &writer)
            writer.key("modified")
            write(record.modified, to: &writer)
            writer.key("zoneID")
            writeAnswered(record.recordID.zoneID, to: &writer)
        }
        if let parent = record.parentRecordName {
            writer.key("parent")
            writer.beginObject()
            writer.field("recordName", parent)
            writer.endObject()
        }
        if isResponse, let share = record.shareRecordName {
            writer.key("share")
            writer.beginObject()
            writer.field("recordName", share)
            writer.key("zoneID")
            writeAnswered(record.recordID.zoneID, to: &writer)
            writer.endObject()
        }
        moreKeys(&writer)
        writer.endObject()
    }

    /// Writes a change stamp dictionary (`created`, `modified`), as requests and the server's
    /// responses carry it.
    package static func write(_ stamp: ChangeStamp, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("timestamp", stamp.timestamp)
        writer.field("userRecordName", stamp.userRecordName)
        writer.field("deviceID", stamp.deviceID)
        writer.endObject()
    }

    /// Writes a zone ID dictionary as the server answers it: with `ownerName` too, the key
    /// CloudKit JS reads.
    package static func writeAnswered(_ zoneID: ZoneID, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("zoneName", zoneID.zoneName)
        writer.field("ownerRecordName", zoneID.ownerRecordName)
        writer.field("ownerName", zoneID.ownerRecordName)
        writer.endObject()
    }

    /// Writes a zone ID dictionary as a request carries it.
    package static func write(_ zoneID: ZoneID, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("zoneName", zoneID.zoneName)
        if !zoneID.ownerRecordName.isEmpty { writer.field("ownerRecordName", zoneID.ownerRecordName) }
        writer.endObject()
    }

    /// Reads a record dictionary of a response.
    ///
    /// Well-formed dictionaries take a path that builds no strings (a 200-record response would
    /// otherwise build thousands of JSON paths only error messages need); anything else is read
    /// again by the checked path, which says what is wrong and where.
    /// - Parameter zoneID: the zone to assume when the dictionary names none.
    package static func record(_ json: JSONValue, in zoneID: ZoneID, at path: @autoclosure () -> String) throws(NimbusError) -> Record {
        if let record = uncheckedRecord(json, in: zoneID) { return record }
        return try checkedRecord(json, in: zoneID, at: path())
    }

    /// The record of a well-formed dictionary, or `nil`.
    private static func uncheckedRecord(_ json: JSONValue, in defaultZone: ZoneID) -> Record? {
        guard case .object(let members) = json, case .string(let name)? = members["recordName"] else { return nil }
        func text(_ key: String) -> String?? {
            switch members[key] {
            case nil: .some(nil)
            case .string(let value)?: .some(value)
            default: nil
            }
        }
        func stamp(_ key: String) -> ChangeStamp? {
            guard let value = members[key] else { return ChangeStamp(timestamp: 0, userRecordName: "") }
            guard case .object(let stamp) = value else { return nil }
            var timestamp: Int64 = 0
            switch stamp["timestamp"] {
            case nil: break
            case .integer(let integer)?: timestamp = integer
            default: return nil
            }
            guard case .string(let user)? = stamp["userRecordName"] ?? .string(""), case .string(let device)? = stamp["deviceID"] ?? .string("")
            else { return nil }
            return ChangeStamp(timestamp: timestamp, userRecordName: user, deviceID: device)
        }
        guard let recordType = text("recordType"), let changeTag = text("recordChangeTag"),
            let created = stamp("created"), let modified = stamp("modified")
        else { return nil }
        var zoneID = defaultZone
        if let zone = members["zoneID"] {
            guard case .object(let zoneMembers) = zone, case .string(let zoneName)? = zoneMembers["zoneName"] else { return nil }
            var owner = ""
            if case .string(let value)? = zoneMembers["ownerRecordName"] { owner = value }
            zoneID = ZoneID(zoneName: zoneName, ownerRecordName: owner)
        }
        var fields: [NameKey: FieldValue] = [:]
        var encryptedFields: [NameKey: FieldValue] = [:]
        if let all = members["fields"] {
            guard case .object(let entries) = all else { return nil }
            fields.reserveCapacity(entries.count)
            for (fieldName, value) in entries {
                guard let (field, isEncrypted) = uncheckedField(value) else { return nil }
                if isEncrypted {
                    encryptedFields[NameKey(fieldName)] = field
                } else {
                    fields[NameKey(fieldName)] = field
                }
            }
        }
        var parent: String?
        if let parentValue = members["parent"] {
            guard case .object(let parentMembers) = parentValue, case .string(let parentName)? = parentMembers["recordName"] else { return nil }
            parent = parentName
        }
        var record = Record(
            recordID: RecordID(recordName: name, zoneID: zoneID),
            recordType: recordType ?? "",
            recordChangeTag: changeTag ?? "",
            fields: fields,
            encryptedFields: encryptedFields,
            parentRecordName: parent,
            created: created,
            modified: modified
        )
        if let share = members["share"] {
            guard case .object(let shareMembers) = share, case .string(let shareName)? = shareMembers["recordName"] else { return nil }
            record.shareRecordName = shareName
        }
        return record
    }

    /// The value of a well-formed field value dictionary and whether it is marked encrypted, or `nil`.
    package static func uncheckedField(_ json: JSONValue) -> (FieldValue, isEncrypted: Bool)? {
        guard case .object(let dictionary) = json, let field = try? FieldValue.read(dictionary: json, at: "fields").value else {
            return nil
        }
        switch dictionary["isEncrypted"] {
        case nil, .bool(false)?: return (field, false)
        case .bool(true)?: return (field, true)
        default: return nil
        }
    }

    /// Reads a record dictionary, naming the path of whatever is malformed.
    private static func checkedRecord(_ json: JSONValue, in zoneID: ZoneID, at path: @autoclosure () -> String) throws(NimbusError) -> Record {
        let members = try json.object(at: path())
        func text(_ key: String) throws(NimbusError) -> String? {
            try members.optional(key)?.string(at: jsonPath(path(), key))
        }
        var fields: [NameKey: FieldValue] = [:]
        var encryptedFields: [NameKey: FieldValue] = [:]
        if let all = members.optional("fields") {
            for (name, value) in try all.object(at: jsonPath(path(), "fields")) {
                func fieldPath() -> String { jsonPath(jsonPath(path(), "fields"), name) }
                let field = try FieldValue.read(dictionary: value, at: fieldPath()).value
                if try value.object(at: fieldPath()).optional("isEncrypted")?.bool(at: jsonPath(fieldPath(), "isEncrypted")) == true {
                    encryptedFields[NameKey(name)] = field
                } else {
                    fields[NameKey(name)] = field
                }
            }
        }
        var record = Record(
            recordID: RecordID(
                recordName: try members.required("recordName", at: path()).string(at: jsonPath(path(), "recordName")),
                zoneID: try members.optional("zoneID").map { (zone) throws(NimbusError) in try Self.zoneID(zone, at: jsonPath(path(), "zoneID")) }
                    ?? zoneID
            ),
            recordType: try text("recordType") ?? "",
            recordChangeTag: try text("recordChangeTag") ?? "",
            fields: fields,
            encryptedFields: encryptedFields,
            parentRecordName: try members.optional("parent").map { (parent) throws(NimbusError) in
                try parent.object(at: jsonPath(path(), "parent")).required("recordName", at: jsonPath(path(), "parent"))
                    .string(at: jsonPath(path(), "parent.recordName"))
            },
            created: try stamp(members.optional("created"), at: jsonPath(path(), "created")),
            modified: try stamp(members.optional("modified"), at: jsonPath(path(), "modified"))
        )
        if let share = members.optional("share") {
            record.shareRecordName = try share.object(at: jsonPath(path(), "share")).required("recordName", at: jsonPath(path(), "share"))
                .string(at: jsonPath(path(), "share.recordName"))
        }
        return record
    }

    /// Reads a zone ID dictionary.
    package static func zoneID(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> ZoneID {
        let members = try json.object(at: path())
        return ZoneID(
            zoneName: try members.required("zoneName", at: path()).string(at: jsonPath(path(), "zoneName")),
            ownerRecordName: try members.optional("ownerRecordName")?.string(at: jsonPath(path(), "ownerRecordName")) ?? ""
        )
    }

    private static func stamp(_ json: JSONValue?, at path: @autoclosure () -> String) throws(NimbusError) -> ChangeStamp {
        guard let json else { return ChangeStamp(timestamp: 0, userRecordName: "") }
        let members = try json.object(at: path())
        return ChangeStamp(
            timestamp: try members.optional("timestamp").map { (value) throws(NimbusError) in try value.integer(at: jsonPath(path(), "timestamp")) }
                ?? 0,
            userRecordName: try members.optional("userRecordName")?.string(at: jsonPath(path(), "userRecordName")) ?? "",
            deviceID: try members.optional("deviceID")?.string(at: jsonPath(path(), "deviceID")) ?? ""
        )
    }
}

extension JSONWriter {
    /// Writes `"name": {zoneName, ownerRecordName}`, a zone ID as a request carries it.
    package mutating func field(_ name: StaticString, _ zoneID: ZoneID) {
        key(name)
        RecordWireCoding.write(zoneID, to: &self)
    }
}
