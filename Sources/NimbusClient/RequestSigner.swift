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

/// Signs a request with a server-to-server key, as CloudKit Web Services specifies: an ECDSA
/// P-256 signature over `date:base64(SHA-256(body)):path`, DER-encoded and base64'd.
struct RequestSigner: Sendable {
    let keyID: String
    let privateKey: P256.Signing.PrivateKey

    /// The three `X-Apple-CloudKit-Request-*` headers for a request.
    /// - Parameters:
    ///   - path: the URL path, from `/database/` on, without the query string.
    ///   - body: the exact body bytes sent.
    ///   - date: the signing time.
    func headers(path: String, body: [UInt8], date: Date) throws -> [String: String] {
        let stamp = Self.iso8601(date)
        let bodyHash = Data(SHA256.hash(data: body)).base64EncodedString()
        let signature = try privateKey.signature(for: Data("\(stamp):\(bodyHash):\(path)".utf8))
        return [
            "X-Apple-CloudKit-Request-KeyID": keyID,
            "X-Apple-CloudKit-Request-ISO8601Date": stamp,
            "X-Apple-CloudKit-Request-SignatureV1": signature.derRepresentation.base64EncodedString(),
        ]
    }

    /// `2016-01-25T22:15:43Z`: UTC, whole seconds.
    static func iso8601(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: .gmt))
    }
}
