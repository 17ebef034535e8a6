//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NimbusModel
import Synchronization

/// A ``ClientTransport`` over AsyncHTTPClient: the default on Linux servers, and it works on
/// Apple platforms too.
///
/// A server that cannot be reached (the connection is refused, the host is unknown, or
/// connecting takes longer than ``connectTimeout``) fails the request at once with
/// ``NimbusModel/NimbusError/Code/networkUnavailable``, rather than after retries that cannot help.
public struct HTTPClientTransport: ClientTransport {
    private let client: HTTPClient
    /// How long the whole request may take; `nil`: no limit beyond the client's own timeouts.
    private let deadline: Duration?
    /// The largest response body read; a larger one fails the request.
    private let maximumResponseBytes: Int

    /// Creates a transport on a process-wide client with these timeouts.
    /// - Parameters:
    ///   - connectTimeout: how long connecting to the server may take (10 seconds by default).
    ///   - answerTimeout: how long the server may stay silent once the request is sent, before
    ///     or within its answer (60 seconds by default).
    ///   - maximumResponseBytes: the largest response body accepted (64 MiB by default).
    public init(connectTimeout: Duration = .seconds(10), answerTimeout: Duration = .seconds(60), maximumResponseBytes: Int = 64 << 20) {
        self.client = Self.sharedClient(connectTimeout: connectTimeout, answerTimeout: answerTimeout)
        self.deadline = nil
        self.maximumResponseBytes = maximumResponseBytes
    }

    /// Creates a transport on a client of the caller's, whose configuration sets how it
    /// connects and retries.
    /// - Parameters:
    ///   - client: the HTTP client.
    ///   - timeout: how long a request may take, connection included.
    ///   - maximumResponseBytes: the largest response body accepted (64 MiB by default).
    public init(client: HTTPClient, timeout: Duration = .seconds(60), maximumResponseBytes: Int = 64 << 20) {
        self.client = client
        self.deadline = timeout
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
        let response: HTTPClientResponse
        do {
            if let deadline {
                response = try await client.execute(outgoing, timeout: TimeAmount(deadline))
            } else {
                response = try await client.execute(outgoing, deadline: .distantFuture)
            }
        } catch {
            if let unreachable = Self.unreachable(error, url: request.url) { throw unreachable }
            throw error
        }
        let body = try await response.body.collect(upTo: maximumResponseBytes)
        var headers: [String: String] = [:]
        for header in response.headers {
            headers[header.name.lowercased()] = header.value
        }
        return ClientResponse(status: Int(response.status.code), headers: headers, body: Array(body.readableBytesView))
    }

    public func upload(_ request: ClientRequest, bodyFile path: String, progress: @escaping @Sendable (Int64) -> Void) async throws
        -> ClientResponse
    {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int64 else {
            throw NimbusError(.badRequest, "cannot read \(path)")
        }
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        outgoing.body = .stream(FileReadingSequence(path: path, progress: progress), length: .known(size))
        return try await execute(outgoing, url: request.url, writingTo: nil, progress: { _ in })
    }

    public func download(_ request: ClientRequest, appendingTo path: String, progress: @escaping @Sendable (Int64) -> Void) async throws
        -> ClientResponse
    {
        var outgoing = HTTPClientRequest(url: request.url)
        outgoing.method = .init(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.add(name: name, value: value) }
        return try await execute(outgoing, url: request.url, writingTo: path, progress: progress)
    }

    /// Runs a request; a `2xx` body goes to `path` (appended) when one is given, as it arrives.
    private func execute(
        _ outgoing: HTTPClientRequest,
        url: String,
        writingTo path: String?,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> ClientResponse {
        let response: HTTPClientResponse
        do {
            response = try await client.execute(outgoing, deadline: .distantFuture)
        } catch {
            if let unreachable = Self.unreachable(error, url: url) { throw unreachable }
            throw error
        }
        var headers: [String: String] = [:]
        for header in response.headers { headers[header.name.lowercased()] = header.value }
        guard let path, (200..<300).contains(Int(response.status.code)) else {
            let body = try await response.body.collect(upTo: maximumResponseBytes)
            return ClientResponse(status: Int(response.status.code), headers: headers, body: Array(body.readableBytesView))
        }
        let appender = FileAppender(path: path)
        var written: Int64 = 0
        for try await buffer in response.body {
            try appender.append(buffer.readableBytesView)
            written += Int64(buffer.readableBytes)
            progress(written)
        }
        return ClientResponse(status: Int(response.status.code), headers: headers)
    }

    // MARK: - Private

    /// The error of a request that never reached the server, or `nil` for any other failure
    /// (which may have reached it, and is the SDK's to retry or report).
    private static func unreachable(_ error: any Error, url: String) -> NimbusError? {
        let why: String
        switch error {
        case let error as NIOConnectionError:
            let isUnresolved = error.dnsAError != nil && error.dnsAAAAError != nil && error.connectionErrors.isEmpty
            why = isUnresolved ? "its host is unknown" : "it refused the connection"
        case let error as IOError where [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH, EADDRNOTAVAIL].contains(error.errnoCode):
            why = "it refused the connection"
        case is SocketAddressError:
            why = "its host is unknown"
        case let error as HTTPClientError where error == .connectTimeout:
            why = "connecting timed out"
        default:
            return nil
        }
        return NimbusError(.networkUnavailable, "cannot connect to \(serverAddress(of: url)): \(why)")
    }

    /// The scheme, host and port of a URL: where the server was looked for.
    private static func serverAddress(of url: String) -> String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0].hasSuffix(":"), parts[1].isEmpty else { return url }
        return "\(parts[0])//\(parts[2].prefix { $0 != "?" })"
    }

    /// The clients of this process, one per pair of timeouts: a client holds connections to
    /// reuse, so transports share them; they live as long as the process, as AsyncHTTPClient's
    /// own shared client does.
    private static let clients = Mutex<[Key: HTTPClient]>([:])

    private struct Key: Hashable {
        var connect: Int64
        var answer: Int64
    }

    private static func sharedClient(connectTimeout: Duration, answerTimeout: Duration) -> HTTPClient {
        let connect = TimeAmount(connectTimeout)
        let answer = TimeAmount(answerTimeout)
        let key = Key(connect: connect.nanoseconds, answer: answer.nanoseconds)
        return clients.withLock { clients in
            if let client = clients[key] { return client }
            // AsyncHTTPClient's own shared client's settings, with these timeouts.
            var configuration = HTTPClient.Configuration.singletonConfiguration
            configuration.timeout = .init(connect: connect, read: answer)
            // A server that refuses connections is not there: say so at once instead of trying
            // again until the request's deadline.
            configuration.connectionPool.retryConnectionEstablishment = false
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            clients[key] = client
            return client
        }
    }
}

/// A file's bytes a megabyte at a time, for a streamed request body, reporting how many were read.
struct FileReadingSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let path: String
    let progress: @Sendable (Int64) -> Void

    func makeAsyncIterator() -> Iterator { Iterator(handle: FileHandle(forReadingAtPath: path), progress: progress) }

    struct Iterator: AsyncIteratorProtocol {
        let handle: FileHandle?
        let progress: @Sendable (Int64) -> Void
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let handle else { throw NimbusError(.badRequest, "cannot read the asset's file") }
            guard let data = try handle.read(upToCount: 1 << 20), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            sent += Int64(data.count)
            progress(sent)
            return ByteBuffer(bytes: data)
        }
    }
}
