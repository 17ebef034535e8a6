//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
package import NimbusModel

/// The words of a record's text, as `CONTAINS_ANY_TOKENS` and `CONTAINS_ALL_TOKENS` match them.
///
/// A token is a run of letters and digits, compared without case or diacritics ("Café" matches
/// "cafe"). Both stores index the same pre-folded text, so SQLite's FTS5 and PostgreSQL's
/// `tsvector` find the same records: the engines' own folding differs (PostgreSQL's `simple`
/// configuration keeps accents).
///
/// A record's search document holds each distinct token twice: bare, for a filter on
/// `Filter.allTokensField`, and qualified by its field (the field name in hexadecimal, `x`, the
/// token), for a filter on one field. Hex keeps any field name inside one index token.
package enum SearchTokens {
    /// Distinct words kept per record, and the bytes of its whole document: a megabyte of text
    /// must not make an index entry PostgreSQL refuses (a `tsvector` holds at most a megabyte).
    package static let maximumTokens = 4_096
    package static let maximumDocumentBytes = 256 * 1024
    /// Longer runs are cut to this many characters, on both sides of the comparison.
    package static let maximumTokenLength = 64

    /// The folded tokens of `text`, in order, repeats included.
    package static func tokens(of text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            guard !current.isEmpty else { return }
            tokens.append(String(String(current).prefix(maximumTokenLength)))
            current = String.UnicodeScalarView()
        }
        for scalar in folded.unicodeScalars {
            if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                current.append(scalar)
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }

    /// `token` as indexed for a filter on `field` alone.
    package static func qualified(_ token: String, field: String) -> String {
        var hex = ""
        for byte in field.utf8 {
            hex += String(byte >> 4, radix: 16) + String(byte & 0xf, radix: 16)
        }
        return hex + "x" + token
    }

    /// The words of a field value: of a string, or of each string of a string list; none of
    /// any other value.
    package static func words(of value: FieldValue) -> [String] {
        switch value {
        case .string(let text): tokens(of: text)
        case .list(.string, let elements): elements.flatMap(words(of:))
        default: []
        }
    }

    /// The search document of a record's plain fields: `nil` when no string field has a token.
    /// Encrypted fields are never indexed.
    package static func document(of fields: [String: FieldValue]) -> String? {
        var seen: Set<String> = []
        var words: [String] = []
        var bytes = 0
        func add(_ word: String) -> Bool {
            guard words.count < maximumTokens * 2, bytes + word.utf8.count + 1 <= maximumDocumentBytes else { return false }
            words.append(word)
            bytes += word.utf8.count + 1
            return true
        }
        fill: for name in fields.keys.sorted() {
            guard let value = fields[name] else { continue }
            for token in self.words(of: value) where seen.insert(name + "\u{0}" + token).inserted {
                if seen.insert(token).inserted, !add(token) { break fill }
                if !add(qualified(token, field: name)) { break fill }
            }
        }
        return words.isEmpty ? nil : words.joined(separator: " ")
    }
}
