//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
public import NimbusEngine

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asset blobs as objects of an S3-compatible bucket, for several server instances sharing one
/// database. Requests are signed with AWS Signature V4 and addressed path-style
/// (`{endpoint}/{bucket}/{key}`), which every S3-compatible store takes.
///
/// An upload is encrypted into a local file first (``incomingDirectory``), then sent with one
/// `PUT`, which S3 makes visible whole or not at all; reads are ranged `GET`s.
public struct S3AssetBlobStore: AssetBlobStore {
    let configuration: S3Configuration
    let signer: S3RequestSigner
    let client: HTTPClient
    public let incomingDirectory: String

    /// Creates the store; uploads in progress go to `incomingDirectory` (created if needed).
    public init(configuration: S3Configuration, incomingDirectory: String) throws {
        guard Self.isAllowedEndpoint(configuration.endpoint) else {
            throw ServerError("the S3 endpoint must be an https URL (plain http only on loopback)")
        }
        self.configuration = configuration
        signer = S3RequestSigner(
            accessKeyID: configuration.accessKeyID,
            secretAccessKey: configuration.secretAccessKey,
            region: configuration.region
        )
        client = OutboundHTTPClient.shared
        self.incomingDirectory = incomingDirectory
        try FileManager.default.createDirectory(atPath: incomingDirectory, withIntermediateDirectories: true)
    }

    public func keep(_ path: String, as id: String) async throws {
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64 ?? 0
        var request = try signed("PUT", key: id, extraHeaders: ["content-length": "\(size)"])
        request.body = .stream(FileChunks(path: path), length: .known(size))
        let response = try await client.execute(request, timeout: .seconds(300))
        guard response.status == .ok else { throw try await failure("PUT", response) }
        try await Self.discardBody(of: response)
        _ = unlink(path)
    }

    public func read(_ id: String, offset: Int64, length: Int) async throws -> [UInt8] {
        guard length > 0 else { return [] }
        let request = try signed("GET", key: id, extraHeaders: ["range": "bytes=\(offset)-\(offset + Int64(length) - 1)"])
        let response = try await client.execute(request, timeout: .seconds(60))
        switch response.status {
        case .ok:
            // A store that ignored the range sends the whole object: keep the range of it.
            return try await Self.readBody(of: response, from: offset, length: length)
        case .partialContent:
            return try await Self.readBody(of: response, from: 0, length: length)
        case .rangeNotSatisfiable:
            try await Self.discardBody(of: response)
            return []
        case .notFound:
            try await Self.discardBody(of: response)
            throw AssetBlobMissing(id: id)
        default:
            throw try await failure("GET", response)
        }
    }

    public func delete(_ id: String) async throws {
        let response = try await client.execute(try signed("DELETE", key: id), timeout: .seconds(60))
        guard response.status == .noContent || response.status == .ok || response.status == .notFound else {
            throw try await failure("DELETE", response)
        }
        try await Self.discardBody(of: response)
    }

    /// Creates the bucket (for tests and first set-up; `nimbus serve` expects it to exist).
    public func createBucket() async throws {
        let response = try await client.execute(try signed("PUT", key: nil), timeout: .seconds(60))
        guard response.status == .ok || response.status == .conflict else { throw try await failure("PUT bucket", response) }
        try await Self.discardBody(of: response)
    }

    /// Checks that the bucket answers with these credentials: a start fails early, and clearly.
    public func checkBucket() async throws {
        let response = try await client.execute(try signed("HEAD", key: nil), timeout: .seconds(30))
        try await Self.discardBody(of: response)
        guard response.status == .ok else {
            throw ServerError("the S3 bucket \(configuration.bucket) at \(configuration.endpoint) answers \(response.status.code)")
        }
    }

    /// Reads an answer's body to its end: a response whose body is left unread keeps its
    /// connection from the client's pool.
    private static func discardBody(of response: HTTPClientResponse) async throws {
        for try await _ in response.body {}
    }

    /// Up to `length` bytes of an answer's body from `offset` on; the rest is read and dropped,
    /// so the connection goes back to the pool whatever the body's size.
    private static func readBody(of response: HTTPClientResponse, from offset: Int64, length: Int) async throws -> [UInt8] {
        var kept: [UInt8] = []
        var position: Int64 = 0
        for try await buffer in response.body {
            let start = Swift.max(offset - position, 0)
            let room = Int64(length - kept.count)
            if start < Int64(buffer.readableBytes), room > 0 {
                kept += buffer.readableBytesView.dropFirst(Int(start)).prefix(Int(room))
            }
            position += Int64(buffer.readableBytes)
        }
        return kept
    }

    private func signed(_ method: String, key: String?, extraHeaders: [String: String] = [:]) throws -> HTTPClientRequest {
        let path = "/\(configuration.bucket)" + (key.map { "/\(configuration.keyPrefix)\($0)" } ?? "")
        guard let url = URL(string: configuration.endpoint + S3RequestSigner.encode(path, slash: false)), let host = url.host else {
            throw ServerError("the S3 endpoint is not a URL")
        }
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        var toSign = extraHeaders
        toSign["host"] = hostHeader
        var request = HTTPClientRequest(url: configuration.endpoint + S3RequestSigner.encode(path, slash: false))
        request.method = HTTPMethod(rawValue: method)
        let signature = signer.sign(method: method, path: path, headers: toSign, date: Date())
        for (name, value) in extraHeaders.merging(signature, uniquingKeysWith: { _, new in new }) where name != "host" {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        return request
    }

    private func failure(_ operation: String, _ response: HTTPClientResponse) async throws -> ServerError {
        let body = (try? await Self.readBody(of: response, from: 0, length: 4096)) ?? []
        let text = String(decoding: body, as: UTF8.self)
        // S3 errors name the code (`<Code>AccessDenied</Code>`); nothing in them is secret.
        let code = text.range(of: "<Code>").flatMap { start in
            text[start.upperBound...].range(of: "</Code>").map { String(text[start.upperBound..<$0.lowerBound]) }
        }
        return ServerError("S3 \(operation) answered \(response.status.code)\(code.map { " \($0)" } ?? "")")
    }

    private static func isAllowedEndpoint(_ endpoint: String) -> Bool {
        let lowered = endpoint.lowercased()
        if lowered.hasPrefix("https://") { return true }
        guard lowered.hasPrefix("http://") else { return false }
        let host = lowered.dropFirst("http://".count).prefix { $0 != "/" && $0 != ":" }
        return host == "127.0.0.1" || host == "localhost" || lowered.hasPrefix("http://[::1]")
    }
}

/// A file's bytes, a megabyte at a time, for a streamed request body.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String

    func makeAsyncIterator() -> Iterator { Iterator(path: path) }

    final class Iterator: AsyncIteratorProtocol {
        let path: String
        var descriptor: Int32 = -1
        var finished = false

        init(path: String) { self.path = path }

        deinit { if descriptor >= 0 { close(descriptor) } }

        func next() async throws -> ByteBuffer? {
            guard !finished else { return nil }
            if descriptor < 0 {
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw ServerError("cannot open \(path)") }
            }
            var bytes = [UInt8](repeating: 0, count: 1 << 20)
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw ServerError("cannot read \(path)") }
            if count == 0 {
                finished = true
                close(descriptor)
                descriptor = -1
                return nil
            }
            return ByteBuffer(bytes: bytes[0..<count])
        }
    }
}
