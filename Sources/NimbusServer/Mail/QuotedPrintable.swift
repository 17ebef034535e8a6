//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The quoted-printable encoding of a text body (RFC 2045 6.7).
///
/// Bodies are sent quoted-printable rather than `8bit`: `8bit` may only go to a server that
/// announces 8BITMIME, and its lines must stay under 998 bytes, which a long link in a body
/// can exceed. Quoted-printable is 7-bit, so every server takes it, its lines are at most 76
/// characters (longer ones get soft breaks), and ASCII text, such as a sign-in code, stays
/// readable in the raw message.
enum QuotedPrintable {
    /// The longest encoded line, soft-break `=` included.
    static let maximumLineLength = 76

    /// Encodes `text` as lines without their CRLF. A line break of the text (CRLF, LF or a lone
    /// CR) is a line break of the result; other bytes that are not printable ASCII, `=`, and
    /// white space at the end of a line are written `=XX`.
    static func encode(_ text: String) -> [String] {
        var output: [String] = []
        for line in lines(of: text) {
            var current = ""
            let bytes = Array(line.utf8)
            for (index, byte) in bytes.enumerated() {
                let isLast = index == bytes.count - 1
                let token = encoded(byte, atEndOfLine: isLast)
                // Room for the token, and for a soft break after it unless the line ends here.
                let limit = isLast ? maximumLineLength : maximumLineLength - 1
                if current.utf8.count + token.utf8.count > limit {
                    output.append(current + "=")
                    current = ""
                }
                current += token
            }
            output.append(current)
        }
        return output
    }

    private static func encoded(_ byte: UInt8, atEndOfLine: Bool) -> String {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"):
            // Trailing white space may be dropped on the way (RFC 2045 6.7 rule 3).
            atEndOfLine ? hex(byte) : String(UnicodeScalar(byte))
        case 33...126 where byte != UInt8(ascii: "="):
            String(UnicodeScalar(byte))
        default:
            hex(byte)
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return "=" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    /// The lines of `text`, for any of the three line-break conventions.
    static func lines(of text: String) -> [Substring] {
        // Swift treats "\r\n" as one Character, so splitting on Characters handles all three.
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" })
    }
}
