//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Hummingbird
import NimbusModel
import NimbusWeb

/// `GET /js/nimbus.js` (and `nimbus.d.ts`): the JavaScript client, for pages and apps on any
/// origin. `GET /apps/{name}/...`: a bundled app, when the operator turned it on
/// (`nimbus serve --apps chat`); any other app, file or method is the usual `404`.
///
/// Files carry an `ETag` (a browser asks again with `If-None-Match` and gets a `304`) and are
/// revalidated on every load (`no-cache`): a server upgrade reaches every page at once. An
/// app's pages carry a content security policy that lets them load only their own origin's
/// scripts and styles and talk only to this server.
struct WebFileRoutes: Sendable {
    /// The apps turned on, by name.
    let apps: [String: WebApp]

    init(apps: [WebApp]) {
        self.apps = Dictionary(apps.map { ($0.name, $0) }) { first, _ in first }
    }

    static let appPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; "
        + "connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// A file, app or path none of them has: one answer for all, in the CloudKit shape.
    static let notFound = NimbusError(.unknownItem, "no such file")

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        router.route("/js/:file", methods: [.get, .head]) { request, context in
            try Self.respond(to: request, path: "js/\(context.parameters.get("file") ?? "")", policy: nil)
        }
        let apps = apps
        router.route("/apps/:app", methods: [.get, .head]) { request, context in
            let app = context.parameters.get("app") ?? ""
            guard apps[app] != nil else { throw Self.notFound }
            // The router takes `/apps/chat/` here too: that is the page. Without the slash, the
            // page's relative links would resolve outside its folder: send the browser to it.
            if request.uri.path.hasSuffix("/") {
                return try Self.respond(to: request, path: "apps/\(app)/index.html", policy: Self.appPolicy)
            }
            return Response(status: .permanentRedirect, headers: [.location: "/apps/\(app)/"])
        }
        router.route("/apps/:app/**", methods: [.get, .head]) { request, context in
            let app = context.parameters.get("app") ?? ""
            guard let settings = apps[app] else { throw Self.notFound }
            let rest = context.parameters.getCatchAll().joined(separator: "/")
            if rest == "config.json" {
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/json", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: settings.configJSON))
                )
            }
            return try Self.respond(to: request, path: "apps/\(app)/\(rest.isEmpty ? "index.html" : rest)", policy: Self.appPolicy)
        }
    }

    static func respond(to request: Request, path: String, policy: String?) throws -> Response {
        guard let file = WebFiles.file(at: path) else { throw Self.notFound }
        let tag = "\"" + Hex.string(Array(SHA256.hash(data: file.bytes).prefix(16))) + "\""
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .eTag: tag,
            .cacheControl: "no-cache",
            .init("X-Content-Type-Options")!: "nosniff",
        ]
        if let policy, file.contentType.hasPrefix("text/html") { headers[.contentSecurityPolicy] = policy }
        if let match = request.headers[.ifNoneMatch], match == tag || match == "*" {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}
