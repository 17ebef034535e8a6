//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// The answer of `assets/upload`: where to send each asset's bytes.
public struct AssetsUploadResponse: WireResponse {
    /// One upload URL.
    public struct Token: Sendable, Hashable {
        /// The record the asset is for.
        public var recordName: String
        /// The field.
        public var fieldName: String
        /// Where to `POST` the bytes (raw, or as `multipart/form-data`).
        public var url: String

        /// One upload URL.
        public init(recordName: String, fieldName: String, url: String) {
            self.recordName = recordName
            self.fieldName = fieldName
            self.url = url
        }
    }

    /// The upload URLs, in request order.
    public var tokens: [Token]

    /// Creates the answer.
    public init(tokens: [Token]) { self.tokens = tokens }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("tokens")
        writer.beginArray()
        for token in tokens {
            writer.beginObject()
            writer.field("recordName", token.recordName)
            writer.field("fieldName", token.fieldName)
            writer.field("url", token.url)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
