//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Typed reads from parsed JSON that fail with a `BAD_REQUEST` naming the path and the problem,
/// so a client learns exactly which part of its request was wrong.
///
/// The path is taken as an autoclosure, here and in the readers built on these: it is written
/// out only for an error's reason, so a request read without error builds none of its paths.
extension JSONValue {
    package func object(at path: @autoclosure () -> String) throws(NimbusError) -> JSONObject {
        guard case .object(let members) = self else { throw Self.wrongType(path(), expected: "an object", found: self) }
        return members
    }

    package func array(at path: @autoclosure () -> String) throws(NimbusError) -> [JSONValue] {
        guard case .array(let elements) = self else { throw Self.wrongType(path(), expected: "an array", found: self) }
        return elements
    }

    package func string(at path: @autoclosure () -> String) throws(NimbusError) -> String {
        guard case .string(let value) = self else { throw Self.wrongType(path(), expected: "a string", found: self) }
        return value
    }

    package func bool(at path: @autoclosure () -> String) throws(NimbusError) -> Bool {
        guard case .bool(let value) = self else { throw Self.wrongType(path(), expected: "a boolean", found: self) }
        return value
    }

    /// An integer member; `164.0` counts as 164, as JSON (and JSON Schema) has one number type.
    package func integer(at path: @autoclosure () -> String) throws(NimbusError) -> Int64 {
        switch self {
        case .integer(let value): return value
        case .double(let value):
            guard let exact = Int64(exactly: value) else { throw Self.wrongType(path(), expected: "an integer", found: self) }
            return exact
        default: throw Self.wrongType(path(), expected: "an integer", found: self)
        }
    }

    package var isNull: Bool { self == .null }

    /// A short name for the kind of value, for error reasons.
    package var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .integer, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func wrongType(_ path: String, expected: String, found: JSONValue) -> NimbusError {
        .badRequest("wrong type at \(path): expected \(expected), found \(found.kindName)")
    }
}

extension JSONObject {
    /// A member that must be present and not null.
    package func required(_ key: String, at path: @autoclosure () -> String) throws(NimbusError) -> JSONValue {
        guard let value = self[key], !value.isNull else {
            throw .badRequest("missing required field '\(key)'" + (path().isEmpty ? "" : " in \(path())"))
        }
        return value
    }

    /// A member that may be absent or null.
    package func optional(_ key: String) -> JSONValue? {
        guard let value = self[key], !value.isNull else { return nil }
        return value
    }
}

/// Joins JSON paths for error reasons: `operations[0].record`.
package func jsonPath(_ base: String, _ key: String) -> String {
    base.isEmpty ? key : base + "." + key
}

package func jsonPath(_ base: String, _ index: Int) -> String {
    base + "[\(index)]"
}
