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
    /// The checksum of the uploaded file, as the upload step returned it.
    public var fileChecksum: String?
    /// The file's size, in bytes.
    public var size: Int64?
    /// The checksum of the wrapping key (private database only).
    public var referenceChecksum: String?
    /// The key that encrypts the asset (private database only).
    public var wrappingKey: String?
    /// The proof of upload, which saving a record with the asset requires.
    public var receipt: String?
    /// The URL template to download the file from, on reads only; clients replace its `${f}` with a file name.
    public var downloadURL: String?
    /// The stored asset this value names: set by the server when a receipt is redeemed, kept
    /// with the record, and never sent to clients (they get ``downloadURL`` instead).
    package var assetID: String?

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
