//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// An OpenID Connect provider a container trusts: its ID tokens sign people in.
public struct SignInProvider: Sendable, Hashable, Codable {
    /// Which provider's quirks apply.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Sign in with Apple: the native flow puts the SHA-256 of the nonce in the token, the
        /// email comes on the first sign-in only, and Apple notifies revoked consent.
        case apple
        /// Google: `email_verified` is trusted for Gmail and Google Workspace addresses.
        case google
        /// Any other issuer, taken as the OpenID Connect specification describes.
        case generic
    }

    /// The name apps use for it (`apple`, `google`, `acme`): unique in its container environment.
    public var name: String
    /// Which provider's quirks apply.
    public var kind: Kind
    /// The issuer (`https://appleid.apple.com`): ID tokens must carry it as `iss`, and its
    /// discovery document is found under it.
    public var issuer: String
    /// The audiences accepted (`aud`): the app's bundle ID, its Services ID, an OAuth client ID.
    /// The first is the client ID of the browser sign-in (the authorization code flow).
    public var clientIDs: [String]
    /// The client secret of the browser sign-in's code exchange, if the provider requires one.
    /// Stores keep it encrypted; it is never printed or logged.
    public var clientSecret: String?

    /// Creates a provider.
    public init(name: String, kind: Kind, issuer: String, clientIDs: [String], clientSecret: String? = nil) {
        self.name = name
        self.kind = kind
        self.issuer = issuer
        self.clientIDs = clientIDs
        self.clientSecret = clientSecret
    }

    /// Apple's issuer.
    public static let appleIssuer = "https://appleid.apple.com"
    /// Google's issuer.
    public static let googleIssuer = "https://accounts.google.com"
}
