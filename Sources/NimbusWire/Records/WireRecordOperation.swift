//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `records/modify`.
public struct RecordsModifyRequest: Decodable, Sendable {
    public var operations: [WireRecordOperation]
    public var zoneID: ZoneID?
    /// Whether the batch is all-or-nothing; CloudKit's default is `true` (custom zones only).
    public var atomic: Bool?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}

/// One operation of `records/modify` as a client sends it.
public struct WireRecordOperation: Decodable, Sendable {
    public var operationType: String
    public var record: WireRecordInput?
    public var desiredKeys: [String]?

    /// The model operation, or the reason the operation is malformed.
    public func operation() throws(NimbusError) -> RecordOperation {
        guard let kind = Self.kinds[operationType] ?? Self.kinds[operationType.lowercased()] else {
            throw .badRequest("unknown operationType '\(operationType)'")
        }
        guard let record else { throw .badRequest("operation '\(operationType)' has no record") }
        var fields: [String: FieldInput] = [:]
        // Deletes ignore fields: CloudKitPy sends `"fields": null, "deleted": false` with them.
        if !kind.isDelete {
            for (name, field) in record.fields ?? [:] {
                fields[name] = FieldInput(field.value, isTypeExplicit: field.type != nil, isEncrypted: field.isEncrypted ?? false)
            }
        }
        let parent: RecordOperation.ParentChange =
            switch record.parent {
            case .absent: .unchanged
            case .null: .clear
            case .some(let name): .set(name)
            }
        return RecordOperation(
            kind: kind, recordName: record.recordName, recordType: record.recordType,
            recordChangeTag: record.recordChangeTag, fields: fields, parent: parent)
    }

    private static let kinds: [String: RecordOperation.Kind] = [
        "create": .create, "update": .update, "forceUpdate": .forceUpdate, "forceupdate": .forceUpdate,
        "replace": .replace, "forceReplace": .forceReplace, "forcereplace": .forceReplace, "delete": .delete,
        "forceDelete": .forceDelete, "forcedelete": .forceDelete,
    ]
}

/// The `record` of a modify operation.
public struct WireRecordInput: Decodable, Sendable {
    public var recordName: String?
    public var recordType: String?
    public var recordChangeTag: String?
    public var fields: [String: WireFieldInput]?
    public var parent: WireParent

    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, parent
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try container.decodeIfPresent(String.self, forKey: .recordName)
        recordType = try container.decodeIfPresent(String.self, forKey: .recordType)
        recordChangeTag = try container.decodeIfPresent(String.self, forKey: .recordChangeTag)
        fields = try container.decodeIfPresent([String: WireFieldInput].self, forKey: .fields)
        if !container.contains(.parent) {
            parent = .absent
        } else if try container.decodeNil(forKey: .parent) {
            parent = .null
        } else {
            parent = .some(try container.decode(ParentReference.self, forKey: .parent).recordName)
        }
    }

    private struct ParentReference: Decodable {
        var recordName: String
    }
}

/// A record's `parent` key: left out, `null`, or a reference.
public enum WireParent: Sendable {
    case absent
    case null
    case some(String)
}

/// A field value dictionary in a request: `type` may be missing, `value` may be `null` (remove
/// the field), and `isEncrypted: true` marks one of CloudKit's `encryptedValues`.
public struct WireFieldInput: Decodable, Sendable {
    public var value: FieldValue?
    public var type: String?
    public var isEncrypted: Bool?

    private enum CodingKeys: String, CodingKey {
        case value, type, isEncrypted
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        isEncrypted = try container.decodeIfPresent(Bool.self, forKey: .isEncrypted)
        if !container.contains(.value) {
            throw DecodingError.keyNotFound(
                CodingKeys.value, .init(codingPath: container.codingPath, debugDescription: "a field needs a value"))
        }
        value = try container.decodeNil(forKey: .value) ? nil : try FieldValue(from: decoder)
    }
}
