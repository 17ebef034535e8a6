//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A statement's text and the values bound to its `?` placeholders, in order: built in one
/// place, run in another, alone or inside a larger statement.
package struct SQLStatement: Sendable {
    package var sql: String
    package var binds: [SQLValue]

    package init(sql: String, binds: [SQLValue]) {
        self.sql = sql
        self.binds = binds
    }

    /// `count` placeholders for a list, `?, ?, ?`, as in `IN (…)`.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }
}
