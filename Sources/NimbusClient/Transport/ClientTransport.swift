//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Sends one HTTP request to a Nimbus server and returns its response.
///
/// The SDK builds every request (URL, headers, signed body) and interprets every response; a
/// transport only moves bytes. ``HTTPClientTransport`` (AsyncHTTPClient) is the default; apps can
/// plug in their own, such as URLSession on Apple platforms or a scripted one in tests.
public protocol ClientTransport: Sendable {
    /// Sends `request` and returns the server's response, whatever its status.
    ///
    /// - Throws: when no response arrived (connection refused or dropped, timeout); the SDK
    ///   sends a request that is safe to send twice again. A ``NimbusModel/NimbusError`` thrown
    ///   instead is the transport's own verdict on the request and reaches the caller as it is.
    func send(_ request: ClientRequest) async throws -> ClientResponse
}

/// An HTTP request as the SDK sends it.
public struct ClientRequest: Sendable, Hashable, Codable {
    /// `GET` or `POST`.
    public var method: String
    /// The absolute URL, query string included.
    public var url: String
    /// Header names and values.
    public var headers: [String: String]
    /// The body bytes (JSON), empty for `GET`.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, url: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// An HTTP response as the transport received it.
public struct ClientResponse: Sendable, Hashable, Codable {
    /// The HTTP status code.
    public var status: Int
    /// Header names (lower case) and values.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { _, last in last })
        self.body = body
    }
}
