//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Where assets' encrypted bytes are kept: the data directory, or an S3-compatible object store.
///
/// An upload is written (encrypted) to a file in ``incomingDirectory`` first; ``keep(_:as:)``
/// then makes it the blob of an asset, whole or not at all, so no reader ever sees half an
/// asset. Implementations pass the shared conformance suite (`AssetBlobStoreConformance`).
public protocol AssetBlobStore: Sendable {
    /// A local directory for uploads in progress (on the same file system as the blobs, for a
    /// store that keeps them on disk, so keeping one is a rename).
    var incomingDirectory: String { get }

    /// Makes the file at `path` (in ``incomingDirectory``) the blob `id`, durably; the file is
    /// consumed.
    func keep(_ path: String, as id: String) async throws

    /// Up to `length` bytes of blob `id` from `offset` (fewer at its end).
    /// - Throws: ``AssetBlobMissing`` when there is no such blob.
    func read(_ id: String, offset: Int64, length: Int) async throws -> [UInt8]

    /// Deletes blob `id`; deleting one that does not exist succeeds.
    func delete(_ id: String) async throws
}

/// A blob that is not in its store.
public struct AssetBlobMissing: Error, CustomStringConvertible {
    /// The blob's identifier.
    public var id: String

    /// Creates the error.
    public init(id: String) { self.id = id }

    public var description: String { "asset blob \(id) is missing" }
}
