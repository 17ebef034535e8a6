//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel

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

    /// Sends `request` with the file at `path` as its body, reporting the bytes sent so far.
    /// The default reads the file whole and calls ``send(_:)``; a streaming transport sends it
    /// as it reads it.
    func upload(_ request: ClientRequest, bodyFile path: String, progress: @escaping @Sendable (Int64) -> Void) async throws -> ClientResponse

    /// Sends `request` and, for a `2xx` answer, appends its body to the file at `path`,
    /// reporting the bytes written so far; the response returned has an empty body then. The
    /// default calls ``send(_:)`` and writes the body whole; a streaming transport writes it as
    /// it arrives.
    func download(_ request: ClientRequest, appendingTo path: String, progress: @escaping @Sendable (Int64) -> Void) async throws
        -> ClientResponse
}

extension ClientTransport {
    public func upload(_ request: ClientRequest, bodyFile path: String, progress: @escaping @Sendable (Int64) -> Void) async throws
        -> ClientResponse
    {
        guard let data = FileManager.default.contents(atPath: path) else { throw NimbusError(.badRequest, "cannot read \(path)") }
        var withBody = request
        withBody.body = Array(data)
        let response = try await send(withBody)
        progress(Int64(data.count))
        return response
    }

    public func download(_ request: ClientRequest, appendingTo path: String, progress: @escaping @Sendable (Int64) -> Void) async throws
        -> ClientResponse
    {
        var response = try await send(request)
        guard (200..<300).contains(response.status) else { return response }
        try FileAppender(path: path).append(response.body)
        progress(Int64(response.body.count))
        response.body = []
        return response
    }
}

/// Appends bytes to a file, creating it (readable by its owner only) if needed.
struct FileAppender {
    let path: String

    func append(_ bytes: some Collection<UInt8>) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw NimbusError(.badRequest, "cannot create \(path)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw NimbusError(.badRequest, "cannot write \(path)") }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes))
    }
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
