//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusWire
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A container on a Nimbus server, and the entry point of the SDK: its three databases.
///
/// CloudKit's `CKContainer`, pointed at any server. A container holds the credentials every
/// request carries; with a web auth token it follows the token rotation of CloudKit Web
/// Services (each response names the token for the next request).
///
/// ```swift
/// let container = Container(
///     serverURL: "http://127.0.0.1:8080",
///     identifier: "iCloud.com.example.notes",
///     environment: .development,
///     authentication: .apiToken(apiToken, webAuthToken: webAuthToken)
/// )
/// let notes = try await container.privateCloudDatabase.records(named: ["n1"], in: zoneID)
/// ```
public final class Container: Sendable {
    /// The server's base URL, such as `https://nimbus.example.com`.
    public let serverURL: String
    /// The container identifier, such as `iCloud.com.example.notes`.
    public let identifier: String
    /// Development or production: separate data on the server.
    public let environment: Environment
    /// When requests are sent again by themselves.
    public let retryPolicy: RetryPolicy
    /// What the waits between tries are measured on.
    let clock: any Clock<Duration>
    let transport: any ClientTransport
    let authentication: Mutex<Authentication>
    /// Where the signed-in user's credentials are kept between launches, if anywhere.
    let tokenStore: (any TokenStore)?

    /// Creates a container.
    /// - Parameters:
    ///   - serverURL: the server's base URL.
    ///   - identifier: the container identifier.
    ///   - environment: development (the default) or production.
    ///   - authentication: the API token (and user token) or the server-to-server key.
    ///   - transport: how requests travel; ``defaultTransport()`` unless given.
    ///   - retryPolicy: when failed requests are sent again.
    ///   - clock: what the waits between tries are measured on; tests pass one they move.
    ///   - tokenStore: where sign-ins are kept between launches: with an API token and no web
    ///     auth token, the container starts signed in as the store's saved token.
    public init(
        serverURL: String,
        identifier: String,
        environment: Environment = .development,
        authentication: Authentication,
        transport: any ClientTransport = Container.defaultTransport(),
        retryPolicy: RetryPolicy = RetryPolicy(),
        clock: any Clock<Duration> = ContinuousClock(),
        tokenStore: (any TokenStore)? = nil
    ) {
        self.serverURL = serverURL.hasSuffix("/") ? String(serverURL.dropLast()) : serverURL
        self.identifier = identifier
        self.environment = environment
        var authentication = authentication
        if case .apiToken(let apiToken, nil) = authentication, let saved = tokenStore?.load() {
            authentication = .apiToken(apiToken, webAuthToken: saved.webAuthToken)
        }
        self.tokenStore = tokenStore
        self.authentication = Mutex(authentication)
        self.transport = transport
        self.retryPolicy = retryPolicy
        self.clock = clock
    }

    /// The transport a container uses unless given one: ``URLSessionTransport`` on Apple
    /// platforms, where it follows the system's proxy and cellular settings, and
    /// ``HTTPClientTransport`` (AsyncHTTPClient) elsewhere, where URLSession is less complete.
    public static func defaultTransport() -> any ClientTransport {
        #if canImport(Darwin)
            URLSessionTransport()
        #else
            HTTPClientTransport()
        #endif
    }

    // MARK: - Databases

    /// The database every user of the container shares.
    public var publicCloudDatabase: Database { Database(container: self, scope: .public) }
    /// The signed-in user's own database.
    public var privateCloudDatabase: Database { Database(container: self, scope: .private) }
    /// The records others shared with the signed-in user.
    public var sharedCloudDatabase: Database { Database(container: self, scope: .shared) }

    /// The database of a scope.
    public func database(_ scope: DatabaseScope) -> Database { Database(container: self, scope: scope) }

    /// The current web auth token: the one the last response named, or the one given at creation.
    public var webAuthToken: String? {
        authentication.withLock { authentication in
            if case .apiToken(_, let token) = authentication { return token }
            return nil
        }
    }

    // MARK: - Requests

    /// Sends an operation to a database and returns the parsed response body.
    ///
    /// Retries what ``retryPolicy`` allows, switches to the web auth token each response names,
    /// and turns an error response into a ``NimbusError``. A request that got no response at all
    /// is sent again only when `idempotent`: a write whose response was lost may have committed,
    /// and sending it again would report its own success as a conflict.
    func perform(_ operation: String, in scope: DatabaseScope, body: [UInt8]?, idempotent: Bool) async throws -> JSONValue {
        try Self.parse(try await send(operation, in: scope, body: body, idempotent: idempotent))
    }

    /// Sends an operation to a database as ``perform(_:in:body:idempotent:)`` does, and returns
    /// the response body unparsed, for readers that build their types straight from the bytes.
    func send(_ operation: String, in scope: DatabaseScope, body: [UInt8]?, idempotent: Bool) async throws -> [UInt8] {
        try await send(path: "\(containerPath)/\(scope.rawValue)/\(operation)", body: body, idempotent: idempotent)
    }

    /// `/database/1/{container}/{environment}`: where every path of the container begins.
    var containerPath: String { "/database/1/\(Self.escaped(identifier))/\(environment.rawValue)" }

    /// Sends a request to a path of the container (see ``perform(_:in:body:idempotent:)``).
    func perform(path: String, body: [UInt8]?, idempotent: Bool) async throws -> JSONValue {
        try Self.parse(try await send(path: path, body: body, idempotent: idempotent))
    }

