//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// The schema file `nimbus schema export` writes and `import` reads:
/// `{"recordTypes": {"Note": {"fields": {"title": {"type": "STRING", "queryable": true,
/// "sortable": true, "searchable": true}}}}}`, with `"encrypted": true` on encrypted fields.
public enum RecordSchemaJSON {
    /// The schema as JSON text, record types and fields in name order.
    public static func write(_ schema: RecordSchema) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("recordTypes")
        writer.beginObject()
        for (recordType, fields) in schema.sorted(by: { $0.key < $1.key }) {
            writer.key(escaping: recordType)
            writer.beginObject()
            writer.key("fields")
            writer.beginObject()
            for (name, field) in fields.sorted(by: { $0.key < $1.key }) {
                writer.key(escaping: name.string)
                writer.beginObject()
                writer.field("type", field.type.rawValue)
                if field.isEncrypted {
                    writer.key("encrypted")
                    writer.bool(true)
                }
                let markings: [(StaticString, Bool)] = [
                    ("queryable", field.isQueryable), ("sortable", field.isSortable), ("searchable", field.isSearchable),
                ]
                for (key, value) in markings {
                    writer.key(key)
                    writer.bool(value)
                }
                writer.endObject()
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Reads a schema file.
    /// - Throws: `.badRequest` naming the place of a problem (an unknown type, a bad name).
    public static func read(_ text: String) throws(NimbusError) -> RecordSchema {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            throw .badRequest("the schema is not JSON: \(error)")
        }
        let types = try json.object(at: "the schema").required("recordTypes", at: "").object(at: "recordTypes")
        var schema: RecordSchema = [:]
        for (recordType, body) in types {
            let typePath = "recordTypes.\(recordType)"
            guard !recordType.isEmpty, recordType.utf8.count <= 255 else { throw .badRequest("\(typePath): a record type needs a name") }
            let fieldsPath = "\(typePath).fields"
            var fields: [NameKey: FieldSchema] = [:]
            for (name, value) in try body.object(at: typePath).required("fields", at: typePath).object(at: fieldsPath) {
                let path = "\(fieldsPath).\(name)"
                if let violation = FieldRules.nameViolation(name) { throw .badRequest("\(path): \(violation)") }
                let members = try value.object(at: path)
                let typeName = try members.required("type", at: path).string(at: "\(path).type")
                guard let type = FieldType(rawValue: typeName) else { throw .badRequest("\(path).type: unknown field type '\(typeName)'") }
                func flag(_ key: String) throws(NimbusError) -> Bool {
                    guard let value = members.optional(key), value != .null else { return false }
                    guard case .bool(let flag) = value else { throw .badRequest("\(path).\(key) must be true or false") }
                    return flag
                }
                var field = FieldSchema(type: type, isEncrypted: try flag("encrypted"))
                // A marking the type cannot have (a sortable list, a searchable number) is dropped.
                let possible = field.withEveryIndex
                field.isQueryable = try flag("queryable") && possible.isQueryable
                field.isSortable = try flag("sortable") && possible.isSortable
                field.isSearchable = try flag("searchable") && possible.isSearchable
                fields[NameKey(name)] = field
            }
            schema[recordType] = fields
        }
        return schema
    }
}
