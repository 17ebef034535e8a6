//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// An uploaded asset's metadata: what the database keeps beside the encrypted bytes the blob
/// store holds under ``id``.
public struct StoredAsset: Sendable, Hashable {
    /// The asset's identifier: random, and the blob's name in the blob store.
    public var id: String
    /// The tenant whose zone the asset was uploaded for; its bytes count against this owner.
    public var tenant: Tenant
    /// The size of the clear bytes.
    public var size: Int64
    /// The checksum, base64: CloudKit's `fileChecksum` (the digest of the sealed chunks' tags, no hash of the clear bytes).
    public var checksum: String
    /// The asset's own key, sealed with the server's asset key (see `AssetKeyWrapping`).
    public var wrappedKey: [UInt8]
    /// The content type the uploader gave, if any.
    public var contentType: String?
    /// The file name the uploader gave, if any.
    public var fileName: String?
    /// When the upload finished, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates asset metadata.
    public init(
        id: String,
        tenant: Tenant,
        size: Int64,
        checksum: String,
        wrappedKey: [UInt8],
        contentType: String?,
        fileName: String?,
        createdAt: Int64
    ) {
        self.id = id
        self.tenant = tenant
        self.size = size
        self.checksum = checksum
        self.wrappedKey = wrappedKey
        self.contentType = contentType
        self.fileName = fileName
        self.createdAt = createdAt
    }
}
