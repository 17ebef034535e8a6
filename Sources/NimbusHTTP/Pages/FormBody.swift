//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation

/// The fields of an `application/x-www-form-urlencoded` body, as the pages' forms post them.
struct FormBody: Sendable {
    private var fields: [String: String] = [:]

    /// Reads a body; a field named twice keeps its first value.
    init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), fields[name] == nil else { continue }
            fields[name] = parts.count == 2 ? Self.decode(parts[1]) : ""
        }
    }

    /// A field's value, `nil` if the form has no such field.
    subscript(_ name: String) -> String? { fields[name] }

    private static func decode(_ text: Substring) -> String? {
        String(text).replacing("+", with: " ").removingPercentEncoding
    }
}
