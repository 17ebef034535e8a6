//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Hummingbird
import NimbusEngine
import NimbusModel

/// What the server answers besides the CloudKit operations: `/health`, `/metrics`, the OpenAPI
/// document, the sign-in and share pages, and the web courier's long poll.
struct PageRoutes: Sendable {
    let services: HTTPServices
    let publicAddress: PublicAddress
    /// Seals the sign-in page's flows.
    let flowKey: SymmetricKey
    /// The stylesheet of the server's pages.
    let chrome: PageChrome
    /// The sign-in and share pages' templates.
    let templates: PageTemplates
    /// Renders the metrics registry for `/metrics`.
    let renderMetrics: @Sendable () async -> String

    func add(to router: some RouterMethods<NimbusRequestContext>) {
        router.route("/health", methods: [.get, .head]) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        router.route("/metrics", methods: [.get, .head]) { [renderMetrics] _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: await renderMetrics()))
            )
        }
        router.route("/openapi.json", methods: [.get, .head]) { _, _ in OpenAPIDocument.response() }
        router.route(RouterPath(PageChrome.stylesheetPath), methods: [.get, .head]) { [chrome] _, _ in chrome.stylesheet() }
        SignInPage(services: services, publicAddress: publicAddress, flowKey: flowKey, pages: SignInPageHTML(templates: templates)).add(to: router)
        router.route("/webcourier/:token", methods: [.get, .head]) { [services] request, context in
            let poll = WebCourierPoll(courier: services.courier)
            return JSONResponse.ok(try await poll.respond(to: request, token: context.parameters.get("token") ?? ""))
        }
        // A share link is opened in a browser: every method gets a page, not a JSON error.
        let sharePage = SharePage(database: services.database, accounts: services.accounts, publicAddress: publicAddress, templates: templates)
        for method in [HTTPRequest.Method.get, .head, .post, .put, .delete, .patch] {
            router.on("/share/:shortGUID", method: method) { request, context in
                let shortGUID = context.parameters.get("shortGUID") ?? ""
                // Longer than any link's: no share route, answered as any path no route takes.
                guard shortGUID.utf8.count <= SharePage.maximumShortGUIDLength else { throw HTTPError(.notFound) }
                return await sharePage.respond(to: request, shortGUID: shortGUID)
            }
        }
    }
}
