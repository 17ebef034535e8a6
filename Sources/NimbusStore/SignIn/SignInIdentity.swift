//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A way one user signs in: an email address (with a password, or with codes mailed to it),
/// an anonymous device credential, or an account at an OpenID Connect provider.
///
/// An identity is found by its provider and subject, never by an email address a provider did
/// not vouch for: the same person signing in through the browser and through an app is one
/// user because the provider names them by the same subject both times.
public struct SignInIdentity: Sendable, Hashable {
    /// The container whose user this is.
    public var container: String
    /// ``emailProvider``, ``anonymousProvider``, or an OpenID Connect issuer URL.
    public var provider: String
    /// The email address in normal form (email), the credential ID (anonymous), or the
    /// issuer's `sub` claim.
    public var subject: String
    /// The user this identity signs in.
    public var userRecordName: String
    /// The password's hash (`nil` until an email identity has a password) or the anonymous
    /// credential's hash; `nil` for a provider.
    public var secretHash: String?
    /// The email address the provider vouched for, if any.
    public var email: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64

    /// Creates an identity.
    public init(
        container: String,
        provider: String,
        subject: String,
        userRecordName: String,
        secretHash: String? = nil,
        email: String? = nil,
        createdAt: Int64
    ) {
        self.container = container
        self.provider = provider
        self.subject = subject
        self.userRecordName = userRecordName
        self.secretHash = secretHash
        self.email = email
        self.createdAt = createdAt
    }

    /// The provider of email identities: codes mailed to the address, and a password if set.
    public static let emailProvider = "email"
    /// The provider of anonymous accounts' device credentials.
    public static let anonymousProvider = "anonymous"
}
