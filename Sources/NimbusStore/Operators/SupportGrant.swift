//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// A user's consent to support: for a while, operators may read their data in the console, all
/// of it or one zone of their private database. Every read is recorded where the user sees it.
public struct SupportGrant: Sendable, Hashable {
    /// The grant's identifier, which the user revokes it by.
    public var id: String
    /// The container environment of the user.
    public var environment: ContainerEnvironment
    /// The user who gave it.
    public var user: String
    /// The one zone of their private database it covers; `nil` for all their data (the
    /// private database and the zones shared with them).
    public var zoneName: String?
    /// When it was given, in milliseconds since 1970.
    public var createdAt: Int64
    /// When it ends by itself.
    public var expiresAt: Int64
    /// When the user ended it, if they did.
    public var revokedAt: Int64?

    /// Creates a grant.
    public init(
        id: String,
        environment: ContainerEnvironment,
        user: String,
        zoneName: String?,
        createdAt: Int64,
        expiresAt: Int64,
        revokedAt: Int64? = nil
    ) {
        self.id = id
        self.environment = environment
        self.user = user
        self.zoneName = zoneName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }

    /// Whether it lets operators read at `now`.
    public func isLive(at now: Int64) -> Bool {
        revokedAt == nil && now < expiresAt
    }
}

/// One read of a user's data in the console under their grant: what the user sees of it.
public struct SupportRead: Sendable, Hashable {
    /// The grant it was made under.
    public var grantID: String
    /// When, in milliseconds since 1970.
    public var at: Int64
    /// The operator who read, by address.
    public var operatorEmail: String
    /// What was read, in words (`the zone Notes of the private database`).
    public var what: String

    /// Creates a read.
    public init(grantID: String, at: Int64, operatorEmail: String, what: String) {
        self.grantID = grantID
        self.at = at
        self.operatorEmail = operatorEmail
        self.what = what
    }
}
