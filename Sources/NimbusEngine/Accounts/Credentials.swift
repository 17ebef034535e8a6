//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import NimbusModel

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Makes and hashes the secrets Nimbus hands out, in the formats CloudKit clients check.
///
/// MistKit refuses to send an API token that is not 64 hex digits, or a web auth token shorter
/// than 10 characters, so the formats are Apple's: API tokens and key IDs are 64 lowercase hex
/// digits, web auth tokens long base64 strings, user record names `_` plus 32 hex digits.
public enum Credentials {
    /// A new API token.
    public static func makeAPIToken() -> String { Hex.string(randomBytes(32)) }

    /// A new web auth token.
    public static func makeWebAuthToken() -> String { Data(randomBytes(48)).base64EncodedString() }

    /// A new user record name.
    public static func makeUserRecordName() -> String { "_" + Hex.string(randomBytes(16)) }

    /// The stored form of a token: its SHA-256, in hex. Tokens are never stored as they are.
    public static func hash(_ token: String) -> String { TokenDigest(token: token).hex }

    /// The key ID of a public key: the SHA-256 of its DER form, in hex.
    public static func keyID(ofDER der: [UInt8]) -> String { Hex.string(Array(SHA256.hash(data: der))) }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
