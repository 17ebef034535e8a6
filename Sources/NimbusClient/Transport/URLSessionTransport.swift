//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

// URLSession is Foundation's on Apple platforms and FoundationNetworking's elsewhere: the one
// that declares it is the public import.
#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

/// A ``ClientTransport`` over `URLSession`: the natural choice in apps on Apple platforms (it
/// follows the system's proxy, cellular and background rules), and available on Linux through
/// FoundationNetworking.
public struct URLSessionTransport: ClientTransport {
    private let session: URLSession
    private let timeout: Duration

    /// Creates a transport.
    /// - Parameters:
    ///   - session: the session; the shared one by default.
    ///   - timeout: how long a request may wait for the server.
    public init(session: URLSession = .shared, timeout: Duration = .seconds(60)) {
        self.session = session
        self.timeout = timeout
    }

    public func send(_ request: ClientRequest) async throws -> ClientResponse {
        guard let url = URL(string: request.url) else { throw NimbusError(.badRequest, "not a URL: \(request.url)") }
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        var outgoing = URLRequest(url: url, timeoutInterval: seconds)
        outgoing.httpMethod = request.method
        for (name, value) in request.headers {
            outgoing.setValue(value, forHTTPHeaderField: name)
        }
        if !request.body.isEmpty {
            outgoing.httpBody = Data(request.body)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: outgoing)
        } catch let error as URLError where Self.unreachableCodes.contains(error.code) {
            // Never reached the server: nothing happened there, and trying again cannot help now.
            let server = "\(url.scheme ?? "http")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")"
            throw NimbusError(.networkUnavailable, "cannot connect to \(server): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw NimbusError(.internalError, "the server's answer is not HTTP")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return ClientResponse(status: http.statusCode, headers: headers, body: Array(data))
    }

    /// The errors of a request that never reached the server.
    private static let unreachableCodes: Set<URLError.Code> = [.cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet]
}
