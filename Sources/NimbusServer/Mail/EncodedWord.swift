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

/// Header text in RFC 2047 encoded-words (`=?UTF-8?B?…?=`), for what a header cannot hold as it is.
///
/// Headers are ASCII (RFC 5322); text that is not, such as a subject in French or Japanese, is
/// sent as encoded-words that mail readers decode. Base64 (`B`) is used rather than `Q`: it
/// costs the same on non-Latin text and has no special characters to get wrong.
enum EncodedWord {
    /// The longest encoded-word (RFC 2047 2).
    static let maximumWordLength = 75
    /// The longest header line we write: RFC 5322 2.1.1's "should".
    static let maximumLineLength = 78

    /// Whether `text` can go into a header as it is: printable ASCII and spaces, nothing a
    /// reader would take for an encoded-word, and short enough for one line.
    static func isPlain(_ text: String, maximumLength: Int) -> Bool {
        text.utf8.count <= maximumLength && text.utf8.allSatisfy { (32...126).contains($0) } && !text.contains("=?")
    }

    /// `text` as encoded-words separated by a folding line break (CRLF and a space), which
    /// readers remove along with the space. The first word fits in a line after `prefix` (such
    /// as `Subject: `), the others after the space, each line within 78 characters. A Unicode
    /// scalar is never split between two words, as RFC 2047 5 requires.
    static func encode(_ text: String, after prefix: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let room = words.isEmpty ? maximumLineLength - prefix.utf8.count : maximumLineLength - 1
            let scalarBytes = Array(String(scalar).utf8)
            if !chunk.isEmpty, chunk.count + scalarBytes.count > bytes(fittingIn: room) {
                words.append(word(chunk))
                chunk = []
            }
            chunk += scalarBytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    /// How many raw bytes an encoded-word in `room` characters holds: base64 writes 4
    /// characters for 3 bytes, and `=?UTF-8?B?` and `?=` take 12.
    private static func bytes(fittingIn room: Int) -> Int {
        max(1, (min(room, maximumWordLength) - 12) / 4) * 3
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }
}
