//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FieldValue {
    /// Writes the field value dictionary `{"value": V, "type": T}`, the same JSON as `encode(to:)`.
    package func write(to writer: inout JSONWriter, numbersAsStrings: Bool = false, isEncrypted: Bool = false) {
        writer.beginObject()
        writer.key("value")
        writeValue(to: &writer, numbersAsStrings: numbersAsStrings)
        writer.field("type", type.rawValue)
        if isEncrypted {
            writer.key("isEncrypted")
            writer.bool(true)
        }
        writer.endObject()
    }

    /// Writes a whole field map as an object of field value dictionaries.
    package static func write(_ fields: [NameKey: FieldValue], to writer: inout JSONWriter) {
        writer.beginObject()
        for (name, value) in fields {
            writer.key(escaping: name.string)
            value.write(to: &writer)
        }
        writer.endObject()
    }

    private func writeValue(to writer: inout JSONWriter, numbersAsStrings: Bool) {
        switch self {
        case .string(let text): writer.string(text)
        case .int64(let integer), .timestamp(let integer):
            if numbersAsStrings { writer.string(String(integer)) } else { writer.integer(integer) }
        case .double(let real): writer.double(real)
        case .bytes(let data), .encryptedBytes(let data): writer.string(data.base64EncodedString())
        case .reference(let reference):
            writer.beginObject()
            writer.field("recordName", reference.recordName)
            if let zoneID = reference.zoneID {
                writer.key("zoneID")
                writer.beginObject()
                writer.field("zoneName", zoneID.zoneName)
                writer.field("ownerRecordName", zoneID.ownerRecordName)
                writer.endObject()
            }
            writer.field("action", reference.action.rawValue)
            writer.endObject()
        case .asset(let asset):
            writer.beginObject()
            if let value = asset.fileChecksum { writer.field("fileChecksum", value) }
            if let value = asset.size { writer.field("size", value) }
            if let value = asset.referenceChecksum { writer.field("referenceChecksum", value) }
            if let value = asset.wrappingKey { writer.field("wrappingKey", value) }
            if let value = asset.receipt { writer.field("receipt", value) }
            if let value = asset.downloadURL { writer.field("downloadURL", value) }
            if let value = asset.assetID { writer.field("assetID", value) }
            writer.endObject()
        case .location(let location):
            location.write(to: &writer)
        case .list(_, let elements):
            writer.beginArray()
            for element in elements { element.writeValue(to: &writer, numbersAsStrings: numbersAsStrings) }
            writer.endArray()
        }
    }
}

extension Location {
    /// Writes the location dictionary `{latitude, longitude, ...}`.
    package func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("latitude")
        writer.double(latitude)
        writer.key("longitude")
        writer.double(longitude)
        let optionals: [(StaticString, Double?)] = [
            ("horizontalAccuracy", horizontalAccuracy), ("verticalAccuracy", verticalAccuracy),
            ("altitude", altitude), ("speed", speed), ("course", course),
        ]
        for (name, value) in optionals {
            if let value {
                writer.key(name)
                writer.double(value)
            }
        }
        if let timestamp { writer.field("timestamp", timestamp) }
        writer.endObject()
    }
}
