//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

extension LookupInfo {
    /// Why this is not a usable address, or `nil` when it is: an email address in the usual
    /// `local@domain.tld` form, or a phone number of 3 to 15 digits with an optional leading `+`
    /// (E.164's limit; spaces, dashes, dots and parentheses are dropped first).
    ///
    /// Addresses reach mailers, SMS providers and the log, so nothing else gets through: no
    /// whitespace or control characters, no second `@`, nothing an address could not hold.
    public var syntaxViolation: String? {
        switch normalized {
        case .emailAddress(let address): Self.emailViolation(address)
        case .phoneNumber(let number): Self.phoneViolation(number)
        case .userRecordName: nil
        }
    }

    private static func emailViolation(_ address: String) -> String? {
        let scalars = Array(address.unicodeScalars)
        let problem = "emailAddress is not an email address (name@example.com)"
        guard (3...254).contains(scalars.count), scalars.filter({ $0 == "@" }).count == 1,
            let at = scalars.firstIndex(of: "@")
        else { return problem }
        let local = scalars[..<at]
        let domain = scalars[(at + 1)...]
        guard (1...64).contains(local.count), !domain.isEmpty else { return problem }
        if scalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control || $0.value >= 0x80 && $0.value < 0xA0 })
        {
            return problem
        }
        let forbidden = Set("<>()[]\\,;:\"".unicodeScalars)
        if scalars.contains(where: forbidden.contains) { return problem }
        let labels = String(String.UnicodeScalarView(domain)).split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }) else { return problem }
        return nil
    }

    private static func phoneViolation(_ number: String) -> String? {
        let digits = number.hasPrefix("+") ? number.dropFirst() : Substring(number)
        guard (3...15).contains(digits.count), digits.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }) else {
            return "phoneNumber is not a phone number (3 to 15 digits, optionally after a +)"
        }
        return nil
    }
}
