//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `assets/upload`: the assets a client means to upload, one entry per asset (an
/// asset list repeats its record and field).
public struct AssetsUploadRequest: WireRequest {
    /// One asset to upload.
    public struct Token: Sendable, Hashable {
        /// The record the asset is for; the server picks a name when absent.
        public var recordName: String?
        /// The record's type.
        public var recordType: String?
        /// The asset field.
        public var fieldName: String

        /// One asset to upload.
        public init(recordName: String?, recordType: String?, fieldName: String) {
            self.recordName = recordName
            self.recordType = recordType
            self.fieldName = fieldName
        }
    }

    /// The zone of the records; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// The assets.
    public var tokens: [Token]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zoneID = try members.zoneID()
        let list = try members.required("tokens", at: "").array(at: "tokens")
        tokens = []
        for (index, element) in list.enumerated() {
            let path = jsonPath("tokens", index)
            let item = try element.object(at: path)
            tokens.append(
                Token(
                    recordName: try item.optional("recordName")?.string(at: jsonPath(path, "recordName")),
                    recordType: try item.optional("recordType")?.string(at: jsonPath(path, "recordType")),
                    fieldName: try item.required("fieldName", at: path).string(at: jsonPath(path, "fieldName"))
                )
            )
        }
    }
}

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

/// The answer to an upload: CloudKit's `singleFile` dictionary, which a `records/modify` puts
/// in the asset field as it is.
public struct AssetUploadedResponse: WireResponse {
    /// The SHA-256 of the bytes, base64.
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

/// The body of `assets/rereference`: record fields whose assets other records are to take.
public struct AssetsRereferenceRequest: WireRequest {
    /// One record field.
    public struct Item: Sendable, Hashable {
        /// The record.
        public var recordName: String
        /// Its asset field.
        public var fieldName: String
    }

    /// The zone of the records; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// The record fields.
    public var assets: [Item]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zoneID = try members.zoneID()
        let list = try members.required("assets", at: "").array(at: "assets")
        assets = []
        for (index, element) in list.enumerated() {
            let path = jsonPath("assets", index)
            let item = try element.object(at: path)
            assets.append(
                Item(
                    recordName: try item.required("recordName", at: path).string(at: jsonPath(path, "recordName")),
                    fieldName: try item.required("fieldName", at: path).string(at: jsonPath(path, "fieldName"))
                )
            )
        }
    }
}

/// The answer of `assets/rereference`: per record field, its asset dictionaries (one per element
/// of a list) with receipts any record of the zone may save, or an error dictionary.
public struct AssetsRereferenceResponse: WireResponse {
    /// One record field's answer.
    public enum Item: Sendable {
        /// The field's assets.
        case assets(recordName: String, fieldName: String, [Asset])
        /// Why the field gives none.
        case error(WireError)
    }

    /// The answers, in request order.
    public var items: [Item]

    /// Creates the answer.
    public init(items: [Item]) { self.items = items }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("assets")
        writer.beginArray()
        for item in items {
            switch item {
            case .assets(let recordName, let fieldName, let assets):
                for asset in assets {
                    writer.beginObject()
                    writer.field("recordName", recordName)
                    writer.field("fieldName", fieldName)
                    if let checksum = asset.fileChecksum { writer.field("fileChecksum", checksum) }
                    if let size = asset.size { writer.field("size", size) }
                    if let receipt = asset.receipt { writer.field("receipt", receipt) }
                    writer.endObject()
                }
            case .error(let error):
                error.write(to: &writer, options: options)
            }
        }
        writer.endArray()
        writer.endObject()
    }
}
