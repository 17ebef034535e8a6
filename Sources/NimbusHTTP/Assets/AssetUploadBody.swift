//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Hummingbird
import MultipartKit
import NimbusEngine
import NimbusModel

/// Reads an upload's body into an ``AssetIngest`` as it arrives, in the two styles clients use:
/// the raw bytes (MistKit: `application/octet-stream`), or `multipart/form-data` whose first
/// part is the file (CloudyKit names it `files`). What the uploader says the file is (its
/// content type, its file name) is kept for downloads.
struct AssetUploadBody {
    /// The content type and file name the uploader gave.
    struct Described {
        var contentType: String?
        var fileName: String?
    }

    /// Streams `body` into `ingest`.
    /// - Throws: ``AssetUploadTooLarge`` past the limit; `.badRequest` for a multipart body without a
    ///   boundary or a complete first part.
    static func read(_ body: RequestBody, headers: HTTPFields, into ingest: AssetIngest) async throws -> Described {
        let contentType = headers[.contentType]
        if let contentType, contentType.lowercased().hasPrefix("multipart/") {
            return try await readMultipart(body, contentType: contentType, into: ingest)
        }
        var iterator = body.makeAsyncIterator()
        while let buffer = try await iterator.next() {
            try await append(buffer.readableBytesView, to: ingest, rest: &iterator)
        }
        return Described(
            contentType: contentType.flatMap { $0.lowercased().hasPrefix("application/x-www-form-urlencoded") ? nil : $0 },
            fileName: headers[.contentDisposition].flatMap(fileName(inDisposition:))
        )
    }

    private static func readMultipart(_ body: RequestBody, contentType: String, into ingest: AssetIngest) async throws -> Described {
        guard let boundary = parameter("boundary", in: contentType), !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw NimbusError.badRequest("a multipart upload needs a boundary in its Content-Type")
        }
        final class FirstPart {
            var completedParts = 0
            var bytes: [UInt8] = []
            var contentType: String?
            var fileName: String?
        }
        let part = FirstPart()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in
            guard part.completedParts == 0 else { return }
            switch name.lowercased() {
            case "content-type": part.contentType = value
            case "content-disposition": part.fileName = fileName(inDisposition: value)
            default: break
            }
        }
        parser.onBody = { buffer in
            guard part.completedParts == 0 else { return }
            part.bytes.append(contentsOf: buffer.readableBytesView)
        }
        parser.onPartComplete = { part.completedParts += 1 }
        var iterator = body.makeAsyncIterator()
        while let buffer = try await iterator.next() {
            do {
                try parser.execute(buffer)
            } catch {
                throw NimbusError.badRequest("the multipart body is malformed")
            }
            try await append(part.bytes, to: ingest, rest: &iterator)
            part.bytes.removeAll(keepingCapacity: true)
        }
        guard part.completedParts > 0 else { throw NimbusError.badRequest("the multipart body ends before its first part does") }
        return Described(contentType: part.contentType, fileName: part.fileName)
    }

    /// Appends to the upload; past its limit, reads what is left of the body (see ``drain(_:)``)
    /// and throws ``AssetUploadTooLarge``.
    private static func append(
        _ bytes: some Collection<UInt8>,
        to ingest: AssetIngest,
        rest: inout RequestBody.AsyncIterator
    ) async throws {
        do {
            try ingest.append(bytes)
        } catch let tooLarge as AssetTooLarge {
            throw AssetUploadTooLarge(error: tooLarge.error, bodyRead: try await drain(&rest))
        }
    }

    /// Reads and drops what is left of a refused body, up to 8 MiB, so the client reads the
    /// answer and the connection stays usable; returns whether the body ended. Past that, the
    /// connection is closed instead.
    static func drain(_ rest: inout RequestBody.AsyncIterator) async throws -> Bool {
        var dropped = 0
        while let buffer = try await rest.next() {
            dropped += buffer.readableBytes
            if dropped > 8 * 1024 * 1024 { return false }
        }
        return true
    }

    /// A parameter of a header value (`boundary=...`, `filename="..."`), unquoted.
    static func parameter(_ name: String, in value: String) -> String? {
        for piece in value.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var text = pair[1].trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
                text = String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            return text
        }
        return nil
    }

    /// The file name of a `Content-Disposition` value, without any path, at most 255 bytes.
    static func fileName(inDisposition value: String) -> String? {
        guard var name = parameter("filename", in: value) else { return nil }
        if let slash = name.lastIndex(where: { $0 == "/" || $0 == "\\" }) { name = String(name[name.index(after: slash)...]) }
        name = String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        while name.utf8.count > 255 { name.removeLast() }
        return name.isEmpty ? nil : name
    }
}

/// An upload refused for its size (over the limit or the owner's quota); whether its whole body was read (if not, the connection
/// must close).
struct AssetUploadTooLarge: Error {
    var error: NimbusError
    var bodyRead: Bool
}
