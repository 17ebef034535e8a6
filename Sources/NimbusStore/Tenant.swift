//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The unit of data placement: one owner's data in one container environment.
///
/// Every table is keyed by these three first, so a tenant's data can be moved or sharded as a
/// unit. The public database of a container environment is the tenant whose owner is
/// ``publicOwner``; each user's private database is the tenant they own.
public struct Tenant: Sendable, Hashable, CustomStringConvertible {
    /// The owner key of a container environment's public database. Never a user record name:
    /// those are `_` followed by 32 hex digits.
    public static let publicOwner = "_public"

    /// The container identifier, such as `iCloud.com.example.App`.
    public var container: String
    /// The environment: development or production.
    public var environment: Environment
    /// The user record name of the database's owner, or ``publicOwner`` for the public database.
    public var owner: String

    /// Creates a tenant key.
    public init(container: String, environment: Environment, owner: String) {
        self.container = container
        self.environment = environment
        self.owner = owner
    }

    /// The public database of a container environment.
    public static func publicDatabase(container: String, environment: Environment) -> Tenant {
        Tenant(container: container, environment: environment, owner: publicOwner)
    }

    /// Whether this is a public database.
    public var isPublic: Bool { owner == Self.publicOwner }

    /// The tenant as `container/environment/owner`.
    public var description: String { "\(container)/\(environment.rawValue)/\(owner)" }
}
