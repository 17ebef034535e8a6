//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import NimbusWeb

/// The server's pages as Mustache templates bundled with it: the console's
/// (`console/*.mustache` in NimbusWeb, each filling the `layout` template's content) and the
/// public sign-in and share pages (`pages/*.mustache`, each filling `page`). Values are
/// escaped as HTML. An operator's directory (`NIMBUS_PAGES_DIR`) replaces any of them by name.
public struct PageTemplates: Sendable {
    private let library: MustacheLibrary

    /// Loads the bundled templates, each replaced by one of the same name in `directory` (an
    /// operator's branding) if it has one. A bundled template that does not parse stops the
    /// start, which the console's tests would catch first; an operator's that does not parse
    /// is refused at start by ``check(directory:)``.
    init(directory: String? = nil) {
        var templates: [String: MustacheTemplate] = [:]
        for (name, text) in Self.texts(directory: directory) {
            do {
                templates[name] = try MustacheTemplate(string: text)
            } catch {
                preconditionFailure("page template \(name) does not parse: \(error)")
            }
        }
        library = MustacheLibrary(templates: templates)
    }

    /// Template `name` with `values`, as HTML.
    func render(_ name: String, _ values: [String: Any]) -> String {
        library.render(values, withTemplate: name) ?? ""
    }

    /// A console page: template `name` with `values`, as an HTML response.
    func page(_ name: String, status: HTTPResponse.Status = .ok, _ values: [String: Any]) -> Response {
        let html = library.render(values, withTemplate: name) ?? ""
        return Response(status: status, headers: Self.headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Checks an operator's templates parse: a start with a broken one stops with its name.
    public static func check(directory: String) throws {
        for (name, text) in texts(directory: directory) {
            do {
                _ = try MustacheTemplate(string: text)
            } catch {
                throw TemplateFailure(description: "the page template \(name) in \(directory) does not parse: \(error)")
            }
        }
    }

    /// The bundled templates' texts, with the operator's of the same names instead.
    private static func texts(directory: String?) -> [String: String] {
        // The two folders' names are distinct: one library holds both.
        var texts = WebFiles.texts(in: "console", withExtension: "mustache")
        texts.merge(WebFiles.texts(in: "pages", withExtension: "mustache")) { console, _ in console }
        if let directory {
            for name in texts.keys {
                if let data = FileManager.default.contents(atPath: "\(directory)/\(name).mustache") {
                    texts[name] = String(decoding: data, as: UTF8.self)
                }
            }
        }
        return texts
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

/// An operator's template that does not parse.
public struct TemplateFailure: Error, CustomStringConvertible {
    public var description: String
}
