//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import NimbusModel

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

/// One upload in progress: clear bytes in, encrypted chunks out to a file in the blob store's
/// incoming directory, the checksum and size counted on the way. Memory is one chunk.
///
/// Not shared between tasks: the request that uploads owns it, and ``discard()`` runs if it
/// does not finish (a body over the limit, a dropped connection).
public final class AssetIngest {
    /// The asset this upload becomes.
    public let assetID: String
    /// The most clear bytes it takes.
    public let limit: Int64
    /// The bytes left under the owner's quota, when they have one.
    public let room: Int64?
    let key: SymmetricKey
    let path: String
    private var descriptor: Int32
    private var pending: [UInt8] = []
    private var nextChunk: Int64 = 0
    /// The digest of the sealed chunks' tags: the asset's checksum (see ``finish()``).
    private var tags = SHA256()
    /// Clear bytes taken so far.
    public private(set) var size: Int64 = 0

    init(assetID: String, directory: String, key: SymmetricKey, limit: Int64, room: Int64? = nil) throws {
        self.assetID = assetID
        self.key = key
        self.limit = limit
        self.room = room
        path = "\(directory)/\(assetID).part"
        descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileAssetBlobStoreError(operation: "create", path: path, code: errno) }
        pending.reserveCapacity(AssetCipher.chunkSize)
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(path)
        }
    }

    /// Takes the next bytes of the upload.
    /// - Throws: ``AssetTooLarge`` past the limit or the owner's quota (the upload is then
    ///   discarded).
    public func append(_ bytes: some Collection<UInt8>) throws {
        let total = size + Int64(bytes.count)
        guard total <= limit, total <= room ?? .max else {
            discard()
            throw AssetTooLarge(error: total > limit ? AssetService.tooLarge(limit: limit) : AssetService.overQuota(room: room ?? 0))
        }
        size += Int64(bytes.count)
        var rest = bytes[...]
        while !rest.isEmpty {
            let room = AssetCipher.chunkSize - pending.count
            pending.append(contentsOf: rest.prefix(room))
            rest = rest.dropFirst(room)
            if pending.count == AssetCipher.chunkSize { try writeChunk() }
        }
    }

    /// Seals the last chunk and closes the file: what is left is keeping it in the store.
    /// - Returns: the asset's checksum (CloudKit's `fileChecksum`), base64: the SHA-256 of its
    ///   size and its sealed chunks' authentication tags. The tags are computed anyway and stand
    ///   for the exact encrypted bytes under the asset's own key, so the checksum names this
    ///   upload's bytes without costing a pass over them, and it is no fingerprint of the clear
    ///   content: who holds the database cannot confirm a guess of what a user stored (a SHA-256
    ///   of the clear bytes would let them).
    func finish() throws -> String {
        if !pending.isEmpty || nextChunk == 0 { try writeChunk() }
        close(descriptor)
        descriptor = -1
        withUnsafeBytes(of: size.littleEndian) { tags.update(bufferPointer: $0) }
        return Data(tags.finalize()).base64EncodedString()
    }

    /// Removes what was written (before or after ``finish()``; not once it is kept).
    public func discard() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        unlink(path)
    }

    private func writeChunk() throws {
        let box = try AssetCipher.sealedBox(pending, index: nextChunk, key: key)
        nextChunk += 1
        pending.removeAll(keepingCapacity: true)
        // The ciphertext, then its tag: the stored form, without joining them in a new array.
        try box.ciphertext.withUnsafeBytes { try writeAll($0) }
        try box.tag.withUnsafeBytes { try writeAll($0) }
        box.tag.withUnsafeBytes { tags.update(bufferPointer: $0) }
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let count = write(descriptor, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw FileAssetBlobStoreError(operation: "write", path: path, code: errno) }
            written += count
        }
    }
}

/// An upload past the asset size limit or its owner's quota.
public struct AssetTooLarge: Error {
    /// What the client is told: `.limitExceeded` or `.quotaExceeded`.
    public var error: NimbusError
}
