//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension RecordsModifyRequest: WireRequestBody {
    /// A `records/modify` request.
    public init(
        operations: [RecordOperation],
        zoneID: ZoneID? = nil,
        atomic: Bool? = nil,
        desiredKeys: [String]? = nil,
        numbersAsStrings: Bool? = nil
    ) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }

    /// Writes the body; every field names its type (a type left out is the server's to infer,
    /// which only hand-written bodies need).
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let zoneID { writer.field("zoneID", zoneID) }
        writer.key("operations")
        writer.beginArray()
        for operation in operations { Self.write(operation, to: &writer) }
        writer.endArray()
        if let atomic { writer.field("atomic", atomic) }
        if let desiredKeys { writer.stringArray("desiredKeys", desiredKeys) }
        if let numbersAsStrings { writer.field("numbersAsStrings", numbersAsStrings) }
        writer.endObject()
    }

    private static func write(_ operation: RecordOperation, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("operationType", operation.kind.rawValue)
        writer.key("record")
        writer.beginObject()
        if let name = operation.recordName { writer.field("recordName", name) }
        if let type = operation.recordType { writer.field("recordType", type) }
        if let tag = operation.recordChangeTag { writer.field("recordChangeTag", tag) }
        if !operation.kind.isDelete {
            writer.key("fields")
            writer.beginObject()
            for (name, input) in operation.fields {
                writer.key(escaping: name.string)
                if let value = input.value {
                    value.write(to: &writer, isEncrypted: input.isEncrypted)
                } else {
                    writer.beginObject()
                    writer.key("value")
                    writer.null()
                    if input.isEncrypted {
                        writer.field("isEncrypted", true)
                    }
                    writer.endObject()
                }
            }
            writer.endObject()
        }
        switch operation.parent {
        case .unchanged:
            break
        case .clear:
            writer.key("parent")
            writer.null()
        case .set(let parent):
            writer.key("parent")
            writer.beginObject()
            writer.field("recordName", parent)
            writer.endObject()
        }
        operation.share?.write(intoRecord: &writer)
        writer.endObject()
        writer.endObject()
    }
}

extension RecordOperation {
    /// The operation that saves a whole record as `kind` (`create`, `update`, `replace` or a
    /// forced one): its type, change tag (when it has one), fields and parent.
    public init(saving record: Record, as kind: Kind) {
        // `mapValues` keeps the dictionary's layout: no key is hashed again.
        var fields = record.fields.mapValues { FieldInput($0) }
        for (name, value) in record.encryptedFields { fields[name] = FieldInput(value, isEncrypted: true) }
        self.init(
            kind: kind,
            recordName: record.recordID.recordName,
            recordType: record.recordType,
            recordChangeTag: record.recordChangeTag.isEmpty ? nil : record.recordChangeTag,
            fields: fields,
            parent: record.parentRecordName.map { .set($0) } ?? .unchanged
        )
    }
}
