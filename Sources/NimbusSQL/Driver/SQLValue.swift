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

/// A value bound to a statement or read from a row, in the types both SQLite and PostgreSQL
/// have, and lists to bind.
package enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    /// A list for ``SQLDialect/isAmong(_:)``: an array on PostgreSQL, a JSON array on SQLite.
    /// Bound only, never read.
    case textList([String])
    /// A list of integers for ``SQLDialect/isAmong(_:)``, as ``textList(_:)``.
    case integerList([Int64])

    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    package var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }

    /// Whether the value is a list (``textList(_:)``, ``integerList(_:)``).
    package var isList: Bool {
        switch self {
        case .textList, .integerList: true
        default: false
        }
    }

    package var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

/// One result row: its values by column position.
package struct SQLRow: Sendable {
    package var values: [SQLValue]

    package init(values: [SQLValue]) {
        self.values = values
    }

    package subscript(_ index: Int) -> SQLValue { values[index] }

    /// The text at `index`, or the empty string where the column is NULL or not text.
    package func string(_ index: Int) -> String { values[index].text ?? "" }

    /// The integer at `index`, or 0 where the column is NULL or not an integer.
    package func int(_ index: Int) -> Int64 { values[index].integer ?? 0 }
}
