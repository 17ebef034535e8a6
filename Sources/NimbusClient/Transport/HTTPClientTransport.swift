//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import AsyncHTTPClient
import NIOCore
import NIOHTTP1

/// A ``ClientTransport`` over AsyncHTTPClient: the default on Linux servers, and it works on
/// Apple platforms too.
public struct HTTPClientTransport: ClientTransport {
    private let client: HTTPClient
    private let timeout: Duration
    /// The largest response body read; a larger one fails the request.
    private let maximumResponseBytes: Int

    /// Creates a transport.
    /// - Parameters:
    ///   - client: the HTTP client; the process-wide shared one by default.
    ///   - timeout: how long a request may take, connection included.
    ///   - maximumResponseBytes: the largest response body accepted (64 MiB by default).
    public init(client: HTTPClient = .shared, timeout: Duration = .seconds(60), maximumResponseBytes: Int = 64 << 20) {
        self.client = client
        self.timeout = timeout
        self.maximumResponseBytes = maximumResponseBytes
    }

    public func send(_ request: ClientRequest) async throws -> ClientResponse {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers {
            outgoing.headers.add(name: name, value: value)
        }
        if !request.body.isEmpty {
            outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        }
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let response = try await client.execute(outgoing, timeout: .milliseconds(milliseconds))
        let body = try await response.body.collect(upTo: maximumResponseBytes)
        var headers: [String: String] = [:]
        for header in response.headers {
            headers[header.name.lowercased()] = header.value
        }
        return ClientResponse(status: Int(response.status.code), headers: headers, body: Array(body.readableBytesView))
    }
}
