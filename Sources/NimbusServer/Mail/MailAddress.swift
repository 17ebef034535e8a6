//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// An email address that can go, as it is, into an SMTP command (`RCPT TO:<…>`) and a header.
///
/// It is checked, not parsed: the server that receives it is the judge of what exists. The
/// check refuses what would change the meaning of the command or header it goes into (a line
/// break ends the command and starts another, which is header or command injection), and what
/// would need an extension we do not speak (non-ASCII addresses need SMTPUTF8, RFC 6531).
struct MailAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address, such as `ann@example.com`.
    let description: String

    /// The part after the last `@`.
    var domain: Substring { description[description.index(after: description.lastIndex(of: "@")!)...] }

    /// Checks `text` as an address.
    init(_ text: String) throws(SMTPError) {
        func invalid(_ message: String) -> SMTPError { SMTPError(.invalidMessage, message) }
        if text.unicodeScalars.contains(where: Self.isForbiddenInHeader) {
            throw invalid("the address holds a line break or control character")
        }
        guard text.unicodeScalars.allSatisfy(\.isASCII) else {
            throw invalid("the address is not ASCII (SMTPUTF8 is not supported)")
        }
        guard !text.contains(where: { $0 == " " || $0 == "<" || $0 == ">" || $0 == "," || $0 == "\"" }) else {
            throw invalid("the address holds a space, quote, comma or angle bracket")
        }
        guard let at = text.lastIndex(of: "@"), at != text.startIndex, text.index(after: at) != text.endIndex else {
            throw invalid("the address needs a local part, an @ and a domain")
        }
        // RFC 5321 4.5.3.1.3: a path is at most 256 octets, so an address at most 254.
        guard text.utf8.count <= 254 else { throw invalid("the address is longer than 254 characters") }
        description = text
    }

    /// Whether a character may not appear in a header or a command line: line breaks (CR, LF,
    /// and Unicode's own) would end it early, and other control characters are not text.
    static func isForbiddenInHeader(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09: false
        case 0x00...0x1F, 0x7F, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
