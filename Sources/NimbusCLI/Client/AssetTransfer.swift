//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel

/// The CLI's asset uploads and downloads, with a progress bar on a terminal.
enum AssetTransfer {
    /// Uploads a file for `field` of `record`; returns the value to save in the field.
    static func upload(_ path: String, field: String, of record: Record, database: Database) async throws -> Asset {
        let line = ProgressLine()
        let name = (path as NSString).lastPathComponent
        defer { line.clear() }
        return try await database.uploadAsset(
            fileAt: path,
            contentType: contentType(of: path),
            forRecord: record.recordID.recordName,
            field: field,
            inZone: record.recordID.zoneID,
            progress: { progress in line.show("\(name) \(ProgressLine.bar(Double(progress.completed) / Double(max(1, progress.total ?? 1))))") }
        )
    }

    /// Downloads every asset of a record into `directory`, as `RECORD.FIELD` (`RECORD.FIELD.N` in
    /// a list), finishing a file an earlier download left short.
    static func download(_ record: Record, into directory: String, database: Database) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (field, value) in record.fields.sorted(by: { $0.key.string < $1.key.string }) {
            let assets: [Asset] =
                switch value {
                case .asset(let asset): [asset]
                case .list(elementType: .asset, let elements): elements.compactMap { if case .asset(let asset) = $0 { asset } else { nil } }
                default: []
                }
            for (index, asset) in assets.enumerated() {
                let name = "\(record.recordID.recordName).\(field.string)" + (value.type == .assetList ? ".\(index)" : "")
                let path = (directory as NSString).appendingPathComponent(name)
                let line = ProgressLine()
                try await database.downloadAsset(asset, to: path) { progress in
                    line.show("\(name) \(ProgressLine.bar(Double(progress.completed) / Double(max(1, progress.total ?? 1))))")
                }
                line.clear()
                FileHandle.standardError.write(Data("downloaded \(path)\n".utf8))
            }
        }
    }

    /// A content type from the file's extension, for the common kinds of pictures, video and
    /// documents; anything else is `application/octet-stream`.
    static func contentType(of path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "gif": "image/gif"
        case "heic": "image/heic"
        case "webp": "image/webp"
        case "mp4", "m4v": "video/mp4"
        case "mov": "video/quicktime"
        case "mp3": "audio/mpeg"
        case "m4a": "audio/mp4"
        case "pdf": "application/pdf"
        case "txt": "text/plain"
        default: "application/octet-stream"
        }
    }
}
