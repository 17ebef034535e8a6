//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import NimbusStore

/// An asset opened for reading: its metadata, and its bytes decrypted on demand.
public struct AssetDownload: Sendable {
    /// The asset.
    public let asset: StoredAsset
    let key: SymmetricKey
    let blobs: any AssetBlobStore

    /// The clear bytes of `range` (all of them when `nil`), read and opened a group of chunks
    /// at a time as the consumer asks for them: memory stays flat whatever the size. An empty
    /// asset has none.
    public func bytes(in range: ClosedRange<Int64>? = nil) -> AssetBytes {
        AssetBytes(download: self, range: range ?? 0...Swift.max(0, asset.size - 1))
    }
}

/// The clear bytes of a range of an asset, in pieces of at most a megabyte.
public struct AssetBytes: AsyncSequence, Sendable {
    public typealias Element = [UInt8]

    let download: AssetDownload
    let range: ClosedRange<Int64>

    /// Chunks read from the blob store at once.
    static let chunksPerRead: Int64 = 16

    public func makeAsyncIterator() -> Iterator {
        Iterator(download: download, next: range.lowerBound, last: range.upperBound)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let download: AssetDownload
        var next: Int64
        let last: Int64

        public mutating func next() async throws -> [UInt8]? {
            guard next <= last, download.asset.size > 0 else { return nil }
            let chunkSize = Int64(AssetCipher.chunkSize)
            let firstChunk = next / chunkSize
            let lastChunk = Swift.min(last / chunkSize, firstChunk + AssetBytes.chunksPerRead - 1)
            let sealedSize = Int64(AssetCipher.sealedChunkSize)
            let stored = try await download.blobs.read(
                download.asset.id,
                offset: firstChunk * sealedSize,
                length: Int((lastChunk - firstChunk + 1) * sealedSize)
            )
            var piece: [UInt8] = []
            piece.reserveCapacity(Int((lastChunk - firstChunk + 1) * chunkSize))
            var offset = 0
            for index in firstChunk...lastChunk {
                let end = Swift.min(offset + AssetCipher.sealedChunkSize, stored.count)
                guard end > offset else { throw AssetBlobMissing(id: download.asset.id) }
                let clear = try AssetCipher.open(Array(stored[offset..<end]), index: index, key: download.key)
                offset = end
                let chunkStart = index * chunkSize
                let from = Int(Swift.max(next, chunkStart) - chunkStart)
                let through = Int(Swift.min(last, chunkStart + Int64(clear.count) - 1) - chunkStart)
                guard from <= through else { throw AssetBlobMissing(id: download.asset.id) }
                piece.append(contentsOf: clear[from...through])
            }
            next += Int64(piece.count)
            return piece
        }
    }
}
