//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import HTTPTypes
public import Hummingbird
public import Logging
public import NimbusEngine
import NimbusModel
import NimbusStore
import NimbusWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Answers HTTP requests: the CloudKit Web Services endpoints, `/health` and `/metrics`.
///
/// Every database request gets an `X-Apple-Request-UUID`, is authenticated, and fails with an
/// error dictionary in the CloudKit shape (never a bare 500): malformed input is a 4xx and
/// writes nothing.
public struct CloudKitResponder<Context: RequestContext>: HTTPResponder {
    /// What the HTTP layer needs to know beyond the services.
    public struct Configuration: Sendable {
        /// The largest request body accepted, in bytes.
        public var maximumBodySize: Int
        /// Where the server is reached, for links such as the sign-in `redirectURL`.
        public var publicAddress: PublicAddress
        /// The server's public URL now.
        public var publicBaseURL: String { publicAddress.value }

        /// Creates a configuration.
        public init(maximumBodySize: Int = 16 * 1024 * 1024, publicAddress: PublicAddress) {
            self.maximumBodySize = maximumBodySize
            self.publicAddress = publicAddress
        }

        /// Creates a configuration with a public URL that does not change.
        public init(maximumBodySize: Int = 16 * 1024 * 1024, publicBaseURL: String) {
            self.init(maximumBodySize: maximumBodySize, publicAddress: PublicAddress(publicBaseURL))
        }
    }

    let database: DatabaseService
    let accounts: AccountService
    let dispatcher: NotificationDispatcher
    let courier: WebCourier
    let configuration: Configuration
    let metrics: HTTPMetrics
    /// Renders the metrics registry for `/metrics`.
    let renderMetrics: @Sendable () -> String
    let logger: Logger
    let requestIDs = RequestIDGenerator()

    /// Creates the responder.
    public init(
        database: DatabaseService,
        accounts: AccountService,
        dispatcher: NotificationDispatcher,
        courier: WebCourier,
        configuration: Configuration,
        metrics: HTTPMetrics,
        renderMetrics: @escaping @Sendable () -> String,
        logger: Logger
    ) {
        self.database = database
        self.accounts = accounts
        self.dispatcher = dispatcher
        self.courier = courier
        self.configuration = configuration
        self.metrics = metrics
        self.renderMetrics = renderMetrics
        self.logger = logger
    }

