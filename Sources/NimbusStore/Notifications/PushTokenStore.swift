//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// A push token of a signed-in user: where their notifications may be delivered besides the
/// WebSocket.
public struct PushToken: Sendable, Hashable {
    /// What the token is for.
    public enum Kind: String, Sendable, Hashable {
        /// A web courier (long poll) token: its URL is the credential, so only its hash is kept.
        case webCourier = "webcourier"
        /// An APNs device token registered with `tokens/register`.
        case apns
        /// A server-to-server key's webhook: its notifications are POSTed to a URL.
        case webhook
    }

    /// The key the token is stored under: the hash of a web courier token; for an APNs token,
    /// `apns:{container}/{environment}/{token}` (see ``apnsKey(_:in:)``).
    public var key: String
    /// What it is for.
    public var kind: Kind
    /// The container and environment.
    public var container: ContainerEnvironment
    /// The user it delivers to.
    public var userRecordName: String
    /// `development` or `production`, as the client said.
    public var apnsEnvironment: String
    /// The last inbox sequence delivered through it.
    public var deliveredThrough: Int64
    /// The APNs device token (for ``Kind/apns``), or the URL notifications are POSTed to (for
    /// ``Kind/webhook``): where the token delivers to.
    public var apnsToken: String?
    /// The device that registered it (`X-Nimbus-Device-ID`): changes it made are not pushed to it.
    public var deviceID: String?
    /// Failed delivery attempts since the last success.
    public var failures: Int
    /// When it was registered or last used, in milliseconds since 1970.
    public var lastUsedAt: Int64

    /// Creates a token.
    public init(
        key: String,
        kind: Kind,
        container: ContainerEnvironment,
        userRecordName: String,
        apnsEnvironment: String,
        deliveredThrough: Int64,
        apnsToken: String? = nil,
        deviceID: String? = nil,
        failures: Int = 0,
        lastUsedAt: Int64 = 0
    ) {
        self.key = key
        self.kind = kind
        self.container = container
        self.userRecordName = userRecordName
        self.apnsEnvironment = apnsEnvironment
        self.deliveredThrough = deliveredThrough
        self.apnsToken = apnsToken
        self.deviceID = deviceID
        self.failures = failures
        self.lastUsedAt = lastUsedAt
    }

    /// How many tokens of one kind a user keeps in a container and environment: registering
    /// one more removes the least recently used.
    public static let maximumPerUser = 100

    /// The key of an APNs device token: one device token is one app on one device, and may be
    /// registered in several containers.
    public static func apnsKey(_ token: String, in container: ContainerEnvironment) -> String {
        "apns:\(container.container)/\(container.environment.rawValue)/\(token)"
    }

    /// The key of a server-to-server key's webhook: one per key and environment.
    public static func webhookKey(keyID: String, in container: ContainerEnvironment) -> String {
        "webhook:\(container.container)/\(container.environment.rawValue)/\(keyID)"
    }
}

/// Keeps push tokens.
public protocol PushTokenStore: Sendable {
    /// Saves a token; one of the same key is replaced (a device registering again). The user's
    /// least recently used tokens of the kind beyond ``PushToken/maximumPerUser`` are removed.
    func savePushToken(_ token: PushToken) async throws

    /// Marks a token used now.
    func touchPushToken(_ key: String) async throws

    /// Removes web courier tokens not used since `cutoff`; returns how many.
    func pruneCourierTokens(unusedSince cutoff: Int64) async throws -> Int

    /// The token stored under `key`.
    func pushToken(_ key: String) async throws -> PushToken?

    /// A user's push tokens in a container environment (their devices and channels), newest
    /// use first.
    func pushTokens(of userRecordName: String, in container: ContainerEnvironment) async throws -> [PushToken]

    /// Moves the token from `expected` to `sequence`; false when another poll moved it first.
    func advancePushToken(_ key: String, from expected: Int64, through sequence: Int64) async throws -> Bool

    /// Claims, until `leaseUntil`, up to `limit` tokens of a kind (APNs or webhooks) whose user
    /// has inbox entries past the token's position, that are not waiting out a back-off at
    /// `now`, and that no other instance holds. Oldest-due first.
    func claimDuePushTokens(_ kind: PushToken.Kind, now: Int64, leaseUntil: Int64, limit: Int) async throws -> [PushToken]

    /// Ends a claim: records the position reached, the failures since the last success, and
    /// when to try again.
    func releasePushToken(_ key: String, deliveredThrough: Int64, failures: Int, nextAttemptAt: Int64) async throws

    /// Removes a token (one APNs says is no longer valid).
    func deletePushToken(_ key: String) async throws
}
