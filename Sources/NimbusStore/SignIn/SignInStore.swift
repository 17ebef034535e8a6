//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Keeps what signing in needs: settings, the identities users sign in with, pending codes,
/// used nonces, and the sessions their tokens make.
public protocol SignInStore: Sendable {
    /// Returns a container environment's sign-in settings, or `nil` if none were saved.
    func signInSettings(for environment: ContainerEnvironment) async throws -> SignInSettings?

    /// Saves a container environment's sign-in settings.
    func saveSignInSettings(_ settings: SignInSettings, for environment: ContainerEnvironment) async throws

    /// Creates a user together with the identity they sign in with, in one transaction; they are
    /// not discoverable until they opt in.
    /// - Throws: ``StoreError`` `.alreadyExists` if the identity is another user's already, or
    ///   the user's email address is another user's.
    func createUser(_ user: UserIdentity, isAnonymous: Bool, signingInWith identity: SignInIdentity) async throws

    /// Returns a user with their account's state, or `nil` if there is none.
    func account(of userRecordName: String, inContainer container: String) async throws -> UserAccount?

    /// Returns a container's users (developers excluded) in the order they were created, those
    /// whose name or email address contains `search` (case-insensitively) if it is given.
    func accounts(inContainer container: String, search: String?, limit: Int) async throws -> [UserAccount]

    /// Disables or enables a user; disabling ends their sessions in the same transaction.
    /// Returns whether the user exists.
    func setDisabled(_ disabled: Bool, user userRecordName: String, inContainer container: String) async throws -> Bool

    /// Lets others find a user by their addresses, or stops it. Returns whether the user exists.
    func setDiscoverable(_ discoverable: Bool, user userRecordName: String, inContainer container: String) async throws -> Bool

    /// Changes the name a user goes by. Returns whether the user exists.
    func rename(user userRecordName: String, to name: String, inContainer container: String) async throws -> Bool

    /// Removes a user and what is theirs alone, in every environment, in one transaction: their
    /// records (the default zone's, and any left in deleted zones), their default zone,
    /// subscriptions, inbox, push tokens, requests to join shares, addresses, identities,
    /// codes and sessions, and the user. Returns whether the user existed.
    ///
    /// Custom zones are deleted first, through the engine (their shares end and their
    /// participants are told, as when an owner deletes a zone); what that recorded for the
    /// notification dispatcher stays until it is delivered.
    func deleteUser(_ userRecordName: String, inContainer container: String) async throws -> Bool

    /// Returns the identity a provider's subject signs in with, if any.
    func identity(provider: String, subject: String, inContainer container: String) async throws -> SignInIdentity?

    /// Returns every identity a user signs in with.
    func identities(of userRecordName: String, inContainer container: String) async throws -> [SignInIdentity]

    /// Links another identity to an existing user; an anonymous account that gains one is
    /// anonymous no more.
    /// - Throws: ``StoreError`` `.alreadyExists` if the identity is a user's already.
    func addIdentity(_ identity: SignInIdentity) async throws

    /// Unlinks an identity from its user. Returns whether it existed.
    func deleteIdentity(provider: String, subject: String, inContainer container: String) async throws -> Bool

    /// Replaces an identity's secret hash (a new password). Returns whether it exists.
    func setSecretHash(_ secretHash: String, provider: String, subject: String, inContainer container: String) async throws -> Bool

    /// Stores a pending code, replacing the address's earlier one.
    func saveSignInCode(_ code: SignInCode) async throws

    /// Returns the address's pending code, if any.
    func signInCode(email: String, inContainer container: String) async throws -> SignInCode?

    /// Removes the address's pending code.
    func deleteSignInCode(email: String, inContainer container: String) async throws

    /// Records an ID token's nonce as used until `expiresAt`; returns `false` if it was used
    /// already (a replay). Nonces past their time are forgotten.
    func claimNonce(_ nonceHash: String, expiresAt: Int64) async throws -> Bool

    /// Returns a user's sessions that have not ended: the newest token of each, the oldest
    /// session first.
    func sessions(of userRecordName: String, inContainer container: String) async throws -> [WebAuthTokenRecord]

    /// Ends one of a user's sessions (every token of it), or all of them when `sessionID` is
    /// `nil`. Returns how many sessions ended.
    func endSessions(of userRecordName: String, inContainer container: String, sessionID: String?) async throws -> Int
}
