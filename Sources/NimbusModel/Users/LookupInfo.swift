//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How a user is looked up: by email address, phone number or user record name.
///
/// Addresses and numbers are compared in a normal form, so `Ann@Example.com ` finds the user
/// added as `ann@example.com`, and `+1 (555) 010-0199` the one added as `+15550100199`.
public enum LookupInfo: Sendable, Hashable, Codable {
    case emailAddress(String)
    case phoneNumber(String)
    case userRecordName(String)

    /// The lookup in the form users are stored and compared in.
    public var normalized: LookupInfo {
        switch self {
        case .emailAddress(let address): .emailAddress(Self.normalizedEmail(address))
        case .phoneNumber(let number): .phoneNumber(Self.normalizedPhone(number))
        case .userRecordName: self
        }
    }

    /// An email address in the form it is stored and compared in: trimmed and lower-cased.
    public static func normalizedEmail(_ address: String) -> String {
        address.trimmingWhitespace().lowercased()
    }

    /// A phone number in the form it is stored and compared in: without spaces and the usual
    /// separators (`-`, `.`, `(`, `)`).
    public static func normalizedPhone(_ number: String) -> String {
        String(number.unicodeScalars.filter { !" -.()".unicodeScalars.contains($0) }.map(Character.init))
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
