//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

extension Filter {
    /// A filter written as a person types it: `field COMPARATOR value`, such as
    /// `title EQUALS hello`, `count > 3` or `pin = "0042"`. The comparator is one of CloudKit's
    /// names (any case) or `=`, `==`, `!=`, `<`, `<=`, `>`, `>=`; a value in double quotes is a
    /// string, otherwise a whole number, a number, or else a string. What the CLI's `--filter`
    /// and the console's query box take.
    public init(parsing text: String) throws(FilterSyntaxError) {
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count == 3,
            let comparator = Self.symbols[String(parts[1])] ?? Comparator(rawValue: parts[1].uppercased())
        else {
            throw FilterSyntaxError(text: text)
        }
        let literal = String(parts[2])
        let value: FieldValue =
            if literal.count >= 2, literal.hasPrefix("\""), literal.hasSuffix("\"") {
                .string(String(literal.dropFirst().dropLast()))
            } else if let integer = Int64(literal) {
                .int64(integer)
            } else if let number = Double(literal) {
                .double(number)
            } else {
                .string(literal)
            }
        self.init(String(parts[0]), comparator, value)
    }

    private static let symbols: [String: Comparator] = [
        "=": .equals, "==": .equals, "!=": .notEquals, "<": .lessThan, "<=": .lessThanOrEquals, ">": .greaterThan,
        ">=": .greaterThanOrEquals,
    ]
}

/// A filter that is not `field COMPARATOR value`.
public struct FilterSyntaxError: Error, Sendable, CustomStringConvertible {
    /// What was typed.
    public var text: String

    public var description: String {
        "a filter is \"field COMPARATOR value\", such as \"title EQUALS hello\" or \"count > 3\"; got \"\(text.prefix(200))\""
    }
}
