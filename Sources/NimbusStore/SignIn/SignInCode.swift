//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A one-time code mailed to an address, pending its use; only its hash is kept.
///
/// One address has at most one pending code per container: asking again replaces it.
public struct SignInCode: Sendable, Hashable {
    /// What using the code does.
    public enum Purpose: String, Sendable, Hashable, CaseIterable {
        /// Creates the account a password sign-up described (its name and password hash).
        case signUp
        /// Signs in the account with this address, or creates one.
        case signIn
        /// Sets a new password on the account with this address.
        case resetPassword
        /// Adds this address (and a password, if given) to a signed-in account.
        case link
    }

    /// The container the code signs in to.
    public var container: String
    /// The address, in normal form.
    public var email: String
    /// What using the code does.
    public var purpose: Purpose
    /// The code's hash.
    public var codeHash: String
    /// When the code stops working, in milliseconds since 1970.
    public var expiresAt: Int64
    /// Wrong codes tried so far.
    public var failedAttempts: Int
    /// The name a sign-up gave.
    public var name: String?
    /// The password hash a sign-up or link gave.
    public var passwordHash: String?
    /// The account a link adds the address to.
    public var userRecordName: String?

    /// Creates a pending code.
    public init(
        container: String,
        email: String,
        purpose: Purpose,
        codeHash: String,
        expiresAt: Int64,
        failedAttempts: Int = 0,
        name: String? = nil,
        passwordHash: String? = nil,
        userRecordName: String? = nil
    ) {
        self.container = container
        self.email = email
        self.purpose = purpose
        self.codeHash = codeHash
        self.expiresAt = expiresAt
        self.failedAttempts = failedAttempts
        self.name = name
        self.passwordHash = passwordHash
        self.userRecordName = userRecordName
    }
}
