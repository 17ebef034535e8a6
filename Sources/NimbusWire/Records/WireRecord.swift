//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A record as responses carry it: every key clients require, always.
///
/// OpenCloudKit ignores `created` without `deviceID`, CloudyKit drops records without
/// `created.timestamp`, MistKit needs `recordType` on tombstones: so every record carries
/// `recordName`, `recordType`, `recordChangeTag`, `fields`, `created`, `modified` and `zoneID`.
/// Encrypted fields are field value dictionaries with `"isEncrypted": true`.
public struct WireRecord: Encodable, Sendable {
    public var record: Record

    /// Wraps a record, keeping only `desiredKeys` (all fields when `nil`).
    public init(_ record: Record, desiredKeys: Set<String>?) {
        self.record = record.keeping(fields: desiredKeys)
    }

    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, created, modified, zoneID, parent
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(record.recordID.recordName, forKey: .recordName)
        try container.encode(record.recordType, forKey: .recordType)
        try container.encode(record.recordChangeTag, forKey: .recordChangeTag)
        var fields = container.nestedContainer(keyedBy: FieldKey.self, forKey: .fields)
        for (name, value) in record.fields {
            try fields.encode(value, forKey: FieldKey(name))
        }
        for (name, value) in record.encryptedFields {
            try fields.encode(EncryptedField(value: value), forKey: FieldKey(name))
        }
        try container.encode(record.created, forKey: .created)
        try container.encode(record.modified, forKey: .modified)
        try container.encode(WireZoneID(record.recordID.zoneID), forKey: .zoneID)
        if let parent = record.parentRecordName {
            try container.encode(["recordName": parent], forKey: .parent)
        }
    }

    private struct EncryptedField: Encodable {
        var value: FieldValue

        enum CodingKeys: String, CodingKey {
            case isEncrypted
        }

        func encode(to encoder: any Encoder) throws {
            try value.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(true, forKey: .isEncrypted)
        }
    }
}

/// A deleted record in a response: `{recordName, recordType, deleted: true}`.
public struct WireTombstone: Encodable, Sendable {
    public var recordName: String
    public var recordType: String
    public var deleted = true

    public init(recordName: String, recordType: String) {
        self.recordName = recordName
        self.recordType = recordType
    }
}

/// A zone ID in a response, with both owner spellings (MistKit and CloudyKit read `ownerName`).
public struct WireZoneID: Encodable, Sendable {
    public var zoneName: String
    public var ownerRecordName: String
    public var ownerName: String

    public init(_ zoneID: ZoneID) {
        zoneName = zoneID.zoneName
        ownerRecordName = zoneID.ownerRecordName
        ownerName = zoneID.ownerRecordName
    }
}

/// A coding key for any field name.
struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
