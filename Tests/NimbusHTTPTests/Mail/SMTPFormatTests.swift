//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import NimbusServer

/// The parts of the SMTP client that need no server: reading replies, and writing dates,
/// quoted-printable bodies and encoded-words.
@Suite("SMTP formats without a server")
struct SMTPFormatTests {
    @Test(
        "Date headers are RFC 5322 in UTC, before 1970 and on leap days too",
        arguments: [
            (Int64(0), "Thu, 01 Jan 1970 00:00:00 +0000"),
            (-1000, "Wed, 31 Dec 1969 23:59:59 +0000"),
            (951_868_800_000, "Wed, 01 Mar 2000 00:00:00 +0000"),
            (1_709_208_000_000, "Thu, 29 Feb 2024 12:00:00 +0000"),
            (1_772_323_199_999, "Sat, 28 Feb 2026 23:59:59 +0000"),
        ]
    )
    func dates(milliseconds: Int64, expected: String) {
        #expect(RFC5322Date.format(millisecondsSince1970: milliseconds) == expected)
    }

    @Test("quoted-printable keeps lines within 76, escapes =, 8-bit bytes and trailing white space, and keeps text readable")
    func quotedPrintable() {
        #expect(QuotedPrintable.encode("Your code is 123456.") == ["Your code is 123456."])
        #expect(QuotedPrintable.encode("a=b") == ["a=3Db"])
        #expect(QuotedPrintable.encode("ü") == ["=C3=BC"])
        #expect(QuotedPrintable.encode("end \nnext\t") == ["end=20", "next=09"])
        #expect(QuotedPrintable.encode("one\r\ntwo\rthree\nfour") == ["one", "two", "three", "four"])
        let long = QuotedPrintable.encode(String(repeating: "é", count: 100))
        #expect(long.allSatisfy { $0.utf8.count <= 76 })
        #expect(long.dropLast().allSatisfy { $0.hasSuffix("=") })
        // Soft breaks never split an escape.
        #expect(long.allSatisfy { String($0.hasSuffix("=") ? $0.dropLast() : Substring($0)).wholeMatch(of: /(=C3|=A9)+/) != nil })
    }

    @Test("encoded-words stay within 75 characters and lines within 78, and never split a character")
    func encodedWords() throws {
        let text = String(repeating: "日本語👋", count: 20)
        let encoded = EncodedWord.encode(text, after: "Subject: ")
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(("Subject: " + lines[0]).utf8.count <= 78)
        var decoded = Data()
        for line in lines {
            #expect(line.utf8.count <= 78)
            let word = line.trimmingCharacters(in: .whitespaces)
            #expect(word.utf8.count <= 75)
            #expect(word.hasPrefix("=?UTF-8?B?") && word.hasSuffix("?="))
            let bytes = try #require(Data(base64Encoded: String(word.dropFirst(10).dropLast(2))))
            #expect(String(data: bytes, encoding: .utf8) != nil, "a word holds part of a character")
            decoded += bytes
        }
        #expect(String(decoding: decoded, as: UTF8.self) == text)
        #expect(EncodedWord.isPlain("Your code: 123456", maximumLength: 69))
        #expect(!EncodedWord.isPlain("=?UTF-8?B?eA==?=", maximumLength: 69))
    }

    @Test("replies: single and multi-line, split across reads, with CRLF or LF")
    func replies() throws {
        var parser = SMTPReplyParser()
        parser.append(Array("220 smtp.test ready\r\n250-smtp.test\r\n250-AUTH PLAIN LOGIN\r".utf8))
        #expect(try parser.next() == SMTPReply(code: 220, lines: ["smtp.test ready"]))
        #expect(try parser.next() == nil)
        #expect(parser.hasBufferedInput)
        parser.append(Array("\n250 8BITMIME\n354\r\n".utf8))
        let ehlo = try #require(try parser.next())
        #expect(ehlo == SMTPReply(code: 250, lines: ["smtp.test", "AUTH PLAIN LOGIN", "8BITMIME"]))
        #expect(SMTPCapabilities(ehlo: ehlo).authenticationMechanisms == ["PLAIN", "LOGIN"])
        #expect(try parser.next() == SMTPReply(code: 354, lines: [""]))
        #expect(!parser.hasBufferedInput)
    }

    @Test(
        "what is not an SMTP reply is a protocol violation",
        arguments: ["HTTP/1.1 400 Bad Request\r\n", "250-a\r\n251 b\r\n", "25\r\n", "250x\r\n"]
    )
    func badReplies(_ text: String) {
        var parser = SMTPReplyParser()
        parser.append(Array(text.utf8))
        #expect {
            while try parser.next() != nil {}
        } throws: { ($0 as? SMTPError)?.code == .protocolViolation }
    }

    @Test("a reply line that never ends is refused once it passes the limit")
    func endlessLine() {
        var parser = SMTPReplyParser()
        parser.append(Array(repeating: UInt8(ascii: "2"), count: SMTPReplyParser.maximumLineLength + 1))
        #expect(throws: SMTPError.self) { try parser.next() }
    }
}
