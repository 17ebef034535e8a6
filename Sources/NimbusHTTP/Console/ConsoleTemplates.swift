//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import Mustache
import NimbusWeb

/// The console's pages: Mustache templates bundled with the server (`console/*.mustache` in
/// NimbusWeb), each filling the `layout` template's content, values escaped as HTML.
struct ConsoleTemplates: Sendable {
    private let library: MustacheLibrary

    /// Loads the bundled templates; a template that does not parse stops the server's start,
    /// which the console's tests would catch first.
    init() {
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in WebFiles.texts(in: "console", withExtension: "mustache") {
            do {
                templates[name] = try MustacheTemplate(string: text)
            } catch {
                preconditionFailure("console template \(name) does not parse: \(error)")
            }
        }
        library = MustacheLibrary(templates: templates)
    }

    /// A page: template `name` with `values`, as an HTML response.
    func page(_ name: String, status: HTTPResponse.Status = .ok, _ values: [String: Any]) -> Response {
        let html = library.render(values, withTemplate: name) ?? ""
        return Response(status: status, headers: Self.headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The console's own stylesheet.
    static func stylesheet() -> Response {
        guard let file = WebFiles.file(at: "console/console.css") else { return Response(status: .notFound) }
        var headers = Self.headers
        headers[.contentType] = file.contentType
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }

    /// No script, frame, plugin or other origin: the console is forms and links.
    static let headers: HTTPFields = [
        .contentType: "text/html; charset=utf-8",
        .cacheControl: "no-store",
        SharePage.referrerPolicy: "no-referrer",
        SignInPage.contentSecurityPolicy:
            "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        SignInPage.frameOptions: "DENY",
        HTTPField.Name("X-Content-Type-Options")!: "nosniff",
    ]
}
