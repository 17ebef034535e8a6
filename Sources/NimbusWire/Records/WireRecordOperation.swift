//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/modify`.
public struct RecordsModifyRequest: WireRequest {
    /// The operations, applied in order, at most one per record.
    public var operations: [RecordOperation]
    /// The zone of the records; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// Whether the batch is all-or-nothing; CloudKit's default is `true` (custom zones only).
    public var atomic: Bool?
    /// The fields to return in the saved records; `nil` returns all, `[]` only the system fields.
    public var desiredKeys: [String]?
    /// CKWS `numbersAsStrings`: write 64-bit integers and timestamps as JSON strings.
    public var numbersAsStrings: Bool?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        let list = try members.required("operations", at: "").array(at: "operations")
        operations = []
        operations.reserveCapacity(list.count)
        for (index, element) in list.enumerated() {
            operations.append(try Self.operation(element, at: jsonPath("operations", index)))
        }
        zoneID = try members.zoneID()
        atomic = try members.optionalBool("atomic")
        desiredKeys = try members.stringList("desiredKeys", at: "")
        numbersAsStrings = try members.optionalBool("numbersAsStrings")
    }

    /// Reads one `{operationType, record}`.
    private static func operation(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> RecordOperation {
        let members = try json.object(at: path())
        let typeName = try members.required("operationType", at: path()).string(at: jsonPath(path(), "operationType"))
        guard let kind = kinds[typeName] ?? kinds[typeName.lowercased()] else {
            throw .badRequest("unknown operationType '\(typeName)' at \(jsonPath(path(), "operationType"))")
        }
        func recordPath() -> String { jsonPath(path(), "record") }
        let record = try members.required("record", at: path()).object(at: recordPath())
        func text(_ key: String) throws(NimbusError) -> String? { try record.optional(key)?.string(at: jsonPath(recordPath(), key)) }
        var fields: [NameKey: FieldInput] = [:]
        // Deletes ignore fields: CloudKitPy sends `"fields": null, "deleted": false` with them.
        if !kind.isDelete, let fieldMap = record.optional("fields") {
            func fieldsPath() -> String { jsonPath(recordPath(), "fields") }
            for (name, field) in try fieldMap.object(at: fieldsPath()) {
                fields[NameKey(name)] = try Self.field(field, at: jsonPath(fieldsPath(), name))
            }
        }
        let parent: RecordOperation.ParentChange
        switch record["parent"] {
        case nil: parent = .unchanged
        case .null?: parent = .clear
        case let value?:
            func parentPath() -> String { jsonPath(recordPath(), "parent") }
            parent = .set(
                try value.object(at: parentPath()).required("recordName", at: parentPath()).string(at: jsonPath(parentPath(), "recordName"))
            )
        }
        return RecordOperation(
            kind: kind,
            recordName: try text("recordName"),
            recordType: try text("recordType"),
            recordChangeTag: try text("recordChangeTag"),
            fields: fields,
            parent: parent,
            share: try ShareChange.read(record: record, at: recordPath())
        )
    }

    /// Reads a field value dictionary: `value` `null` removes the field, and so does a
    /// dictionary without `value` that says nothing else (`{}`, which CloudKit JS sends for a
    /// field set to `undefined`, or only `type`); `"isEncrypted": true` marks one of CloudKit's
    /// `encryptedValues`.
    private static func field(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> FieldInput {
        let members = try json.object(at: path())
        let isEncrypted = try members.optional("isEncrypted")?.bool(at: jsonPath(path(), "isEncrypted")) ?? false
        guard members["value"] != nil else {
            guard members.keys.allSatisfy({ $0 == "type" || $0 == "isEncrypted" }) else {
                throw .badRequest("missing required field 'value' in \(path())")
            }
            return FieldInput(nil, isEncrypted: isEncrypted)
        }
        if members["value"] == .null { return FieldInput(nil, isEncrypted: isEncrypted) }
        let read = try FieldValue.read(dictionary: json, at: path())
        return FieldInput(read.value, isTypeExplicit: read.isTypeExplicit, isEncrypted: isEncrypted)
    }

    private static let kinds: [String: RecordOperation.Kind] = [
        "create": .create, "update": .update, "forceUpdate": .forceUpdate, "forceupdate": .forceUpdate,
        "replace": .replace, "forceReplace": .forceReplace, "forcereplace": .forceReplace, "delete": .delete,
        "forceDelete": .forceDelete, "forcedelete": .forceDelete,
    ]
}
