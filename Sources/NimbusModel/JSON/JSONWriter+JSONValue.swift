//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

extension JSONWriter {
    /// Writes a parsed JSON value back out, object keys in sorted order (stable output).
    package mutating func value(_ json: JSONValue) {
        switch json {
        case .null: null()
        case .bool(let value): bool(value)
        case .integer(let value): integer(value)
        case .double(let value): double(value)
        case .string(let value): string(value)
        case .array(let elements):
            beginArray()
            for element in elements { value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                self.key(escaping: key)
                value(member)
            }
            endObject()
        }
    }
}
