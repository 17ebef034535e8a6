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

/// Field values read from CloudKit Web Services' field value dictionary, `{"value": V, "type": T}`.
///
/// Reading is liberal, as clients are: `type` may be missing (the type is then inferred from
/// the JSON shape), Apple's aliases (`ASSET`, `LIST`, `NUMBER_INT64`, ...) are accepted, and an
/// `INT64` may arrive as a JSON boolean or a numeric string (`numbersAsStrings`).
extension FieldValue {
    /// Reads a field value dictionary; `path` names it in error reasons.
    /// - Returns: The value and whether its type was given.
    package static func read(
        dictionary json: JSONValue,
        at path: @autoclosure () -> String
    ) throws(NimbusError) -> (value: FieldValue, isTypeExplicit: Bool) {
        let members = try json.object(at: path())
        let value = try members.required("value", at: path())
        func valuePath() -> String { jsonPath(path(), "value") }
        guard let typeName = members.optional("type") else {
            return (try inferred(value, at: valuePath()), false)
        }
        let name = try typeName.string(at: jsonPath(path(), "type"))
        switch FieldTypeName.parse(name) {
        case .exact(let type):
            if let elementType = type.elementType {
                let elements = try value.array(at: valuePath()).enumerated().map { (index, element) throws(NimbusError) in
                    try scalar(elementType, element, at: jsonPath(valuePath(), index))
                }
                return (.list(elementType: elementType, elements), true)
            }
            return (try scalar(type, value, at: valuePath()), true)
        case .genericList:
            let inferredList = try inferred(value, at: valuePath())
            guard case .list = inferredList else { throw .badRequest("\(valuePath()): a LIST value must be an array") }
            return (inferredList, true)
        case nil:
            throw .badRequest("unknown field type '\(name)' at \(jsonPath(path(), "type"))")
        }
    }

    /// Reads a stored field document: an object of field value dictionaries.
    package static func read(fields json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> [NameKey: FieldValue] {
        var fields: [NameKey: FieldValue] = [:]
        for (name, value) in try json.object(at: path()) {
            fields[NameKey(name)] = try read(dictionary: value, at: jsonPath(path(), name)).value
        }
        return fields
    }

    // MARK: - Private

    private static func scalar(_ type: FieldType, _ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> FieldValue {
        switch type {
        case .string: return .string(try json.string(at: path()))
        case .int64: return .int64(try integer(json, at: path(), allowingBool: true))
        case .timestamp: return .timestamp(try integer(json, at: path(), allowingBool: false))
        case .double:
            if let value = json.doubleValue { return .double(value) }
            if case .string(let text) = json, let value = Double(text), value.isFinite { return .double(value) }
            throw JSONValue.wrongType(path(), expected: "a number", found: json)
        case .bytes: return .bytes(try base64(json, at: path()))
        case .encryptedBytes: return .encryptedBytes(try base64(json, at: path()))
        case .reference: return .reference(try Reference.read(json, at: path()))
        case .asset: return .asset(try Asset.read(json, at: path()))
        case .location: return .location(try Location.read(json, at: path()))
        default: throw .badRequest("\(path()): \(type.rawValue) is not a scalar type")
        }
    }

    /// Infers a value's type from its JSON shape, for clients that leave `type` out.
    private static func inferred(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> FieldValue {
        switch json {
        case .string(let text): return .string(text)
        case .integer(let value): return .int64(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .int64(value ? 1 : 0)
        case .null: throw .badRequest("missing value at \(path())")
        case .array(let elements):
            var values: [FieldValue] = []
            for (index, element) in elements.enumerated() {
                let value = try inferred(element, at: jsonPath(path(), index))
                if case .list = value { throw .badRequest("\(path()): lists cannot be nested") }
                if let first = values.first, first.type != value.type {
                    // Integers and doubles mix in JSON arrays of numbers; keep them doubles.
                    if first.type == .double || value.type == .double, let doubles = Self.doubles(values + [value]) {
                        values = doubles
                        continue
                    }
                    throw .badRequest("\(path()): list elements must all have one type")
                }
                values.append(value)
            }
            return .list(elementType: values.first?.type ?? .string, values)
        case .object(let members):
            if members["recordName"] != nil { return .reference(try Reference.read(json, at: path())) }
            if members["latitude"] != nil { return .location(try Location.read(json, at: path())) }
            return .asset(try Asset.read(json, at: path()))
        }
    }

    private static func doubles(_ values: [FieldValue]) -> [FieldValue]? {
        var result: [FieldValue] = []
        for value in values {
            switch value {
            case .int64(let integer): result.append(.double(Double(integer)))
            case .double: result.append(value)
            default: return nil
            }
        }
        return result
    }

    private static func integer(_ json: JSONValue, at path: @autoclosure () -> String, allowingBool: Bool) throws(NimbusError) -> Int64 {
        switch json {
        case .integer(let value): return value
        case .bool(let value) where allowingBool: return value ? 1 : 0
        case .string(let text):
            if let value = Int64(text) { return value }
        // Some clients write integral numbers with a fraction or exponent (`1.7e12`, `3.0`).
        case .double(let value):
            if let integer = Int64(exactly: value) { return integer }
        default: break
        }
        throw JSONValue.wrongType(path(), expected: "an integer", found: json)
    }

    private static func base64(_ json: JSONValue, at path: @autoclosure () -> String) throws(NimbusError) -> Data {
        guard let data = Data(base64Encoded: try json.string(at: path())) else {
            throw .badRequest("invalid value at \(path()): expected base64 data")
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
