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
public struct WireRecord: WireResponse {
    /// The record, with only the desired fields.
    public var record: Record

    /// Wraps a record, keeping only `desiredKeys` (all fields when `nil`).
    public init(_ record: Record, desiredKeys: Set<NameKey>?) {
        self.record = record.keeping(fields: desiredKeys)
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        RecordWireCoding.write(record, to: &writer, as: .response(numbersAsStrings: options.numbersAsStrings)) { writer in
            if let details = record.shareDetails { WireShare.writeKeys(of: details, to: &writer) }
        }
    }
}

public struct WireTombstone: WireResponse {
    /// The deleted record's name.
    public var recordName: String
    /// The deleted record's type.
    public var recordType: String

    /// Creates a tombstone for a deleted record.
    public init(recordName: String, recordType: String) {
        self.recordName = recordName
        self.recordType = recordType
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.field("recordName", recordName)
        writer.field("recordType", recordType)
        writer.key("deleted")
        writer.bool(true)
        writer.endObject()
    }
}

/// A zone ID in a response, with both owner spellings (MistKit and CloudyKit read `ownerName`).
public struct WireZoneID: WireResponse {
    /// The zone ID to write.
    public var zoneID: ZoneID

    /// Wraps a zone ID.
    public init(_ zoneID: ZoneID) {
        self.zoneID = zoneID
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        RecordWireCoding.writeAnswered(zoneID, to: &writer)
    }
}
