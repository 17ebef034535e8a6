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

/// How an asset's bytes are encrypted at rest: each asset has its own random 256-bit key, and
/// its bytes are sealed in chunks with AES-GCM, so a range is read by opening only the chunks
/// it touches and memory stays one chunk per stream.
///
/// Decision: the nonce of chunk `i` is `i` (big-endian, 12 bytes), which is unique because the
/// key is never used for another asset; the stored form is the chunks' ciphertexts and tags
/// back to back, so chunk `i` starts at `i × sealedChunkSize`. A chunk moved, dropped or
/// changed fails to open.
public enum AssetCipher {
    /// Clear bytes per chunk.
    public static let chunkSize = 64 * 1024
    /// Stored bytes per full chunk: its ciphertext and its 16-byte tag.
    public static let sealedChunkSize = chunkSize + 16

    /// A new random key for one asset.
    public static func makeKey() -> SymmetricKey { SymmetricKey(size: .bits256) }

    /// How many chunks an asset of `size` clear bytes has: an empty asset has one, empty.
    public static func chunkCount(of size: Int64) -> Int64 {
        max(1, (size + Int64(chunkSize) - 1) / Int64(chunkSize))
    }

    /// Seals chunk `index` of an asset; its stored form is the ciphertext, then the tag.
    static func sealedBox(_ chunk: some DataProtocol, index: Int64, key: SymmetricKey) throws -> AES.GCM.SealedBox {
        try AES.GCM.seal(chunk, using: key, nonce: nonce(index))
    }

    /// Opens chunk `index` of an asset.
    static func open(_ sealed: [UInt8], index: Int64, key: SymmetricKey) throws -> [UInt8] {
        guard sealed.count >= 16 else { throw CryptoKitError.incorrectParameterSize }
        let box = try AES.GCM.SealedBox(nonce: nonce(index), ciphertext: sealed.dropLast(16), tag: sealed.suffix(16))
        return Array(try AES.GCM.open(box, using: key))
    }

    private static func nonce(_ index: Int64) throws -> AES.GCM.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for shift in 0..<8 { bytes[11 - shift] = UInt8(truncatingIfNeeded: UInt64(bitPattern: index) >> (8 * UInt64(shift))) }
        return try AES.GCM.Nonce(data: bytes)
    }
}

/// Seals each asset's key with the server's asset key, bound to the asset's identifier, so a
/// key copied to another asset's row does not open.
public struct AssetKeyWrapping: Sendable {
    private let key: SymmetricKey

    /// Derives the wrapping key from the server's field-encryption key.
    public init(serverKey: [UInt8]) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: serverKey),
            info: Array("nimbus asset key wrapping".utf8),
            outputByteCount: 32
        )
    }

    func wrap(_ assetKey: SymmetricKey, assetID: String) throws -> [UInt8] {
        let box = try assetKey.withUnsafeBytes { try AES.GCM.seal(Array($0), using: key, authenticating: Array(assetID.utf8)) }
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Array(combined)
    }

    func unwrap(_ wrapped: [UInt8], assetID: String) throws -> SymmetricKey {
        let box = try AES.GCM.SealedBox(combined: wrapped)
        return SymmetricKey(data: try AES.GCM.open(box, using: key, authenticating: Array(assetID.utf8)))
    }
}
