//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import NimbusStore

/// The headers of a download: what the file is, how long it may be cached, and how a browser
/// may show it.
///
/// Decision: the bytes are the uploader's, served from Nimbus's own origin, where the sign-in
/// pages live. So every download carries `X-Content-Type-Options: nosniff` and a
/// `Content-Security-Policy: sandbox` (a page among them runs without the origin's rights),
/// and only pictures, audio, video, PDF and plain text are shown inline; anything else is an
/// attachment.
enum AssetDownloadHeaders {
    static func make(for asset: StoredAsset, requestedName: String?, etag: String) -> HTTPFields {
        let contentType = asset.contentType ?? "application/octet-stream"
        let name = asset.fileName ?? requestedName.flatMap { $0 == "${f}" || $0.isEmpty ? nil : $0 } ?? asset.id
        var headers: HTTPFields = [
            .contentType: contentType,
            .eTag: etag,
            .acceptRanges: "bytes",
            // An asset's bytes never change; the URL itself expires.
            .cacheControl: "private, max-age=3600, immutable",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Content-Security-Policy")!: "sandbox; default-src 'none'; img-src 'self'; media-src 'self'",
        ]
        let disposition = isShownInline(contentType) ? "inline" : "attachment"
        headers[.contentDisposition] = "\(disposition); filename=\"\(asciiFallback(name))\"; filename*=UTF-8''\(percentEncoded(name))"
        return headers
    }

    private static func isShownInline(_ contentType: String) -> Bool {
        let type = contentType.lowercased().split(separator: ";").first.map(String.init) ?? ""
        if type == "image/svg+xml" { return false }
        return type.hasPrefix("image/") || type.hasPrefix("audio/") || type.hasPrefix("video/") || type == "application/pdf"
            || type == "text/plain"
    }

    /// The name with anything but printable ASCII (and quotes and backslashes) as `_`.
    private static func asciiFallback(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7f && $0 != "\"" && $0 != "\\" ? Character($0) : "_" })
    }

    /// RFC 8187's encoding of the name.
    private static func percentEncoded(_ name: String) -> String {
        var encoded = ""
        for byte in name.utf8 {
            let isPlain =
                (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
                || "!#$&+-.^_`|~".utf8.contains(byte)
            encoded += isPlain ? String(UnicodeScalar(byte)) : "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
        }
        return encoded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
