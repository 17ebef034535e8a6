//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Where a ``Container`` keeps a signed-in user's credentials between launches.
///
/// The container saves the web auth token after every sign-in and every rotation, and clears it
/// at sign-out; at creation it signs in with what the store holds when it is given no token.
/// Apps on Apple platforms keep these in the Keychain (a store of their own); the SDK ships
/// ``FileTokenStore``.
public protocol TokenStore: Sendable {
    /// The credentials saved last, or `nil`.
    func load() -> StoredCredentials?
    /// Saves credentials, replacing what was saved.
    func save(_ credentials: StoredCredentials)
    /// Forgets the credentials.
    func clear()
}

/// What a ``TokenStore`` keeps.
public struct StoredCredentials: Sendable, Hashable, Codable {
    /// The current web auth token.
    public var webAuthToken: String
    /// The signed-in user.
    public var userRecordName: String?
    /// For an anonymous account: the credential that signs it in again once the token has ended.
    public var anonymousCredential: String?

    /// Creates credentials.
    public init(webAuthToken: String, userRecordName: String? = nil, anonymousCredential: String? = nil) {
        self.webAuthToken = webAuthToken
        self.userRecordName = userRecordName
        self.anonymousCredential = anonymousCredential
    }
}
