//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A person who runs the server and signs in to its console: separate from any container's
/// users, who never see the console.
public struct OperatorAccount: Sendable, Hashable {
    /// The operator's stable identifier.
    public var id: String
    /// Their address, lowercased: what they sign in with.
    public var email: String
    /// What they may do in the console.
    public var role: OperatorRole
    /// Their password's hash; `nil` until they follow their set-up link.
    public var passwordHash: String?
    /// A disabled operator cannot sign in and their sessions end.
    public var isDisabled: Bool
    /// When they were added, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates an operator.
    public init(id: String, email: String, role: OperatorRole, passwordHash: String?, isDisabled: Bool = false, createdAt: Int64) {
        self.id = id
        self.email = email
        self.role = role
        self.passwordHash = passwordHash
        self.isDisabled = isDisabled
        self.createdAt = createdAt
    }
}

/// What an operator may do in the console.
public enum OperatorRole: String, Sendable, Hashable, CaseIterable {
    /// Everything: changes as well as reads.
    case admin
    /// Reads only; every change is refused.
    case readOnly = "read-only"
}
