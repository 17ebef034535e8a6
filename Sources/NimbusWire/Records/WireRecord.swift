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
    /// - Parameter downloadURL: The download URL of a stored asset, by its identifier. Stored
    ///   assets' identifiers never reach clients: without this, their assets carry no URL.
    public init(_ record: Record, desiredKeys: Set<NameKey>?, downloadURL: ((String) -> String)? = nil) {
        self.record = record.keeping(fields: desiredKeys)
        guard self.record.fields.values.contains(where: \.isAsset) else { return }
        for (name, value) in self.record.fields {
            switch value {
            case .asset(let asset):
                self.record.fields[name] = .asset(Self.presented(asset, downloadURL))
            case .list(.asset, let elements):
                self.record.fields[name] = .list(
                    elementType: .asset,
                    elements.map { element in
                        guard case .asset(let asset) = element else { return element }
                        return .asset(Self.presented(asset, downloadURL))
                    }
                )
            default:
                break
            }
        }
    }

    private static func presented(_ asset: Asset, _ downloadURL: ((String) -> String)?) -> Asset {
        var presented = asset
        if let id = asset.assetID {
            presented.downloadURL = downloadURL?(id)
            presented.assetID = nil
        }
        presented.receipt = nil
        return presented
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
