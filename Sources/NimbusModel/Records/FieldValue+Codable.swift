//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Field values code as CloudKit Web Services' field value dictionary, `{"type": T, "value": V}`.
///
/// Decoding is liberal, as clients are: `type` may be missing (the type is then inferred from
/// the JSON shape), Apple's aliases (`ASSET`, `LIST`, `NUMBER_INT64`, ...) are accepted, and an
/// `INT64` may arrive as a JSON boolean or a numeric string. Encoding always writes `type`, and
/// writes integers as JSON integers unless ``numbersAsStringsKey`` is set in `userInfo`.
extension FieldValue: Codable {
    /// An encoder `userInfo` key; when its value is `true`, 64-bit integers and timestamps encode as
    /// strings (CKWS `numbersAsStrings`, for JavaScript clients).
    public static let numbersAsStringsKey = CodingUserInfoKey(rawValue: "nimbus.numbersAsStrings")!

    private enum CodingKeys: String, CodingKey {
        case type
        case value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let valueDecoder = try container.superDecoder(forKey: .value)
        guard let typeName = try container.decodeIfPresent(String.self, forKey: .type) else {
            self = try Self.inferred(from: valueDecoder)
            return
        }
        switch FieldTypeName.parse(typeName) {
        case .exact(let type):
            if let elementType = type.elementType {
                self = .list(elementType: elementType, try Self.list(of: elementType, from: valueDecoder))
            } else {
                self = try Self.scalar(type, from: valueDecoder)
            }
        case .genericList:
            self = try Self.inferred(from: valueDecoder)
            guard case .list = self else {
                throw DecodingError.dataCorruptedError(
                    forKey: .value, in: container, debugDescription: "a LIST value must be an array")
            }
        case nil:
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: container, debugDescription: "unknown field type '\(typeName)'")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type.rawValue, forKey: .type)
        let numbersAsStrings = encoder.userInfo[Self.numbersAsStringsKey] as? Bool ?? false
        try encodeValue(to: container.superEncoder(forKey: .value), numbersAsStrings: numbersAsStrings)
    }

    // MARK: - Encoding

    private func encodeValue(to encoder: any Encoder, numbersAsStrings: Bool) throws {
        if case .list(_, let elements) = self {
            var list = encoder.unkeyedContainer()
            for element in elements {
                try element.encodeValue(to: list.superEncoder(), numbersAsStrings: numbersAsStrings)
            }
            return
        }
        var single = encoder.singleValueContainer()
        switch self {
        case .string(let value): try single.encode(value)
        case .int64(let value), .timestamp(let value):
            if numbersAsStrings { try single.encode(String(value)) } else { try single.encode(value) }
        case .double(let value): try single.encode(value)
        case .bytes(let data), .encryptedBytes(let data): try single.encode(data.base64EncodedString())
        case .reference(let reference): try single.encode(reference)
        case .asset(let asset): try single.encode(asset)
        case .location(let location): try single.encode(location)
        case .list: break
        }
    }

    // MARK: - Decoding

    private static func scalar(_ type: FieldType, from decoder: any Decoder) throws -> FieldValue {
        let single = try decoder.singleValueContainer()
        switch type {
        case .string: return .string(try single.decode(String.self))
        case .int64: return .int64(try integer(from: single, allowingBool: true))
        case .timestamp: return .timestamp(try integer(from: single, allowingBool: false))
        case .double:
            if let text = try? single.decode(String.self), let value = Double(text) { return .double(value) }
            return .double(try single.decode(Double.self))
        case .bytes: return .bytes(try base64(from: single))
        case .encryptedBytes: return .encryptedBytes(try base64(from: single))
        case .reference: return .reference(try single.decode(Reference.self))
        case .asset: return .asset(try single.decode(Asset.self))
        case .location: return .location(try single.decode(Location.self))
        default:
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "\(type.rawValue) is not a scalar type")
        }
    }

    private static func list(of elementType: FieldType, from decoder: any Decoder) throws -> [FieldValue] {
        var list = try decoder.unkeyedContainer()
        var elements: [FieldValue] = []
        while !list.isAtEnd {
            elements.append(try scalar(elementType, from: list.superDecoder()))
        }
        return elements
    }

    /// Infers a value's type from its JSON shape, for clients that leave `type` out.
    ///
    /// The most common shapes are tried first: each failed attempt throws a `DecodingError`,
    /// which costs far more than a successful decode.
    private static func inferred(from decoder: any Decoder) throws -> FieldValue {
        if let single = try? decoder.singleValueContainer() {
            if let value = try? single.decode(String.self) { return .string(value) }
            if let value = try? single.decode(Int64.self) { return .int64(value) }
            if let value = try? single.decode(Double.self) { return .double(value) }
            if let value = try? single.decode(Bool.self) { return .int64(value ? 1 : 0) }
            if let value = try? single.decode(Reference.self) { return .reference(value) }
            if let value = try? single.decode(Location.self) { return .location(value) }
        }
        if var list = try? decoder.unkeyedContainer() {
            var elements: [FieldValue] = []
            while !list.isAtEnd {
                let element = try inferred(from: list.superDecoder())
                if case .list = element {
                    throw DecodingError.dataCorruptedError(in: list, debugDescription: "lists cannot be nested")
                }
                if let first = elements.first, first.type != element.type {
                    throw DecodingError.dataCorruptedError(in: list, debugDescription: "list elements must all have one type")
                }
                elements.append(element)
            }
            return .list(elementType: elements.first?.type ?? .string, elements)
        }
        let single = try decoder.singleValueContainer()
        if let value = try? single.decode(Asset.self) { return .asset(value) }
        throw DecodingError.dataCorruptedError(in: single, debugDescription: "field value has no recognisable type")
    }

    private static func integer(from single: any SingleValueDecodingContainer, allowingBool: Bool) throws -> Int64 {
        if let value = try? single.decode(Int64.self) { return value }
        if allowingBool, let value = try? single.decode(Bool.self) { return value ? 1 : 0 }
        if let text = try? single.decode(String.self), let value = Int64(text) { return value }
        // Some clients write integral numbers with a fraction part (`1.7e12`, `3.0`).
        if let value = try? single.decode(Double.self), value.rounded() == value, abs(value) < 9.0e18 {
            return Int64(value)
        }
        throw DecodingError.dataCorruptedError(in: single, debugDescription: "expected an integer")
    }

    private static func base64(from single: any SingleValueDecodingContainer) throws -> Data {
        let text = try single.decode(String.self)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "expected base64 data")
        }
        return data
    }
}

/// The spellings of field types clients send, Apple's names and their aliases.
enum FieldTypeName: Equatable {
    case exact(FieldType)
    case genericList

    static func parse(_ name: String) -> FieldTypeName? {
        let upper = name.uppercased()
        if let type = FieldType(rawValue: upper) { return .exact(type) }
        switch upper {
        case "ASSET": return .exact(.asset)
        case "ASSET_LIST": return .exact(.assetList)
        case "NUMBER_INT64": return .exact(.int64)
        case "NUMBER_DOUBLE": return .exact(.double)
        case "LIST": return .genericList
        default: return nil
        }
    }
}
