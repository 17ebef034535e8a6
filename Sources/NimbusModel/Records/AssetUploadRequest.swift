//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// One asset a client means to upload (`assets/upload`'s `tokens` entries).
public struct AssetUploadRequest: Sendable, Hashable {
    /// The record the asset is for; a new random name when absent.
    public var recordName: String?
    /// The record's type (CloudKit clients send it; the save checks it, not the upload).
    public var recordType: String?
    /// The asset field.
    public var fieldName: String

    /// Creates a request.
    public init(recordName: String?, recordType: String?, fieldName: String) {
        self.recordName = recordName
        self.recordType = recordType
        self.fieldName = fieldName
    }
}
