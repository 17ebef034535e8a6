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

/// A token's SHA-256 as the credential caches key it: four words, hashed and compared as such.
///
/// Every request hashes its API token and its web auth token to find them in the caches. As
/// 64-character hex strings (the form the store keeps, ``Credentials/hash(_:)``) each lookup
/// made the digest into an array, the array into a string, and hashed the string's 64 bytes:
/// about a point of the 6% of the server's time authentication took under one-record
/// lookups. The hex form is made only when the store is asked.
struct TokenDigest: Hashable, Sendable {
    private var first: UInt64
    private var second: UInt64
    private var third: UInt64
    private var fourth: UInt64

    /// The SHA-256 of the token's UTF-8 bytes.
    init(token: String) {
        var token = token
        let digest = token.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        (first, second, third, fourth) = digest.withUnsafeBytes { bytes in
            (
                bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 16, as: UInt64.self),
                bytes.loadUnaligned(fromByteOffset: 24, as: UInt64.self)
            )
        }
    }

    /// The stored form: 64 lowercase hex digits, as ``Credentials/hash(_:)`` makes them.
    var hex: String {
        withUnsafeBytes(of: (first, second, third, fourth)) { Hex.string($0) }
    }
}
