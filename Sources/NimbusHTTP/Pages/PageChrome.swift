//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import NimbusWeb

/// What the server's own pages share: one stylesheet (`/static/nimbus.css`) and the frame of
/// the public pages (sign-in, share), so they look like the console and an operator brands
/// them all at once.
///
/// An operator's directory (`NIMBUS_PAGES_DIR`) may hold a `nimbus.css` and console templates
/// (`*.mustache`) of the bundled names: those replace the bundled ones.
struct PageChrome: Sendable {
    /// The stylesheet's bytes, read once at start as the templates are.
    private let stylesheetBytes: [UInt8]?

    static let stylesheetPath = "/static/nimbus.css"

    /// The stylesheet of the operator's directory of replacements, if it has one, else the
    /// bundled one.
    init(directory: String?) {
        if let directory, let data = FileManager.default.contents(atPath: directory + "/nimbus.css") {
            stylesheetBytes = Array(data)
        } else {
            stylesheetBytes = WebFiles.file(at: "static/nimbus.css")?.bytes
        }
    }

    /// The stylesheet: the operator's, or the bundled one.
    func stylesheet() -> Response {
        guard let bytes = stylesheetBytes else { return Response(status: .notFound) }
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/css; charset=utf-8", .cacheControl: "no-cache",
                HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes))
        )
    }

    /// A public page: `body` in the frame, with `head` (already escaped) added to the head.
    static func document(title: String, head: String = "", body: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8">\
        <meta name="viewport" content="width=device-width, initial-scale=1">\
        <title>\(HTML.escape(title))</title><link rel="stylesheet" href="\(stylesheetPath)">\(head)</head>\
        <body><header class="bar"><span class="brand">Nimbus</span></header><main class="public">\(body)</main></body></html>
        """
    }
}
