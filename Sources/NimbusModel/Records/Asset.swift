//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// The metadata of an asset field: checksums, size and (on reads) where to download it.
///
/// The bytes themselves are uploaded separately (`assets/upload`); a record only stores this
/// dictionary.
public struct Asset: Sendable, Hashable {
    public var fileChecksum: String?
    public var size: Int64?
    public var referenceChecksum: String?
    public var wrappingKey: String?
    public var receipt: String?
    public var downloadURL: String?

    /// Creates asset metadata.
    public init(
        fileChecksum: String? = nil,
        size: Int64? = nil,
        referenceChecksum: String? = nil,
        wrappingKey: String? = nil,
        receipt: String? = nil,
        downloadURL: String? = nil
    ) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }
}
