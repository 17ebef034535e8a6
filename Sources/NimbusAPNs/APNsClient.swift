//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import AsyncHTTPClient
public import Logging
import NIOCore
import NIOHTTP1
import NIOSSL
public import NimbusEngine
import NimbusModel

/// Sends pushes to APNs over HTTP/2 with a provider token (token-based authentication).
///
/// One HTTP client holds the connections to APNs' hosts: HTTP/2 multiplexes every push to a
/// host over one connection, as Apple asks providers to. ``shutdown()`` must be called before
/// the client goes away.
public final class APNsClient: APNsSender {
    private let configuration: APNsConfiguration
    private let http: HTTPClient
    private let providerToken: ProviderToken
    private let logger: Logger

    /// How long one push may take, connection included.
    static let timeout = TimeAmount.seconds(15)

    /// Creates a client; throws if the key or the trust roots cannot be read.
    public init(configuration: APNsConfiguration, logger: Logger) async throws {
        providerToken = try await ProviderToken(keyPEM: configuration.keyPEM, keyID: configuration.keyID, teamID: configuration.teamID)
        var tls = TLSConfiguration.makeClientConfiguration()
        if let pem = configuration.additionalTrustRootsPEM {
            tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMBytes(Array(pem.utf8)))]
        }
        var httpConfiguration = HTTPClient.Configuration(tlsConfiguration: tls)
        httpConfiguration.httpVersion = .automatic
        httpConfiguration.timeout = .init(connect: .seconds(10), read: Self.timeout)
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
        self.configuration = configuration
        self.logger = logger
    }

    /// Closes the connections.
    public func shutdown() async throws {
        try await http.shutdown()
    }

    public func send(_ push: APNsPush) async -> APNsOutcome {
        let base = push.apnsEnvironment == "development" ? configuration.developmentURL : configuration.productionURL
        var request = HTTPClientRequest(url: "\(base)/3/device/\(push.deviceToken)")
        request.method = .POST
        let token: String
        do {
            token = try await providerToken.value()
        } catch {
            return .retryLater(reason: "cannot sign a provider token: \(error)", retryAfter: nil)
        }
        request.headers.add(name: "authorization", value: "bearer \(token)")
        request.headers.add(name: "apns-push-type", value: push.pushType.rawValue)
        request.headers.add(name: "apns-topic", value: configuration.topic(for: push.container))
        request.headers.add(name: "apns-priority", value: "\(push.priority)")
        request.headers.add(name: "apns-expiration", value: "\(push.expiration)")
        request.headers.add(name: "apns-id", value: push.notificationID)
        if let collapseID = push.collapseID { request.headers.add(name: "apns-collapse-id", value: collapseID) }
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: push.payload))
        let status: HTTPResponseStatus
        let retryAfter: String?
        let body: ByteBuffer
        do {
            let response = try await http.execute(request, timeout: Self.timeout)
            status = response.status
            retryAfter = response.headers.first(name: "retry-after")
            body = try await response.body.collect(upTo: 64 * 1024)
        } catch {
            return .retryLater(reason: "APNs unreachable: \(error)", retryAfter: nil)
        }
        let reason = APNsReason.read(body)
        if status == .forbidden, reason == "ExpiredProviderToken" || reason == "InvalidProviderToken" {
            await providerToken.renew(rejected: token)
        }
        return outcome(status: status, reason: reason, retryAfter: retryAfter.flatMap { Int64($0) }.map { .seconds($0) })
    }

    /// What an APNs answer means for the push and the token.
    private func outcome(status: HTTPResponseStatus, reason: String?, retryAfter: Duration?) -> APNsOutcome {
        let reason = reason ?? "HTTP \(status.code)"
        switch status.code {
        case 200:
            return .delivered
        case 410:
            return .tokenInvalid(reason: reason)
        case 400 where reason == "BadDeviceToken" || reason == "DeviceTokenNotForTopic":
            return .tokenInvalid(reason: reason)
        case 403 where reason == "ExpiredProviderToken" || reason == "InvalidProviderToken":
            // A new token is signed for the next try (see `send`).
            return .retryLater(reason: reason, retryAfter: nil)
        case 403, 429, 500...599:
            // A 403 of another kind is the account's configuration (a key or topic not allowed):
            // fixed by an operator, after which the pushes go out.
            if status.code == 403 { logger.error("APNs refuses this server's credentials", metadata: [LogKey.reason: "\(reason)"]) }
            return .retryLater(reason: reason, retryAfter: retryAfter)
        default:
            return .rejected(reason: reason)
        }
    }
}

/// The `reason` of an APNs error body: `{"reason": "BadDeviceToken"}`.
enum APNsReason {
    static func read(_ body: ByteBuffer) -> String? {
        guard case .object(let members)? = try? JSONParser.parse(Array(body.readableBytesView)), case .string(let reason)? = members["reason"]
        else { return nil }
        return reason
    }
}
