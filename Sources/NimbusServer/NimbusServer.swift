//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
public import Logging
import Metrics
public import NIOCore
import NimbusAPNs
import NimbusEngine
public import NimbusHTTP
import NimbusModel
import NimbusStore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// Builds and runs the Nimbus HTTP server over an opened ``NimbusInstance``.
///
/// The application's one `ServiceGroup` runs the instance's services (the store first) and the
/// HTTP server last: on SIGTERM or SIGINT the server stops accepting connections and lets
/// in-flight requests finish, then the services stop in reverse order and the store closes. Shutdown is bounded: requests still running after
/// ``gracefulShutdownLimit`` are cancelled, and work that ignores cancellation for
/// ``cancellationLimit`` more ends with the process.
public enum NimbusServer {
    /// What `nimbus serve` prints on first start: a container and a user to try it with.
    public struct Quickstart: Sendable {
        /// The identifier of the development container that was created.
        public var container: String
        /// The container's API token, to pass as `ckAPIToken`.
        public var apiToken: String
        /// The record name of the signed-in user.
        public var userRecordName: String
        /// The user's long-lived web auth token, to pass as `ckWebAuthToken`.
        public var webAuthToken: String
        /// The secret of the console's link that creates its first administrator
        /// (`/console/setup/{secret}`), when the server has no operator yet.
        public var consoleSetupLink: String?
    }

    /// The container a new data directory starts with.
    public static let quickstartContainer = "iCloud.com.example.nimbus"

    /// On a new data directory or an empty database, creates a development container and a
    /// signed-in user.
    public static func makeQuickstart(_ instance: NimbusInstance) async throws -> Quickstart? {
        guard instance.isNew else { return nil }
        let container: AccountService.NewContainer
        do {
            container = try await instance.accounts.createContainer(quickstartContainer, environment: .development)
        } catch  where error.code == .alreadyExists {
            // Another instance on the same new database got there first and printed the tokens.
            return nil
        }
        let user = try await instance.accounts.addUser(name: "Quick Start", email: nil, phone: nil, container: quickstartContainer)
        return Quickstart(
            container: quickstartContainer,
            apiToken: container.apiToken,
            userRecordName: user.user.userRecordName,
            webAuthToken: user.webAuthToken,
            consoleSetupLink: try await instance.operators.firstAdministratorLink()
        )
    }

    /// The request handler of a server on `instance`, without a listener: what
    /// ``makeApplication(_:logger:onServerRunning:)`` serves, and what in-process test servers
    /// call directly.
    public static func makeResponder(_ instance: NimbusInstance, logger: Logger) -> some HTTPResponder<NimbusRequestContext> {
        makeResponder(instance, address: PublicAddress(configuredURL(instance.configuration)), logger: logger)
    }

    /// The URL of a listening address: `http://host:port`, an IPv6 address in brackets.
    public static func url(hostname: String, port: Int, tls: Bool = false) -> String {
        let host = hostname.contains(":") && !hostname.hasPrefix("[") ? "[\(hostname)]" : hostname
        return "\(tls ? "https" : "http")://\(host):\(port)"
    }

    /// The URL the configuration names: its public URL, or the listening address (before the
    /// server listens, so port 0 stays 0).
    public static func configuredURL(_ configuration: ServerConfiguration) -> String {
        configuration.publicBaseURL ?? url(hostname: configuration.hostname, port: configuration.port, tls: configuration.tls != nil)
    }

    private static func makeResponder(
        _ instance: NimbusInstance,
        address: PublicAddress,
        logger: Logger
    ) -> some HTTPResponder<NimbusRequestContext> {
        let registry = PrometheusCollectorRegistry()
        // The HTTP layer's lines that name a request are also kept for the console's request page.
        let recentRequests = RecentRequestLog(now: { [clock = instance.clock] in clock.millisecondsSince1970 })
        var logger = logger
        logger.handler = MultiplexLogHandler([logger.handler, recentRequests.handler(level: logger.logLevel)])
        let services = HTTPServices(
            database: instance.database,
            accounts: instance.accounts,
            signIn: instance.signIn,
            operators: instance.operators,
            support: instance.support,
            schema: instance.schema,
            assets: instance.assets,
            dispatcher: instance.dispatcher,
            courier: WebCourier(tokens: instance.pushTokens, dispatcher: instance.dispatcher, clock: instance.clock, logger: logger)
        )
        return NimbusRouter.make(
            services: services,
            configuration: .init(
                maximumBodySize: instance.configuration.maximumBodySize,
                publicAddress: address,
                serverKey: instance.tokenKey,
                apps: instance.configuration.apps,
                accessLog: instance.configuration.accessLog,
                pagesDirectory: instance.configuration.pagesDirectory,
                recentRequests: recentRequests,
                pushSettings: instance.configuration.apns.map { apns in
                    [
                        ConsoleSetting(label: "Signing key", value: "set (its ID \(apns.keyID))"),
                        ConsoleSetting(label: "Team ID", value: apns.teamID),
                        ConsoleSetting(label: "Topic", value: apns.topic ?? "each container's ID without iCloud."),
                        ConsoleSetting(label: "Development endpoint", value: apns.developmentURL),
                        ConsoleSetting(label: "Production endpoint", value: apns.productionURL),
                    ]
                }
            ),
            metrics: HTTPMetrics(
                factory: PrometheusMetricsFactory(registry: registry),
                telemetry: RequestTelemetry(now: { [clock = instance.clock] in clock.millisecondsSince1970 })
            ),
            renderMetrics: { [page = MetricsPage(registry: registry, instance: instance)] in await page.render() },
            logger: logger
        ).buildResponder()
    }

