//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// The answer to an upload: CloudKit's `singleFile` dictionary, which a `records/modify` puts
/// in the asset field as it is.
public struct AssetUploadedResponse: WireResponse {
    /// The asset's checksum, base64 (see `AssetIngest`): it names these bytes and is no hash of them.
    public var fileChecksum: String
    /// The number of bytes.
    public var size: Int64
    /// The proof of upload the save redeems.
    public var receipt: String

    /// Creates the answer.
    public init(fileChecksum: String, size: Int64, receipt: String) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.receipt = receipt
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("singleFile")
        writer.beginObject()
        writer.field("fileChecksum", fileChecksum)
        writer.field("size", size)
        writer.field("receipt", receipt)
        writer.endObject()
        writer.endObject()
    }
}
