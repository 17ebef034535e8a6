//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

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
