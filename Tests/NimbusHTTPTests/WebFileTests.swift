//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
import Hummingbird
import HummingbirdTesting
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
}
