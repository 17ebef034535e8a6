//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// The value of one record field.
///
/// Timestamps are milliseconds since 1970-01-01 UTC, as on the wire. A list holds elements of
/// one scalar type, which the list carries so an empty list keeps its type.
public enum FieldValue: Sendable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case timestamp(Int64)
    case bytes(Data)
    case encryptedBytes(Data)
    case reference(Reference)
    // Out of line: an asset or a location is several times larger than the other values, and
    // every value in a record's fields would otherwise take its size.
    indirect case asset(Asset)
    indirect case location(Location)
    indirect case list(elementType: FieldType, [FieldValue])

    /// Whether the value is an asset or a list of assets: the server keeps its own form of them.
    package var isAsset: Bool {
        switch self {
        case .asset: true
        case .list(let elementType, _): elementType == .asset
        default: false
        }
    }

    /// The value's type.
    public var type: FieldType {
        switch self {
        case .string: .string
        case .int64: .int64
        case .double: .double
        case .timestamp: .timestamp
        case .bytes: .bytes
        case .encryptedBytes: .encryptedBytes
        case .reference: .reference
        case .asset: .asset
        case .location: .location
        // Every element type reachable here has a list type: the wire decoder only builds such lists.
        case .list(let elementType, _): elementType.listType ?? .stringList
        }
    }

    /// The references this value holds: itself, or the elements of a reference list.
    public var references: [Reference] {
        switch self {
        case .reference(let reference): [reference]
        case .list(_, let elements): elements.flatMap(\.references)
        default: []
        }
    }
}
