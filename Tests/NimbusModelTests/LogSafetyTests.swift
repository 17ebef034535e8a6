//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusModel

@Suite("addresses and log values")
struct LogSafetyTests {
    @Test(
        "well-formed email addresses and phone numbers pass",
        arguments: [
            LookupInfo.emailAddress("ann@example.com"), .emailAddress(" Ann.Example+tag@mail.example.co.uk "), .emailAddress("zoë@exämple.de"),
            .phoneNumber("+1 (555) 010-0199"), .phoneNumber("0301234567"), .userRecordName("_abc"),
        ]
    )
    func wellFormed(address: LookupInfo) {
        #expect(address.syntaxViolation == nil)
    }

    @Test(
        "anything else is refused",
        arguments: [
            LookupInfo.emailAddress("ann@example.com\nforged"), .emailAddress("ann@exa mple.com"), .emailAddress("ann\u{1B}@example.com"),
            .emailAddress("ann@example"), .emailAddress("@example.com"), .emailAddress("ann@.com"), .emailAddress("ann@example..com"),
            .emailAddress("a@b@example.com"), .emailAddress("<ann>@example.com"), .emailAddress(String(repeating: "a", count: 65) + "@example.com"),
            .phoneNumber("+1 555 0100\r"), .phoneNumber("12"), .phoneNumber("1234567890123456"), .phoneNumber("555-CALL"), .phoneNumber("+"),
        ]
    )
    func malformed(address: LookupInfo) {
        #expect(address.syntaxViolation != nil)
    }

    @Test("a logged value stays on its line and sends nothing to a terminal")
    func escaping() {
        #expect(LogValue.escaped("plain text, ünïcode") == "plain text, ünïcode")
        #expect(LogValue.escaped("a\nb\r\u{0}\u{1B}[31m") == #"a\u{a}b\u{d}\u{0}\u{1b}[31m"#)
        #expect(LogValue.escaped("\u{85}\u{2028}\u{7F}") == #"\u{85}\u{2028}\u{7f}"#)
        // A backslash is doubled, so an escape in the input cannot pass for one the log wrote.
        #expect(LogValue.escaped(#"\u{a}"#) == #"\\u{a}"#)
        #expect(!LogValue.escaped("x\ny\u{2029}z").contains { $0.isNewline })
    }
}