    /// The body of a successful response, parsed.
    private static func parse(_ body: [UInt8]) throws -> JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            throw NimbusError(.internalError, "the server's response is not valid JSON: \(error)")
        }
    }

    /// Sends a request to a path of the container and returns the body of its successful
    /// response (see ``perform(_:in:body:idempotent:)``).
    func send(path: String, body: [UInt8]?, idempotent: Bool) async throws -> [UInt8] {
        var attempt = 0
        while true {
            attempt += 1
            let (request, sentToken) = try makeRequest(path: path, body: body)
            let response: ClientResponse
            do {
                response = try await transport.send(request)
            } catch let error as CancellationError {
                throw error
            } catch let error as NimbusError {
                // A transport's own verdict, not a lost answer.
                throw error
            } catch {
                let lost = NimbusError(.serviceUnavailable, "no response from the server: \(error)")
                guard idempotent, let delay = retryPolicy.delay(afterAttempt: attempt, retryAfter: nil) else { throw lost }
                try await clock.sleep(for: delay)
                continue
            }
            adoptRotatedToken(from: response, replacing: sentToken)
            if (200..<300).contains(response.status) { return response.body }
            let (error, delay) = verdict(on: response, attempt: attempt, idempotent: idempotent)
            guard let delay else { throw error }
            try await clock.sleep(for: delay)
        }
    }

    /// What an error response means: the error to report, and the wait before sending the
    /// request again, or `nil` to report it now.
    private func verdict(on response: ClientResponse, attempt: Int, idempotent: Bool) -> (NimbusError, Duration?) {
        let headerRetryAfter = response.headers["retry-after"].flatMap { Int($0) }.map { Duration.seconds($0) }
        if let json = try? JSONParser.parse(response.body), WireError.isError(json) {
            let error = WireError.nimbusError(from: json)
            // TRY_AGAIN_LATER and THROTTLED mean the server did not do the work. With a
            // `retryAfter` it says when to come back; without one, only a request that is safe
            // to send twice is sent again, after a back-off.
            guard error.code == .serviceUnavailable || error.code == .requestRateLimited else { return (error, nil) }
            if let retryAfter = error.retryAfter { return (error, retryPolicy.delay(afterAttempt: attempt, retryAfter: retryAfter)) }
            return (error, idempotent ? retryPolicy.delay(afterAttempt: attempt, retryAfter: nil) : nil)
        }
        // No CloudKit error: the answer of a proxy or load balancer in front of the server.
        switch response.status {
        case 413:
            // Its body limit: a batch may be split and sent again.
            return (NimbusError(.limitExceeded, "HTTP 413 from a proxy: the request is larger than it accepts"), nil)
        case 429:
            // Turned away before the server: safe to send again once it allows.
            let error = NimbusError(.requestRateLimited, "HTTP 429 from a proxy", retryAfter: headerRetryAfter)
            if let headerRetryAfter { return (error, retryPolicy.delay(afterAttempt: attempt, retryAfter: headerRetryAfter)) }
            return (error, idempotent ? retryPolicy.delay(afterAttempt: attempt, retryAfter: nil) : nil)
        case 502, 503, 504:
            // The server may or may not have done the work: only a request that is safe to send
            // twice goes again, and a write's caller is not told to retry.
            guard idempotent else {
                return (NimbusError(.serviceUnavailable, "HTTP \(response.status) from a proxy: the server may or may not have done the work"), nil)
            }
            let error = NimbusError(.serviceUnavailable, "HTTP \(response.status) from a proxy", retryAfter: headerRetryAfter)
            return (error, retryPolicy.delay(afterAttempt: attempt, retryAfter: headerRetryAfter))
        default:
            return (NimbusError(.internalError, "HTTP \(response.status) without a CloudKit error"), nil)
        }
    }

    /// The request, and the web auth token it carries (to tell a rotation from a stale echo).
    private func makeRequest(path: String, body: [UInt8]?) throws -> (ClientRequest, String?) {
        let authentication = authentication.withLock { $0 }
        var url = serverURL + path
        var headers: [String: String] = [:]
        var sentToken: String?
        if body != nil { headers["Content-Type"] = "application/json" }
        switch authentication {
        case .apiToken(let token, let webAuthToken):
            url += "?ckAPIToken=\(Self.escaped(token))"
            if let webAuthToken { url += "&ckWebAuthToken=\(Self.escaped(webAuthToken))" }
            sentToken = webAuthToken
        case .serverToServer(let keyID, let privateKey):
            let signer = RequestSigner(keyID: keyID, privateKey: privateKey)
            headers.merge(try signer.headers(path: path, body: body ?? [], date: Date())) { _, signed in signed }
        }
        return (ClientRequest(method: body == nil ? "GET" : "POST", url: url, headers: headers, body: body ?? []), sentToken)
    }

    /// Switches to the replacement web auth token a response names (CloudKit's rotation), but only
    /// if the container still uses the token that request carried: a slow response to an older
    /// request must not bring back a token that was already replaced.
    private func adoptRotatedToken(from response: ClientResponse, replacing sentToken: String?) {
        guard let sentToken, let rotated = response.headers["x-apple-cloudkit-web-auth-token"], !rotated.isEmpty, rotated != sentToken
        else { return }
        let adopted = authentication.withLock { authentication in
            guard case .apiToken(let token, sentToken?) = authentication else { return false }
            authentication = .apiToken(token, webAuthToken: rotated)
            return true
        }
        if adopted, let tokenStore, var saved = tokenStore.load(), saved.webAuthToken == sentToken {
            saved.webAuthToken = rotated
            tokenStore.save(saved)
        }
    }

    /// Percent-encodes everything but unreserved characters, as CloudKit expects of tokens
    /// (`+` `/` `=` included).
    static func escaped(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                output += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return output
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
