//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

extension SignInService {
    /// Exchanges an ID token the app got from a provider (Sign in with Apple through
    /// AuthenticationServices, Google on Android, a company's issuer) for a session.
    ///
    /// The person is found by the provider's subject, never by email: a new subject makes a new
    /// account, which takes the email address only if the provider says it is verified and no
    /// other account has it. Each nonce works once.
    /// - Throws: `.badRequest` for an unknown provider or a missing token or nonce;
    ///   `.authenticationFailed` for a token that does not verify or a nonce used before.
    public func exchange(provider name: String?, idToken: String?, nonce: String?, context: SignInContext) async throws(NimbusError) -> SignedIn {
        let (provider, identity) = try await verifiedIdentity(provider: name, idToken: idToken, nonce: nonce, context: context)
        return try await signIn(identity, of: provider, context: context)
    }

    /// Signs in the user a provider's subject is, or creates them.
    func signIn(_ identity: IDTokenVerifier.Identity, of provider: SignInProvider, context: SignInContext) async throws(NimbusError) -> SignedIn {
        do {
            if let known = try await store.identity(provider: provider.issuer, subject: identity.subject, inContainer: context.container) {
                return try await signInExisting(known.userRecordName, context: context)
            }
            var email = identity.verifiedEmail
            if let address = email, try await store.user(matching: .emailAddress(address), inContainer: context.container) != nil {
                // The address is someone's already: the new account does not take it (and is not
                // linked to that account: only the account's owner can link it, signed in).
                email = nil
            }
            let user = UserIdentity(userRecordName: Credentials.makeUserRecordName(), name: identity.name ?? "New user", emailAddress: email)
            try await store.createUser(
                user,
                isAnonymous: false,
                signingInWith: SignInIdentity(
                    container: context.container,
                    provider: provider.issuer,
                    subject: identity.subject,
                    userRecordName: user.userRecordName,
                    email: identity.verifiedEmail,
                    createdAt: clock.millisecondsSince1970
                )
            )
            let token = try await startSession(for: user.userRecordName, context: context)
            return SignedIn(webAuthToken: token, userRecordName: user.userRecordName, anonymousCredential: nil, isNewUser: true)
        } catch let error as NimbusError {
            throw error
        } catch let error as StoreError where error.kind == .alreadyExists {
            // The same first sign-in, twice at once: the other one made the account.
            throw NimbusError(.serviceUnavailable, "signing in at the same time elsewhere; try again", retryAfter: .seconds(1))
        } catch {
            throw internalError(error)
        }
    }

    /// Links a provider's account (by a fresh ID token) to the signed-in caller, so an anonymous
    /// account survives a lost device and a person can sign in either way.
    public func linkProvider(provider name: String?, idToken: String?, nonce: String?, caller: Caller, context: SignInContext)
        async throws(NimbusError)
    {
        let user = try Self.signedIn(caller)
        let (provider, identity) = try await verifiedIdentity(provider: name, idToken: idToken, nonce: nonce, context: context)
        do {
            try await store.addIdentity(
                SignInIdentity(
                    container: context.container,
                    provider: provider.issuer,
                    subject: identity.subject,
                    userRecordName: user,
                    email: identity.verifiedEmail,
                    createdAt: clock.millisecondsSince1970
                )
            )
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "this \(provider.name) account signs in to another user")
        } catch {
            throw internalError(error)
        }
    }

    func verifiedIdentity(provider name: String?, idToken: String?, nonce: String?, context: SignInContext) async throws(NimbusError)
        -> (SignInProvider, IDTokenVerifier.Identity)
    {
        guard let name, !name.isEmpty else { throw .badRequest("provider is required") }
        guard let idToken, !idToken.isEmpty, idToken.utf8.count <= 16 * 1024 else { throw .badRequest("idToken is required") }
        guard let nonce, !nonce.isEmpty, nonce.utf8.count <= 512 else {
            throw .badRequest("nonce is required: the one the app passed to the provider for this sign-in")
        }
        let settings = try await settings(context.containerEnvironment)
        guard let provider = settings.provider(named: name) else {
            throw .badRequest("provider \(name) is not configured for this container environment")
        }
        try checkClientAllowed(context)
        let identity: IDTokenVerifier.Identity
        do throws(NimbusError) {
            identity = try await verifier.verify(idToken, provider: provider, nonce: nonce, match: provider.kind == .apple ? .exactOrSHA256 : .exact)
        } catch {
            if error.code == .authenticationFailed { countClient(context) }
            throw error
        }
        do {
            let claimed = try await store.claimNonce(Credentials.hash("\(provider.issuer)|\(nonce)"), expiresAt: identity.expiresAt + 60_000)
            guard claimed else {
                countClient(context)
                throw IDTokenVerifier.rejected("the nonce was used before")
            }
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
        return (provider, identity)
    }
}
