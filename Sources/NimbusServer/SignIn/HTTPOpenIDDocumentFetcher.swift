//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NimbusEngine

/// Fetches OpenID Connect discovery documents and key sets with AsyncHTTPClient.
///
/// It follows no redirect (a document must be where the issuer says), waits at most 10
/// seconds, and reads at most 1 MiB: a provider's documents are a few kilobytes.
struct HTTPOpenIDDocumentFetcher: OpenIDDocumentFetcher {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func fetch(_ url: String) async throws -> [UInt8] {
        guard OpenIDURLPolicy.isAllowed(url) else { throw Failure(description: "\(url) is neither https nor loopback") }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        let response = try await OutboundHTTPClient.shared.execute(request, timeout: .seconds(10))
        guard response.status == .ok else { throw Failure(description: "\(url) answered \(response.status.code)") }
        let body = try await response.body.collect(upTo: 1 << 20)
        return Array(body.readableBytesView)
    }

    func post(_ url: String, form: [(String, String)]) async throws -> [UInt8] {
        guard OpenIDURLPolicy.isAllowed(url) else { throw Failure(description: "\(url) is neither https nor loopback") }
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(form)))
        let response = try await OutboundHTTPClient.shared.execute(request, timeout: .seconds(10))
        // The body of a refusal names the OAuth error (`invalid_grant`): kept for the message.
        let body = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw Failure(description: "\(url) answered \(response.status.code): \(String(buffer: body).prefix(200))")
        }
        return Array(body.readableBytesView)
    }
}
