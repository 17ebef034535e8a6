//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import NimbusWeb

/// What the server's own pages share: one stylesheet (`/static/nimbus.css`), so the public
/// pages (sign-in, share) look like the console and an operator brands them all at once.
///
/// An operator's directory (`NIMBUS_PAGES_DIR`) may hold a `nimbus.css`, which replaces the
/// bundled one, and templates (``PageTemplates``).
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
}