    /// Builds the HTTP application.
    /// - Parameters:
    ///   - instance: The opened data directory.
    ///   - logger: The server's logger.
    ///   - beforeServing: Runs once the instance's services run (the store serves), before the
    ///     server listens; the server does not start if it throws.
    ///   - onServerRunning: Called with the server's URL and the listening channel once the
    ///     server accepts connections (on port 0, the URL names the port it got).
    public static func makeApplication(
        _ instance: NimbusInstance,
        logger: Logger,
        beforeServing: @escaping @Sendable () async throws -> Void = {},
        onServerRunning: @escaping @Sendable (_ url: String, any Channel) async -> Void = { _, _ in }
    ) -> some ApplicationProtocol {
        let configuration = instance.configuration
        let address = PublicAddress(configuredURL(configuration))
        let responder = makeResponder(instance, address: address, logger: logger)
        // Hummingbird announces itself at info level; at the default level Nimbus's own
        // "Nimbus ready" is the one line an operator sees on start.
        var frameworkLogger = logger
        if frameworkLogger.logLevel == .info { frameworkLogger.logLevel = .notice }
        let socket = NotificationSocket(accounts: instance.accounts, dispatcher: instance.dispatcher, publicAddress: address, logger: logger)
        let connections = configuration.maximumConnections ?? DescriptorLimit.connectionCap(forDescriptorLimit: DescriptorLimit.raiseToHardLimit())
        let server = HTTPServerBuilder { responder in
            GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(
                    responder: responder,
                    configuration: .init(http1: .init(idleTimeout: idleConnectionTimeout), ws: .init(maxFrameSize: 1 << 20))
                ) { request, channel, _ in
                    switch await socket.decide(request) {
                    case .upgrade(let upgrade):
                        return upgrade
                    case .refuse(let response):
                        // Answered and closed before the framework's own bare 400 could be.
                        await ConnectionGuard.answer(on: channel, with: response)
                        return .dontUpgrade
                    }
                },
                firstByteTimeout: TimeAmount(configuration.firstByteTimeout),
                headTimeout: TimeAmount(configuration.requestHeadTimeout),
                certificates: configuration.tls
            )
        }
        var application = Application(
            responder: responder,
            server: server,
            configuration: .init(
                address: .hostname(configuration.hostname, port: configuration.port),
                serverName: "Nimbus",
                availableConnectionsDelegate: MaximumAvailableConnections(connections, logger: logger)
            ),
            // One group: the instance's services, then the server; they stop in reverse order, so
            // the server drains before anything it calls stops, and the store closes last.
            services: instance.services,
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                let listening = url(hostname: configuration.hostname, port: port, tls: configuration.tls != nil)
                // Links name the port the listener got, unless a public URL is configured.
                if configuration.publicBaseURL == nil { address.set(listening) }
                await onServerRunning(configuration.publicBaseURL ?? listening, channel)
            },
            logger: frameworkLogger
        )
        application.beforeServerStarts(perform: beforeServing)
        return application
    }

    /// Runs the server until SIGTERM or SIGINT, then shuts it down gracefully.
    /// - Parameters:
    ///   - beforeServing: Runs once the store serves, before the server listens.
    ///   - onReady: called with the server's URL once it accepts connections, before the
    ///     "Nimbus ready" line is logged.
    public static func run(
        _ instance: NimbusInstance,
        logger: Logger,
        beforeServing: @escaping @Sendable () async throws -> Void = {},
        onReady: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws {
        let application = makeApplication(instance, logger: logger, beforeServing: beforeServing) { url, channel in
            onReady(url)
            let port = channel.localAddress?.port ?? instance.configuration.port
            logger.info(
                "Nimbus ready",
                metadata: [
                    LogKey.url: "\(Self.url(hostname: instance.configuration.hostname, port: port, tls: instance.configuration.tls != nil))",
                    LogKey.data: "\(instance.configuration.dataDirectory)",
                ]
            )
        }
        var group = ServiceGroupConfiguration(
            // Named: the lifecycle would otherwise log the application's whole description.
            services: [.init(service: application, serviceName: "NimbusHTTPServer")],
            logger: logger
        )
        group.gracefulShutdownSignals = [.sigterm, .sigint]
        group.maximumGracefulShutdownDuration = gracefulShutdownLimit
        group.maximumCancellationDuration = cancellationLimit
        try await ServiceGroup(configuration: group).run()
    }

    /// How long a connection may sit without a request (or in the middle of reading one)
    /// before the server closes it, as common proxies do. A client that vanished without closing
    /// its connection would otherwise hold a graceful shutdown forever.
    static let idleConnectionTimeout: TimeAmount = .seconds(75)
    /// How long in-flight requests get to finish after SIGTERM before they are cancelled.
    static let gracefulShutdownLimit: Duration = .seconds(30)
    /// How long cancelled work gets to end before the process stops regardless.
    static let cancellationLimit: Duration = .seconds(10)
}
