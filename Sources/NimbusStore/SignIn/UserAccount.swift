//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// A user with what their account's state adds to their identity.
public struct UserAccount: Sendable, Hashable {
    /// Who they are.
    public var identity: UserIdentity
    /// Whether they signed up with only a name and have no other way to sign in yet.
    public var isAnonymous: Bool
    /// Whether an operator disabled them: they cannot sign in.
    public var isDisabled: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Whether others find them by their email address or phone number (they opted in, or an
    /// operator added them with an address for that).
    public var isDiscoverable: Bool

    /// Creates an account.
    public init(identity: UserIdentity, isAnonymous: Bool, isDisabled: Bool, createdAt: Int64, isDiscoverable: Bool = false) {
        self.identity = identity
        self.isAnonymous = isAnonymous
        self.isDisabled = isDisabled
        self.createdAt = createdAt
        self.isDiscoverable = isDiscoverable
    }
}
