//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension SignInService {
    /// Creates an anonymous account with only a name (as Tact asks) and signs it in.
    ///
    /// The answer carries a credential, shown once, that the device keeps: with it
    /// ``signIn(anonymousCredential:context:)`` starts a new session when the token has ended.
    /// Adding an email address or a provider later lets the account outlive the device.
    public func signUpAnonymously(name: String?, context: SignInContext) async throws(NimbusError) -> SignedIn {
        let settings = try await settings(context.containerEnvironment)
        guard settings.anonymousEnabled else { throw Self.turnedOff("anonymous sign-up") }
        let name = try validName(name)
        try checkClient(context)
        let credentialID = Hex.string(Credentials.randomBytes(16))
        let secret = Hex.string(Credentials.randomBytes(32))
        let user = UserIdentity(userRecordName: Credentials.makeUserRecordName(), name: name)
        // The secret has 256 random bits: a plain SHA-256 keeps it as safe as a token.
        let identity = SignInIdentity(
            container: context.container,
            provider: SignInIdentity.anonymousProvider,
            subject: credentialID,
            userRecordName: user.userRecordName,
            secretHash: Credentials.hash(secret),
            createdAt: clock.millisecondsSince1970
        )
        do {
            try await store.createUser(user, isAnonymous: true, signingInWith: identity)
        } catch {
            throw internalError(error)
        }
        let token = try await startSession(for: user.userRecordName, context: context)
        return SignedIn(webAuthToken: token, userRecordName: user.userRecordName, anonymousCredential: "\(credentialID).\(secret)", isNewUser: true)
    }

    /// Signs in with the credential an anonymous sign-up handed the device.
    /// - Throws: `.authenticationFailed` for a credential that is not valid.
    public func signIn(anonymousCredential: String?, context: SignInContext) async throws(NimbusError) -> SignedIn {
        let failure = NimbusError(.authenticationFailed, "anonymousCredential is not valid")
        let parts = (anonymousCredential ?? "").split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count == 32, parts[1].utf8.count == 64 else { throw failure }
        try checkClientAllowed(context)
        do {
            guard
                let identity = try await store.identity(
                    provider: SignInIdentity.anonymousProvider,
                    subject: String(parts[0]),
                    inContainer: context.container
                ),
                let stored = identity.secretHash,
                ConstantTime.equal(Array(Credentials.hash(String(parts[1])).utf8), Array(stored.utf8))
            else {
                countClient(context)
                throw failure
            }
            return try await signInExisting(identity.userRecordName, context: context)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// A new session for an existing user, unless an operator disabled them.
    func signInExisting(_ user: String, context: SignInContext) async throws(NimbusError) -> SignedIn {
        let account: UserAccount?
        do {
            account = try await store.account(of: user, inContainer: context.container)
        } catch {
            throw internalError(error)
        }
        guard let account else { throw NimbusError(.authenticationFailed, "the account no longer exists") }
        guard !account.isDisabled else { throw NimbusError(.permissionFailure, "this account is disabled; ask the app's operator") }
        let token = try await startSession(for: user, context: context)
        return SignedIn(webAuthToken: token, userRecordName: user, anonymousCredential: nil, isNewUser: false)
    }
}
