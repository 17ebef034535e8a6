//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Crypto
import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Seals a record's encrypted fields (CloudKit's `encryptedValues`) for storage, with AES-256-GCM.
///
/// The key comes from the server's configuration and never reaches the database. The record's
/// identity is the authenticated data, so a sealed blob copied onto another record does not open.
public struct FieldCipher: Sendable {
    private let key: SymmetricKey

    /// Creates a cipher with a 256-bit key.
    public init(key: SymmetricKey) {
        precondition(key.bitCount == 256, "field encryption needs a 256-bit key")
        self.key = key
    }

    /// Creates a cipher from a key's 32 raw bytes.
    public init?(keyBytes: [UInt8]) {
        guard keyBytes.count == 32 else { return nil }
        self.init(key: SymmetricKey(data: keyBytes))
    }

    func seal(_ plaintext: Data, identity: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: key, authenticating: Data(identity.utf8))
        guard let combined = box.combined else { throw StoreError(.database, detail: "AES-GCM produced no output") }
        return Array(combined)
    }

    func open(_ sealed: [UInt8], identity: String) throws -> Data {
        let box = try AES.GCM.SealedBox(combined: sealed)
        return try AES.GCM.open(box, using: key, authenticating: Data(identity.utf8))
    }
}
