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
/// The form is standard base64 (`+`, `/` and `=` padding) of the payload followed by the
/// 32-byte MAC, as CloudKit's own tokens are: some clients decode tokens and markers as
/// standard base64 and fail on anything else. Tokens of the earlier form,
/// `base64url(payload) "." base64url(mac)`, still open, so those handed out before keep
/// working. The scope (tenant, zone, query...) is not in the token but in the MAC, so a token
/// used outside the scope it was made for fails to open instead of pointing somewhere else.
struct TokenSealer: Sendable {
    private let key: SymmetricKey
    private static let macSize = SHA256.byteCount

    init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    func seal(_ payload: Data, scope: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: payload + Data(scope.utf8), using: key)
        return (payload + Data(mac)).base64EncodedString()
    }

    /// A token in the URL-safe form (`base64url(payload) "." base64url(mac)`), for a path
    /// segment; ``open(_:scope:)`` opens both forms.
    func sealForURL(_ payload: Data, scope: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: payload + Data(scope.utf8), using: key)
        return Base64URL.encode(Array(payload)) + "." + Base64URL.encode(Array(mac))
    }

    /// The payload of a token made for `scope`, or `nil` if it is malformed, forged or foreign.
    func open(_ token: String, scope: String) -> Data? {
        let payload: Data
        let mac: Data
        if token.contains(".") {
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let opened = Base64URL.decode(parts[0]), let code = Base64URL.decode(parts[1]) else { return nil }
            (payload, mac) = (opened, code)
        } else {
            guard let bytes = Data(base64Encoded: token), bytes.count >= Self.macSize else { return nil }
            (payload, mac) = (bytes.prefix(bytes.count - Self.macSize), bytes.suffix(Self.macSize))
        }
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: payload + Data(scope.utf8), using: key) else { return nil }
        return Data(payload)
    }
}
