//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import Hummingbird
public import Logging

/// Builds the router that answers Nimbus's HTTP requests: the CloudKit Web Services
/// operations, the notification channels, the pages, `/health` and `/metrics`.
///
/// Every response carries an `X-Apple-Request-UUID`; every failure is an error dictionary in the
/// CloudKit shape (never a bare 500), and malformed input is a 4xx that writes nothing. Adding an
/// endpoint or a page is one route and one handler, in the `*Routes` type of its area.
///
/// ```swift
/// let router = NimbusRouter.make(services: services, configuration: configuration, metrics: metrics,
///                                renderMetrics: { registry.emitToString() }, logger: logger)
/// let application = Application(router: router)
/// ```
public enum NimbusRouter {
    /// What the HTTP layer needs to know beyond the services.
    public struct Configuration: Sendable {
        /// The largest request body accepted, in bytes.
        public var maximumBodySize: Int
        /// Where the server is reached, for links such as the sign-in `redirectURL`.
        public var publicAddress: PublicAddress
        /// The server's secret key (32 bytes), from which the keys of the pages' sealed values
        /// are derived.
        public var serverKey: [UInt8]
        /// The bundled web apps served under `/apps/{name}/` (`nimbus serve --apps chat`).
        public var apps: [WebApp]
        /// Whether each request is logged at info level (``AccessLogMiddleware``).
        public var accessLog: Bool
        /// An operator's directory of page replacements: `nimbus.css`, console templates.
        public var pagesDirectory: String?
        /// The latest log lines by request, for the console's request page; `nil`: none kept.
        public var recentRequests: RecentRequestLog?
        /// The server's push settings as the console shows them (no secret); `nil`: no APNs.
        public var pushSettings: [ConsoleSetting]?

        /// Creates a configuration.
        public init(
            maximumBodySize: Int = 16 * 1024 * 1024,
            publicAddress: PublicAddress,
            serverKey: [UInt8],
            apps: [WebApp] = [],
            accessLog: Bool = true,
            pagesDirectory: String? = nil,
            recentRequests: RecentRequestLog? = nil,
            pushSettings: [ConsoleSetting]? = nil
        ) {
            self.maximumBodySize = maximumBodySize
            self.publicAddress = publicAddress
            self.serverKey = serverKey
            self.apps = apps
            self.accessLog = accessLog
            self.pagesDirectory = pagesDirectory
            self.recentRequests = recentRequests
            self.pushSettings = pushSettings
        }
    }

    /// The browser-facing headers: the API's own, readable by pages of any origin (CloudKit JS).
    static let cors = CORSMiddleware<NimbusRequestContext>(
        allowOrigin: .all,
        allowHeaders: [.contentType, .contentDisposition, HeaderName.keyID, HeaderName.date, HeaderName.signature, HeaderName.deviceID],
        allowMethods: [.get, .post, .options],
        exposedHeaders: [HeaderName.requestUUID.canonicalName, HeaderName.webAuthToken.canonicalName],
        maxAge: .seconds(600)
    )

    /// Builds the router.
    /// - Parameters:
    ///   - services: The engine's services the routes call.
    ///   - configuration: Body limit and public address.
    ///   - metrics: Where request counts and latencies go.
    ///   - renderMetrics: Renders the metrics registry for `/metrics`.
    ///   - logger: Where failed requests are logged.
    public static func make(
        services: HTTPServices,
        configuration: Configuration,
        metrics: HTTPMetrics,
        renderMetrics: @escaping @Sendable () async -> String,
        logger: Logger
    ) -> Router<NimbusRequestContext> {
        let router = Router(context: NimbusRequestContext.self)
        // Outermost first; middleware applies to the routes added after it.
        router.add(middleware: CloudKitHeadersMiddleware())
        router.add(middleware: cors)
        if configuration.accessLog { router.add(middleware: AccessLogMiddleware(logger: logger)) }
        router.add(middleware: CloudKitErrorMiddleware(publicAddress: configuration.publicAddress, logger: logger))
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        let bodies = RequestBodyReader(maximumSize: configuration.maximumBodySize)
        let flowKey = SymmetricKey(
            data: HMAC<SHA256>.authenticationCode(for: Array("nimbus sign-in flow".utf8), using: SymmetricKey(data: configuration.serverKey))
        )
        let templates = PageTemplates(directory: configuration.pagesDirectory)
        PageRoutes(
            services: services,
            publicAddress: configuration.publicAddress,
            flowKey: flowKey,
            chrome: PageChrome(directory: configuration.pagesDirectory),
            templates: templates,
            renderMetrics: renderMetrics
        ).add(to: router)
        ConsoleRoutes(
            services: services,
            publicAddress: configuration.publicAddress,
            telemetry: metrics.telemetry,
            templates: templates,
            recentRequests: configuration.recentRequests,
            csrfKey: SymmetricKey(
                data: HMAC<SHA256>.authenticationCode(
                    for: Array("nimbus console csrf".utf8),
                    using: SymmetricKey(data: configuration.serverKey)
                )
            ),
            pushSettings: configuration.pushSettings
        ).add(to: router)
        NotificationRoutes(services: services, bodies: bodies).add(to: router)
        AuthRoutes(services: services, bodies: bodies).add(to: router)
        DatabaseRoutes(services: services, bodies: bodies, metrics: metrics, publicAddress: configuration.publicAddress).add(to: router)
        AssetRoutes(assets: services.assets).add(to: router)
        WebFileRoutes(apps: configuration.apps).add(to: router)
        return router
    }
}
