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

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's own secrets: the key that encrypts fields at rest and the key that seals tokens.
///
/// Kept in `server-keys.json` in the data directory, readable by the owner only, made on first
/// start. They never enter the database, so a copy of the database alone reveals no encrypted
/// field. Configured keys override the file's: instances that share a PostgreSQL database need
/// the same keys, from the same file or from their configuration.
struct ServerKeys: Codable {
    var fieldEncryptionKey: String
    var tokenKey: String

    static func load(
        dataDirectory: String,
        configuredFieldKey: String?,
        configuredTokenKey: String?
    ) throws -> (field: [UInt8], token: [UInt8]) {
        let path = dataDirectory + "/server-keys.json"
        let keys: ServerKeys
        if let data = FileManager.default.contents(atPath: path) {
            keys = try JSONDecoder().decode(ServerKeys.self, from: data)
        } else {
            keys = ServerKeys(fieldEncryptionKey: Self.newKey(), tokenKey: Self.newKey())
            let data = try JSONEncoder().encode(keys)
            // Create it owner-only from the start rather than tightening permissions afterwards.
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else { throw ServerError("cannot create \(path)") }
            defer { close(descriptor) }
            let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            guard written == data.count else { throw ServerError("cannot write \(path)") }
        }
        guard let field = Data(base64Encoded: configuredFieldKey ?? keys.fieldEncryptionKey), field.count == 32 else {
            throw ServerError("the field encryption key must be 32 bytes in base64 (make one with: openssl rand -base64 32)")
        }
        guard let token = Data(base64Encoded: configuredTokenKey ?? keys.tokenKey), token.count == 32 else {
            throw ServerError("the token key must be 32 bytes in base64 (make one with: openssl rand -base64 32)")
        }
        return (Array(field), Array(token))
    }

    private static func newKey() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }
}

/// A failure to start or administer the server, with a message for the operator.
public struct ServerError: Error, CustomStringConvertible {
    /// The message for the operator.
    public var description: String

    /// Creates an error with a message for the operator.
    public init(_ description: String) {
        self.description = description
    }
}
