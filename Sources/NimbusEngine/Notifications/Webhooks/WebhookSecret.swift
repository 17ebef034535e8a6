//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import NimbusModel

/// The secret a webhook's deliveries are signed with, and how they are signed.
///
/// The secret is not stored: it is derived from the server's token key, the key ID and the
/// URL (HMAC-SHA256), so every instance that shares the token key signs alike, the database
/// holds nothing to steal, and configuring another URL makes another secret. It is shown once,
/// when the webhook is configured.
public enum WebhookSecret {
    /// The secret of a key's webhook at a URL: 64 hex digits, used as they are (their UTF-8
    /// bytes) as the HMAC key, as a receiver is given them.
    public static func derive(serverKey: [UInt8], keyID: String, url: String) -> String {
        let message = Array("nimbus-webhook\u{0}\(keyID)\u{0}\(url)".utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: serverKey))).withUnsafeBytes { Hex.string($0) }
    }

    /// The `X-Nimbus-Signature` header of a body sent at `timestamp` (seconds since 1970):
    /// `t={timestamp},v1={hex HMAC-SHA256 of "{timestamp}.{body}" under the secret}`. A receiver
    /// recomputes it, compares in constant time, and refuses old timestamps (replays).
    public static func signature(of body: [UInt8], timestamp: Int64, secret: String) -> String {
        let signed = Array("\(timestamp).".utf8) + body
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Array(secret.utf8)))
        return "t=\(timestamp),v1=" + mac.withUnsafeBytes { Hex.string($0) }
    }
}