    public func respond(to request: Request, context: Context) async throws -> Response {
        let path = request.uri.path
        if request.method == .options { return CORS.preflight() }
        let isPage = path == "/health" || path == "/metrics" || path == "/openapi.json" || path.hasPrefix("/signin/")
        if isPage, request.method != .get, request.method != .head {
            var exchange = Exchange(requestID: requestIDs.next())
            exchange.fail(with: Exchange.methodRefusal, redirectURL: nil)
            exchange.refuseMethod(allowing: "GET, HEAD")
            return exchange.response()
        }
        switch path {
        case "/health":
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#))
            )
        case "/openapi.json":
            return OpenAPIDocument.response()
        case "/metrics":
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: renderMetrics()))
            )
        default:
            if path.hasPrefix("/signin/") { return SignInPage.response() }
            if path.hasPrefix("/webcourier/") { return await WebCourierPoll(courier: courier, requestIDs: requestIDs).respond(to: request) }
            if let shortGUID = SharePage.shortGUID(in: path) {
                return await SharePage(database: database, accounts: accounts, publicBaseURL: configuration.publicBaseURL)
                    .respond(to: request, shortGUID: shortGUID)
            }
            if let route = NotificationsRoute.parse(path) { return await respondToStreamRequest(request, route: route) }
            return await respondToDatabaseRequest(request)
        }
    }

    /// The notification channels over plain HTTP: the inbox, or the WebSocket stream reached
    /// without an upgrade (its authentication failed, or the client did not ask for one).
    private func respondToStreamRequest(_ request: Request, route: NotificationsRoute) async -> Response {
        var exchange = Exchange(requestID: requestIDs.next())
        do throws(NimbusError) {
            try Self.checkMethod(request, allowed: route.channel == .inbox ? [.get, .post] : [.get, .head])
            let query = request.uri.queryParameters
            let body = route.channel == .inbox ? try await collectBody(request) : []
            let user: String
            if route.channel == .inbox, let signature = Self.signature(of: request, body: body) {
                // A server-to-server key reads its own inbox, with a signed request.
                let caller = try await accounts.authenticate(signature: signature, container: route.container, environment: route.environment)
                guard let recipient = caller.notificationRecipient else { throw NimbusError(.authenticationFailed, "request signature is not valid") }
                user = recipient
            } else {
                let (authentication, signedIn) = try await accounts.authenticateNotifications(
                    apiToken: query["ckAPIToken"].map(String.init),
                    webAuthToken: query["ckWebAuthToken"].map(String.init),
                    route: route
                )
                exchange.webAuthToken = authentication.webAuthToken
                user = signedIn
            }
            switch route.channel {
            case .ws:
                if let after = query["after"], (Int64(after) ?? -1) < 0 {
                    throw NimbusError.badRequest("after must be a sequence number (0 or more), not '\(after.prefix(32))'")
                }
                throw NimbusError.badRequest("the notification stream is a WebSocket: send Connection: Upgrade and Upgrade: websocket")
            case .inbox:
                let container = ContainerEnvironment(container: route.container, environment: route.environment)
                exchange.body = try await NotificationInbox(dispatcher: dispatcher, user: user, container: container).respond(to: body)
                exchange.status = .ok
            }
        } catch {
            exchange.fail(with: error, redirectURL: redirectURL(for: error, path: request.uri.path))
            if error == Exchange.methodRefusal { exchange.refuseMethod(allowing: route.channel == .inbox ? "GET, POST" : "GET, HEAD") }
        }
        return exchange.response()
    }

    private func respondToDatabaseRequest(_ request: Request) async -> Response {
        let requestID = requestIDs.next()
        let started = ContinuousClock.now
        var operationName = "unknown"
        var exchange = Exchange(requestID: requestID)
        do throws(NimbusError) {
            let route = try DatabaseRoute.parse(request.uri.path)
            operationName = route.operation.rawValue
            try Self.checkMethod(request, allowed: [.get, .post])
            let body = try await collectBody(request)
            if route.operation.ignoresBody { try Self.checkIsJSON(body) }
            let authentication = try await authenticate(request, body: body, route: route)
            exchange.webAuthToken = authentication.webAuthToken
            var caller = authentication.caller
            caller.deviceID = NotificationsRoute.deviceID(request.headers[HeaderName.deviceID].map { Substring($0) })
            let access = DatabaseAccess(caller: caller, scope: route.scope)
            let endpoint = DatabaseEndpoints(
                database: database,
                accounts: accounts,
                courier: courier,
                publicBaseURL: configuration.publicBaseURL,
                access: access,
                body: body,
                metrics: metrics,
                operationName: operationName
            )
            exchange.body = try await endpoint.respond(to: route.operation)
            exchange.status = .ok
        } catch {
            // Every layer below reports NimbusError (the engine maps store and driver failures),
            // so no other error can reach a client as a bare 500.
            exchange.fail(with: error, redirectURL: redirectURL(for: error, path: request.uri.path))
            if error == Exchange.methodRefusal { exchange.refuseMethod(allowing: "GET, POST") }
            // Metadata goes with the call, not on a per-request logger copy: setting a logger's
            // metadata makes some handlers re-render it, on every request. A failure of the
            // server's own (the cause is logged where it happened) is a warning, so an operator
            // can find the request a client reports by its UUID; a client's mistake is debug.
            let serverSide = error.code == .internalError || error.code == .serviceUnavailable
            logger.log(
                level: serverSide ? .warning : .debug,
                "Request failed",
                metadata: [
                    LogKey.request: "\(requestID)", LogKey.operation: "\(operationName)",
                    LogKey.code: "\(error.code.serverErrorCode)",
                ]
            )
        }
        let elapsed = ContinuousClock.now - started
        metrics.record(
            operation: operationName,
            nanoseconds: elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000,
            errorCode: exchange.errorCode
        )
        return exchange.response()
    }

    // MARK: - Private

    private static func checkMethod(_ request: Request, allowed: Set<HTTPRequest.Method>) throws(NimbusError) {
        guard allowed.contains(request.method) else { throw Exchange.methodRefusal }
    }

    /// A body, where one is sent, is JSON: the same answer on every endpoint.
    private static func checkIsJSON(_ body: [UInt8]) throws(NimbusError) {
        guard body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return }
        do {
            _ = try JSONParser.parse(body)
        } catch {
            throw .badRequest("request body is not valid JSON: \(error)")
        }
    }

    private func collectBody(_ request: Request) async throws(NimbusError) -> [UInt8] {
        let limit = configuration.maximumBodySize
        let tooLarge = NimbusError.limitExceeded("request body is larger than the \(limit)-byte limit")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw tooLarge }
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch {
            throw tooLarge
        }
    }

    private func authenticate(_ request: Request, body: [UInt8], route: DatabaseRoute) async throws(NimbusError) -> Authentication {
        if let signature = Self.signature(of: request, body: body) {
            let caller = try await accounts.authenticate(signature: signature, container: route.container, environment: route.environment)
            return Authentication(caller: caller, webAuthToken: nil)
        }
        let query = request.uri.queryParameters
        guard let apiToken = query["ckAPIToken"] else {
            throw NimbusError(.authenticationFailed, "request has no credentials: pass ckAPIToken or sign it with a server-to-server key")
        }
        return try await accounts.authenticate(
            apiToken: String(apiToken),
            webAuthToken: query["ckWebAuthToken"].map(String.init),
            container: route.container,
            environment: route.environment
        )
    }

    /// The server-to-server signature a request carries, if it names a key.
    private static func signature(of request: Request, body: [UInt8]) -> RequestSignature? {
        guard let keyID = request.headers[HeaderName.keyID] else { return nil }
        return RequestSignature(
            keyID: keyID,
            date: request.headers[HeaderName.date] ?? "",
            signature: request.headers[HeaderName.signature] ?? "",
            body: body,
            path: request.uri.path
        )
    }

    private func redirectURL(for error: NimbusError, path: String) -> String? {
        guard error.code == .authenticationRequired else { return nil }
        return SignInPage.url(forRequestPath: path, base: configuration.publicBaseURL)
    }
}
