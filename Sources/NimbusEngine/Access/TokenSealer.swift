//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Makes opaque, tamper-evident tokens: a payload plus an HMAC-SHA256 over it and a scope.
///
/// The form is `base64url(payload) "." base64url(mac)`. The scope (tenant, zone, query...) is
/// not in the token but in the MAC, so a token used outside the scope it was made for fails to
/// open instead of pointing somewhere else.
struct TokenSealer: Sendable {
    private let key: SymmetricKey

    init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    func seal(_ payload: Data, scope: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: payload + Data(scope.utf8), using: key)
        return Self.base64URL(payload) + "." + Self.base64URL(Data(mac))
    }

    /// The payload of a token made for `scope`, or `nil` if it is malformed, forged or foreign.
    func open(_ token: String, scope: String) -> Data? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Self.data(base64URL: parts[0]), let mac = Self.data(base64URL: parts[1]),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload + Data(scope.utf8), using: key)
        else { return nil }
        return payload
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    private static func data(base64URL text: Substring) -> Data? {
        var base64 = String(text).replacing("-", with: "+").replacing("_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
