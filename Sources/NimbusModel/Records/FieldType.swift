//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The type of a record field, with CloudKit Web Services' names as raw values.
///
/// List types hold elements of one scalar type. Apple names assets `ASSETID` on the wire.
public enum FieldType: String, Sendable, Hashable, CaseIterable, Codable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case timestamp = "TIMESTAMP"
    case bytes = "BYTES"
    case encryptedBytes = "ENCRYPTED_BYTES"
    case reference = "REFERENCE"
    case asset = "ASSETID"
    case location = "LOCATION"
    case stringList = "STRING_LIST"
    case int64List = "INT64_LIST"
    case doubleList = "DOUBLE_LIST"
    case timestampList = "TIMESTAMP_LIST"
    case bytesList = "BYTES_LIST"
    case referenceList = "REFERENCE_LIST"
    case assetList = "ASSETID_LIST"
    case locationList = "LOCATION_LIST"

    /// Whether values of this type are lists.
    public var isList: Bool { elementType != nil }

    /// The element type of a list type, or `nil` for a scalar type.
    public var elementType: FieldType? {
        switch self {
        case .stringList: .string
        case .int64List: .int64
        case .doubleList: .double
        case .timestampList: .timestamp
        case .bytesList: .bytes
        case .referenceList: .reference
        case .assetList: .asset
        case .locationList: .location
        default: nil
        }
    }

    /// The list type whose elements have this type, or `nil` if there is none.
    public var listType: FieldType? {
        FieldType.allCases.first { $0.elementType == self }
    }
}
