//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NimbusHTTP
import Testing

/// The files the server hands to browsers: the JavaScript client, cached by tag.
@Suite("web files: nimbus.js")
struct WebFileTests {
    @Test("nimbus.js and its declarations are served as JavaScript and TypeScript, with a tag that answers 304")
    func javaScriptClient() async throws {
        try await HTTPFixture.with { _, client in
            let script = try await client.send(.get, "/js/nimbus.js")
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(String(buffer: script.body).contains("export function configure"))
            let tag = try #require(script.headers[.eTag])
            let again = try await client.send(.get, "/js/nimbus.js", headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)

            let declarations = try await client.send(.get, "/js/nimbus.d.ts")
            #expect(declarations.status == .ok)
            #expect(declarations.headers[.contentType]?.hasPrefix("application/typescript") == true)

            for path in ["/js/missing.js", "/js/..%2FPackage.swift", "/apps/chat/", "/apps/chat/index.html"] {
                // One answer for a file or an app that is not there, or not turned on.
                try await client.send(.get, path).expectError("NOT_FOUND", status: .notFound)
            }
        }
    }

    @Test("a bundled app turned on is served with its settings and a policy that keeps its pages to this server")
    func chatApp() async throws {
        let app = WebApp(
            name: "chat",
            containerIdentifier: HTTPFixture.container,
            environment: "development",
            apiToken: String(repeating: "a", count: 64)
        )
        try await HTTPFixture.with(configure: { $0.apps = [app] }) { _, client in
            let page = try await client.send(.get, "/apps/chat/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'") && policy.contains("frame-ancestors 'none'"))
            #expect(String(buffer: page.body).contains("<script type=\"module\" src=\"app.js\">"))

            let moved = try await client.send(.get, "/apps/chat")
            #expect(moved.status == .permanentRedirect)
            #expect(moved.headers[.location] == "/apps/chat/")

            let config = try await client.send(.get, "/apps/chat/config.json")
            #expect(config.status == .ok)
            #expect(config.headers[.cacheControl] == "no-store")
            let settings = try config.json
            #expect(settings["containerIdentifier"] as? String == HTTPFixture.container)
            #expect(settings["apiToken"] as? String == app.apiToken)

            let script = try await client.send(.get, "/apps/chat/app.js")
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.contentSecurityPolicy] == nil, "a policy is for pages")
            try await client.send(.get, "/apps/other/").expectError("NOT_FOUND", status: .notFound)
            try await client.send(.get, "/apps/chat/../../Package.swift").expectError("NOT_FOUND", status: .notFound)
        }
    }
}
