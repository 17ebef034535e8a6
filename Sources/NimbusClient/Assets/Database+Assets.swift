//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
public import NimbusModel
import NimbusWire

/// How far an asset's upload or download has come.
public struct AssetProgress: Sendable, Hashable {
    /// Bytes sent or received so far.
    public var completed: Int64
    /// All the bytes, when known.
    public var total: Int64?
}

extension Database {
    /// Uploads the file at `path` for `field` of the record `recordName` (new or existing),
    /// and returns the asset value to save in that field with ``modifyRecords(_:inZone:atomic:)``
    /// or ``saveRecords(_:inZone:atomic:)``, within 12 hours.
    ///
    /// CloudKit's flow: `assets/upload` for the URL, then the bytes, streamed from the file.
    /// - Parameters:
    ///   - contentType: the file's type, served with downloads (`image/jpeg`).
    ///   - fileName: the name downloads suggest; the file's own by default.
    ///   - progress: called as the bytes go out.
    /// - Throws: `LIMIT_EXCEEDED` or `QUOTA_EXCEEDED` for a file too large; the errors of
    ///   `assets/upload` (a zone the user cannot write to is `ZONE_NOT_FOUND`).
    public func uploadAsset(
        fileAt path: String,
        contentType: String? = nil,
        fileName: String? = nil,
        forRecord recordName: String,
        field: String,
        inZone zoneID: ZoneID? = nil,
        progress: @escaping @Sendable (AssetProgress) -> Void = { _ in }
    ) async throws -> Asset {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64 else {
            throw NimbusError(.badRequest, "cannot read \(path)")
        }
        let url = try await uploadURL(forRecord: recordName, field: field, inZone: zoneID)
        var headers: [String: String] = ["Content-Type": contentType ?? "application/octet-stream"]
        let name = fileName ?? String(path.split(separator: "/").last ?? "")
        if !name.isEmpty { headers["Content-Disposition"] = Self.disposition(name) }
        let response = try await container.transport.upload(
            ClientRequest(method: "POST", url: url, headers: headers),
            bodyFile: path,
            progress: { sent in progress(AssetProgress(completed: sent, total: size)) }
        )
        return try Self.uploaded(response)
    }

    /// Uploads `bytes` as ``uploadAsset(fileAt:contentType:fileName:forRecord:field:inZone:progress:)``
    /// does a file's.
    public func uploadAsset(
        _ bytes: [UInt8],
        contentType: String? = nil,
        fileName: String? = nil,
        forRecord recordName: String,
        field: String,
        inZone zoneID: ZoneID? = nil
    ) async throws -> Asset {
        let url = try await uploadURL(forRecord: recordName, field: field, inZone: zoneID)
        var headers: [String: String] = ["Content-Type": contentType ?? "application/octet-stream"]
        if let fileName { headers["Content-Disposition"] = Self.disposition(fileName) }
        return try Self.uploaded(try await container.transport.send(ClientRequest(method: "POST", url: url, headers: headers, body: bytes)))
    }

    /// Downloads a record's asset to the file at `path`. A file already there with fewer bytes
    /// than the asset is taken as an earlier, interrupted download of it, and completed from
    /// where it stopped (an HTTP range request); one that is whole is left as it is.
    /// - Throws: `NOT_FOUND` when the asset's download URL expired (read the record again) or
    ///   the asset is gone.
    public func downloadAsset(_ asset: Asset, to path: String, progress: @escaping @Sendable (AssetProgress) -> Void = { _ in }) async throws {
        guard let template = asset.downloadURL else { throw NimbusError(.badRequest, "the asset has no downloadURL: read its record first") }
        let name = String(path.split(separator: "/").last ?? "file")
        let url = template.replacingOccurrences(of: "${f}", with: Container.escaped(name))
        let existing = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64 ?? 0
        if let size = asset.size, existing >= size, existing > 0 { return }
        var headers: [String: String] = [:]
        if existing > 0 { headers["Range"] = "bytes=\(existing)-" }
        let response = try await container.transport.download(
            ClientRequest(method: "GET", url: url, headers: headers),
            appendingTo: path,
            progress: { received in progress(AssetProgress(completed: existing + received, total: asset.size)) }
        )
        guard (200..<300).contains(response.status) else { throw Self.failure(response) }
        if existing > 0 && response.status == 200 {
            // The server sent it all again (a range it would not serve): the start is doubled.
            throw NimbusError(.internalError, "the server ignored the range; remove \(path) and download again")
        }
    }

    private func uploadURL(forRecord recordName: String, field: String, inZone zoneID: ZoneID?) async throws -> String {
        let answer = try await post("assets/upload", idempotent: true) { writer in
            writer.beginObject()
            if let zoneID {
                writer.key("zoneID")
                writer.beginObject()
                writer.field("zoneName", zoneID.zoneName)
                if !zoneID.ownerRecordName.isEmpty { writer.field("ownerRecordName", zoneID.ownerRecordName) }
                writer.endObject()
            }
            writer.key("tokens")
            writer.beginArray()
            writer.beginObject()
            writer.field("recordName", recordName)
            writer.field("fieldName", field)
            writer.endObject()
            writer.endArray()
            writer.endObject()
        }
        let tokens = try answer.required("tokens", at: "").array(at: "tokens")
        guard let first = tokens.first else { throw NimbusError(.internalError, "assets/upload answered no upload URL") }
        return try first.object(at: "tokens[0]").required("url", at: "tokens[0]").string(at: "tokens[0].url")
    }

    private static func uploaded(_ response: ClientResponse) throws -> Asset {
        guard (200..<300).contains(response.status) else { throw failure(response) }
        let json: JSONValue
        do {
            json = try JSONParser.parse(response.body)
        } catch {
            throw NimbusError(.internalError, "the upload's answer is not JSON")
        }
        let single = try json.object(at: "the answer").required("singleFile", at: "").object(at: "singleFile")
        return Asset(
            fileChecksum: try single.required("fileChecksum", at: "singleFile").string(at: "singleFile.fileChecksum"),
            size: try single.required("size", at: "singleFile").integer(at: "singleFile.size"),
            receipt: try single.required("receipt", at: "singleFile").string(at: "singleFile.receipt")
        )
    }

    private static func failure(_ response: ClientResponse) -> NimbusError {
        if let json = try? JSONParser.parse(response.body), WireError.isError(json) { return WireError.nimbusError(from: json) }
        return NimbusError(.internalError, "HTTP \(response.status) without a CloudKit error")
    }

    private static func disposition(_ name: String) -> String {
        let plain = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_" })
        return "attachment; filename=\"\(plain)\""
    }
}
