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

/// Every difference between the SQL of the databases Nimbus runs on.
///
/// The store writes its statements once, in SQL both engines accept (`ON CONFLICT`,
/// `RETURNING`, row values); whatever differs is spelled here and nowhere else.
package enum SQLDialect: Sendable {
    case sqlite

    /// The column type of binary data.
    package var blobType: String {
        switch self {
        case .sqlite: "BLOB"
        }
    }

    /// The column type of a JSON document.
    package var jsonType: String {
        switch self {
        case .sqlite: "TEXT"
        }
    }

    /// An expression for the scalar at `path` (a list of object keys) inside a JSON column, typed
    /// as it is in the document (text, integer or real).
    ///
    /// Keys are field names, which the engine restricts to letters, digits, `_` and `.`; quotes
    /// are escaped all the same, so the literal can never end early.
    package func jsonScalar(column: String, path: [String]) -> String {
        switch self {
        case .sqlite:
            let jsonPath = "$" + path.map { ".\"" + $0.replacing("\"", with: "") + "\"" }.joined()
            return "json_extract(\(column), '\(jsonPath.replacing("'", with: "''"))')"
        }
    }

    /// A test that `column` is one of the strings of a JSON array bound to the placeholder.
    package func isMember(_ column: String) -> String {
        switch self {
        case .sqlite: "\(column) IN (SELECT value FROM json_each(?))"
        }
    }

    /// The larger of two expressions.
    package func greatest(_ first: String, _ second: String) -> String {
        switch self {
        case .sqlite: "MAX(\(first), \(second))"
        }
    }

    /// The current time in milliseconds since 1970, as an SQL expression.
    package var currentTimeMilliseconds: String {
        switch self {
        case .sqlite: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
        }
    }
}
