//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Who is making a request, as authentication established it.
///
/// The engine decides what a caller may do from this alone; it never sees how the caller
/// authenticated beyond ``Kind``.
public struct Caller: Sendable, Hashable {
    /// How the caller authenticated.
    public enum Kind: Sendable, Hashable {
        /// An API token with no signed-in user: may read the public database.
        case anonymous
        /// A signed-in user (API token plus web auth token).
        case user
        /// A server-to-server key, acting as the user who registered it, on the public database only.
        case serverKey
    }

    public var container: String
    public var environment: Environment
    public var kind: Kind
    /// The acting user; `nil` for anonymous callers.
    public var userRecordName: String?

    /// Creates a caller.
    public init(container: String, environment: Environment, kind: Kind, userRecordName: String?) {
        self.container = container
        self.environment = environment
        self.kind = kind
        self.userRecordName = userRecordName
    }
}

/// A caller addressing one of the container's databases.
public struct DatabaseAccess: Sendable, Hashable {
    public var caller: Caller
    public var scope: DatabaseScope

    /// Creates a database access.
    public init(caller: Caller, scope: DatabaseScope) {
        self.caller = caller
        self.scope = scope
    }
}
