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
        if let tokens = asciiTokens(of: text) { return tokens }
        return unicodeTokens(of: text)
    }

    /// The tokens of ASCII text, where folding is lowering the case and a token is a run of
    /// `A-Z a-z 0-9`: the same tokens as ``unicodeTokens(of:)`` (tests compare them), without
    /// Foundation's folding and a Unicode property lookup per character, which made tokenizing
    /// a record's text a noticeable part of every save. `nil` for text that is not ASCII.
    package static func asciiTokens(of text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var tokens: [String] = []
            var start = -1
            func flush(at end: Int) {
                guard start >= 0 else { return }
                let token = UnsafeBufferPointer(rebasing: bytes[start..<min(end, start + maximumTokenLength)])
                tokens.append(
                    String(unsafeUninitializedCapacity: token.count) { output in
                        for (index, byte) in token.enumerated() {
                            output[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                        }
                        return token.count
                    }
                )
                start = -1
            }
            for index in bytes.indices {
                let byte = bytes[index]
                guard byte < 0x80 else { return nil }
                let isWordByte =
                    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                    || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                if isWordByte {
                    if start < 0 { start = index }
                } else {
                    flush(at: index)
                }
            }
            flush(at: bytes.count)
            return tokens
        }
    }

    /// The tokens of any text, by Unicode's rules: folded without case or diacritics, runs of
    /// alphabetic and numeric characters.
    package static func unicodeTokens(of text: String) -> [String] {
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
        qualifier(of: field) + token
    }

    /// What ``qualified(_:field:)`` puts before a token of `field`: its name in hexadecimal, `x`.
    private static func qualifier(of field: String) -> String {
        var hex: [UInt8] = []
        hex.reserveCapacity(field.utf8.count * 2 + 1)
        Hex.append(field.utf8, to: &hex)
        hex.append(UInt8(ascii: "x"))
        return String(decoding: hex, as: UTF8.self)
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
    package static func document(of fields: [NameKey: FieldValue]) -> String? {
        // Written straight into bytes, and words told apart by a short list before a set: a
        // record's text has a few words, and this runs inside the write of every save.
        var document: [UInt8] = []
        var words = 0
        var counted = 0
        var seen = DistinctWords()
        func add(_ qualifier: String, _ word: String) -> Bool {
            let length = qualifier.utf8.count + word.utf8.count
            // Each word counts a separator after it, the last one's included.
            guard words < maximumTokens * 2, counted + length + 1 <= maximumDocumentBytes else { return false }
            counted += length + 1
            if !document.isEmpty { document.append(UInt8(ascii: " ")) }
            document.append(contentsOf: qualifier.utf8)
            document.append(contentsOf: word.utf8)
            words += 1
            return true
        }
        fill: for name in fields.keys.sorted() {
            guard let value = fields[name] else { continue }
            let tokens = self.words(of: value)
            guard !tokens.isEmpty else { continue }
            // Made once per field, not per word.
            let qualifier = qualifier(of: name.string)
            var seenInField = DistinctWords()
            for token in tokens where seenInField.insert(token) {
                if seen.insert(token), !add("", token) { break fill }
                if !add(qualifier, token) { break fill }
            }
        }
        return words == 0 ? nil : String(decoding: document, as: UTF8.self)
    }

    /// Distinct strings: a list while short (a linear search beats hashing a few words), a set
    /// once long.
    private struct DistinctWords {
        private var list: [String] = []
        private var set: Set<String> = []

        /// Adds `word`; whether it was new.
        mutating func insert(_ word: String) -> Bool {
            if set.isEmpty {
                if list.contains(word) { return false }
                list.append(word)
                if list.count > 16 {
                    set = Set(list)
                    list = []
                }
                return true
            }
            return set.insert(word).inserted
        }
    }
}
