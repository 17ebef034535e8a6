//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Parses JSON (RFC 8259) into ``JSONValue``.
///
/// `JSONDecoder` spends most of a small request's time in generic `Codable` machinery; reading
/// stored field documents with this parser instead is several times faster. Nesting is limited
/// to ``maximumDepth`` so hostile input cannot exhaust the stack. The grammar is
/// ``JSONCursor``'s.
package enum JSONParser {
    /// Why a document is not valid JSON, with the byte offset.
    package typealias Failure = JSONCursor.Failure

    package static let maximumDepth = JSONCursor.maximumDepth

    /// Parses a whole document.
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> JSONValue {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(Failure) -> JSONValue in
                var cursor = JSONCursor(buffer)
                let value = try cursor.value()
                guard cursor.isAtEnd() else { throw cursor.failure("unexpected text after the JSON value") }
                return value
            }
        }
        return try result.get()
    }

    /// Parses a whole document given as a string.
    package static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }
}
