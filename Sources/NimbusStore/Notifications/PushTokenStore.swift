//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A push token of a signed-in user: where their notifications may be delivered besides the
/// WebSocket.
public struct PushToken: Sendable, Hashable {
    /// What the token is for.
    public enum Kind: String, Sendable, Hashable {
        /// A web courier (long poll) token: its URL is the credential, so only its hash is kept.
        case webCourier = "webcourier"
        /// An APNs device token registered with `tokens/register`.
        case apns
    }

    /// The key the token is stored under: the hash of a web courier token, the APNs token itself.
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

    /// Creates a token.
    public init(
        key: String,
        kind: Kind,
        container: ContainerEnvironment,
        userRecordName: String,
        apnsEnvironment: String,
        deliveredThrough: Int64
    ) {
        self.key = key
        self.kind = kind
        self.container = container
        self.userRecordName = userRecordName
        self.apnsEnvironment = apnsEnvironment
        self.deliveredThrough = deliveredThrough
    }
}

/// Keeps push tokens.
public protocol PushTokenStore: Sendable {
    /// Saves a token; one of the same key is replaced (a device registering again).
    func savePushToken(_ token: PushToken) async throws

    /// The token stored under `key`.
    func pushToken(_ key: String) async throws -> PushToken?

    /// Moves the token from `expected` to `sequence`; false when another poll moved it first.
    func advancePushToken(_ key: String, from expected: Int64, through sequence: Int64) async throws -> Bool
}
