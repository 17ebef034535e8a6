//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// CloudKit's rules for field names and values, and the type coercions untyped values get.
enum FieldRules {
    /// The longest field name accepted.
    static let maximumNameLength = 255

    /// Returns why a field name is invalid, or `nil` if it is valid.
    ///
    /// Names start with a letter and hold letters, digits, `_` and `.` (CloudKit's own share
    /// fields are `cloudkit.title`); names starting `___` are system fields.
    static func nameViolation(_ name: String) -> String? {
        guard let first = name.utf8.first, isLetter(first) else {
            return "field name '\(name.prefix(64))' must start with a letter"
        }
        guard name.utf8.count <= maximumNameLength else { return "field name is longer than \(maximumNameLength) characters" }
        // Every byte of an allowed name is ASCII, so checking UTF-8 bytes is exact.
        let allowed = name.utf8.allSatisfy {
            isLetter($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
        }
        return allowed ? nil : "field name '\(name.prefix(64))' may hold only letters, digits, '_' and '.'"
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Returns why a value cannot be stored, or `nil` if it can.
    ///
    /// Strings must not contain U+0000: SQLite's JSON functions, which queries read fields
    /// with, end strings there, so such a value could never be matched correctly.
    static func valueViolation(_ value: FieldValue, field: String) -> String? {
        switch value {
        case .string(let text) where text.utf8.contains(0):
            return "field '\(field.prefix(64))' holds a NUL character, which strings may not contain"
        case .list(_, let elements):
            return elements.lazy.compactMap { valueViolation($0, field: field) }.first
        default:
            return nil
        }
    }

    /// Converts a value the client sent without a type to the schema's type, where the JSON
    /// shape allows (a number for a timestamp, a string for bytes); returns `nil` if it can't.
    static func coerce(_ value: FieldValue, to type: FieldType) -> FieldValue? {
        if value.type == type { return value }
        switch (value, type) {
        case (.int64(let integer), .timestamp): return .timestamp(integer)
        case (.int64(let integer), .double): return .double(Double(integer))
        case (.double(let real), .timestamp): return Int64(exactly: real).map(FieldValue.timestamp)
        case (.string(let text), .bytes): return Data(base64Encoded: text).map(FieldValue.bytes)
        case (.string(let text), .encryptedBytes): return Data(base64Encoded: text).map(FieldValue.encryptedBytes)
        case (.list(_, let elements), _):
            guard let elementType = type.elementType else { return nil }
            var converted: [FieldValue] = []
            for element in elements {
                guard let value = coerce(element, to: elementType) else { return nil }
                converted.append(value)
            }
            return .list(elementType: elementType, converted)
        default: return nil
        }
    }
}

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
