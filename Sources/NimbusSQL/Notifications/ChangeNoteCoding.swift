//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusStore

/// The `body` column of an outbox row: a ``ChangeNote`` as compact JSON,
/// `{"w": writer, "d": device, "c": [created], "x": [{"n": name, "t": type, "f": fields}]}`,
/// with `"z": true` for a deleted zone, and `"p": [former participants]` when the write took
/// participants out of the zone's shares.
/// Deleted records keep only their unencrypted fields: encrypted ones never leave the record.
enum ChangeNoteCoding {
    static func encode(_ note: ChangeNote) -> String {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.field("w", note.writer)
        if let device = note.deviceID { writer.field("d", device) }
        writer.key("c")
        writer.beginArray()
        for name in note.created.sorted() { writer.string(name.string) }
        writer.endArray()
        writer.key("x")
        writer.beginArray()
        for record in note.deleted {
            writer.beginObject()
            writer.field("n", record.recordID.recordName)
            writer.field("t", record.recordType)
            writer.key("f")
            FieldValue.write(record.fields, to: &writer)
            writer.endObject()
        }
        writer.endArray()
        if note.zoneDeleted {
            writer.key("z")
            writer.bool(true)
        }
        if !note.formerParticipants.isEmpty {
            writer.key("p")
            writer.beginArray()
            for user in note.formerParticipants { writer.string(user) }
            writer.endArray()
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func decode(_ text: String, zoneID: ZoneID) throws -> ChangeNote {
        let members = try JSONParser.parse(text).object(at: "change note")
        var deleted: [Record] = []
        for element in try members.optional("x")?.array(at: "x") ?? [] {
            let entry = try element.object(at: "x")
            var record = Record(
                recordType: try entry.required("t", at: "x").string(at: "x.t"),
                recordID: RecordID(recordName: try entry.required("n", at: "x").string(at: "x.n"), zoneID: zoneID)
            )
            for (name, value) in try entry.optional("f")?.object(at: "x.f") ?? [:] {
                record.fields[NameKey(name)] = try FieldValue.read(dictionary: value, at: "x.f").value
            }
            deleted.append(record)
        }
        return ChangeNote(
            writer: try members.required("w", at: "").string(at: "w"),
            deviceID: try members.optional("d")?.string(at: "d"),
            created: Set(try (members.optional("c")?.array(at: "c") ?? []).map { (name) throws(NimbusError) in NameKey(try name.string(at: "c")) }),
            deleted: deleted,
            zoneDeleted: members["z"] == .bool(true),
            formerParticipants: try (members.optional("p")?.array(at: "p") ?? []).map { (user) throws(NimbusError) in try user.string(at: "p") }
        )
    }
}
