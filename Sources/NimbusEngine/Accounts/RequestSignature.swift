//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A server-to-server request's signature headers, with what was signed.
///
/// The signed message is `"{date}:{base64(SHA-256(body))}:{path}"`, signed with ECDSA P-256 over
/// SHA-256 and sent DER-encoded in base64. The date is used verbatim, as the client wrote it.
/// For an empty body, MistKit signs an empty hash instead of the hash of zero bytes: both are
/// accepted.
public struct RequestSignature: Sendable {
    /// The ID of the registered server key, from the `X-Apple-CloudKit-Request-KeyID` header.
    public var keyID: String
    /// The ISO 8601 date from the `X-Apple-CloudKit-Request-ISO8601Date` header, as the client wrote it.
    public var date: String
    /// The base64 DER ECDSA signature from the `X-Apple-CloudKit-Request-SignatureV1` header.
    public var signature: String
    /// The raw request body, whose SHA-256 hash is part of the signed message.
    public var body: [UInt8]
    /// The URL path, from `/database/...` to the operation, without the query string.
    public var path: String

    /// Creates the signature of a request.
    public init(keyID: String, date: String, signature: String, body: [UInt8], path: String) {
        self.keyID = keyID
        self.date = date
        self.signature = signature
        self.body = body
        self.path = path
    }

    /// Whether the signature was made by the private half of `publicKeyPEM`.
    func isValid(publicKeyPEM: String) -> Bool {
        guard let key = try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM),
            let der = Data(base64Encoded: signature),
            let signature = try? P256.Signing.ECDSASignature(derRepresentation: der)
        else { return false }
        let bodyHash = Data(SHA256.hash(data: body)).base64EncodedString()
        let candidates = body.isEmpty ? [bodyHash, ""] : [bodyHash]
        return candidates.contains { hash in
            key.isValidSignature(signature, for: Data("\(date):\(hash):\(path)".utf8))
        }
    }

    /// Signs a request (for clients, tests and the load generator): the headers' three values.
    public static func sign(
        body: [UInt8],
        path: String,
        date: String,
        privateKey: P256.Signing.PrivateKey
    ) throws -> String {
        let bodyHash = Data(SHA256.hash(data: body)).base64EncodedString()
        let signature = try privateKey.signature(for: Data("\(date):\(bodyHash):\(path)".utf8))
        return signature.derRepresentation.base64EncodedString()
    }

    /// The DER form of a P-256 public key given as PEM.
    static func publicKeyDER(pem: String) throws -> [UInt8] {
        Array(try P256.Signing.PublicKey(pemRepresentation: pem).derRepresentation)
    }
}
