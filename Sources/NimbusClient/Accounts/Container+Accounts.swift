//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Synchronization

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// What signing in handed back.
public struct SignInResult: Sendable, Hashable {
    /// The signed-in user.
    public var userRecordName: String
    /// Whether the sign-in created the account.
    public var isNewUser: Bool
    /// For a new anonymous account: the credential the app keeps to sign in again (also saved in
    /// the container's ``TokenStore``).
    public var anonymousCredential: String?
}

/// One signed-in device of the user.
public struct SignedInSession: Sendable, Hashable {
    /// Its ID, for ``Container/endSession(_:)``.
    public var id: String
    /// What the client said it is when it signed in.
    public var device: String?
    /// About when it was last used.
    public var lastActive: Date
    /// When it ends unless used.
    public var expires: Date
    /// Whether it is this container's session.
    public var isCurrent: Bool
}

/// Whether a container has a signed-in user.
public enum AccountStatus: Sendable, Hashable {
    /// Signed in as this user.
    case signedIn(userRecordName: String)
    /// No user: no token, or the server no longer accepts it.
    case signedOut
}

extension Container {
    // MARK: - Signing in

    /// Starts a sign-up with an email address and a password: the server mails a code, which
    /// ``verify(email:code:newPassword:)`` then takes. Answers the same whether the address has an
    /// account or not.
    /// - Returns: when the code stops working.
    @discardableResult
    public func signUp(email: String, password: String, name: String) async throws -> Date {
        try codeSent(await account("signup", AuthRequest(email: email, password: password, name: name)))
    }

    /// Creates an anonymous account with only a name and signs it in; the credential that signs it
    /// in again is in the result (and saved in the token store).
    public func signUpAnonymously(name: String) async throws -> SignInResult {
        try signedIn(await account("signup", AuthRequest(name: name)))
    }

    /// Uses a mailed code: finishes a sign-up, signs in with a code, or sets `newPassword` after
    /// ``requestPasswordReset(email:)``.
    public func verify(email: String, code: String, newPassword: String? = nil) async throws -> SignInResult {
        try signedIn(await account("verify", AuthRequest(email: email, password: newPassword, code: code)))
    }

    /// Signs in with an email address and a password.
    public func signIn(email: String, password: String) async throws -> SignInResult {
        try signedIn(await account("signin", AuthRequest(email: email, password: password)))
    }

    /// Signs an anonymous account in again with its credential.
    public func signIn(anonymousCredential: String) async throws -> SignInResult {
        try signedIn(await account("signin", AuthRequest(anonymousCredential: anonymousCredential)), credential: anonymousCredential)
    }

    /// Exchanges an ID token from a provider the container trusts (Sign in with Apple through
    /// AuthenticationServices, Google) for a session. `nonce` is the raw nonce the app made for
    /// this sign-in (for Sign in with Apple, the request carried its SHA-256).
    public func signIn(provider: String, idToken: String, nonce: String) async throws -> SignInResult {
        try signedIn(await account("token", AuthRequest(provider: provider, idToken: idToken, nonce: nonce)))
    }

    /// Mails a one-time code that signs in to the address's account, or creates one.
    @discardableResult
    public func requestCode(email: String, name: String? = nil) async throws -> Date {
        try codeSent(await account("code", AuthRequest(email: email, name: name)))
    }

    /// Mails a code that sets a new password, if the address has an account.
    @discardableResult
    public func requestPasswordReset(email: String) async throws -> Date {
        try codeSent(await account("reset", AuthRequest(email: email)))
    }

    // MARK: - The signed-in account

    /// Whether the container's token signs someone in, asked of the server (`users/current`).
    public func accountStatus() async throws -> AccountStatus {
        guard webAuthToken != nil else { return .signedOut }
        do {
            let json = try await perform("users/current", in: .public, body: nil, idempotent: true)
            let name = try json.object(at: "the answer").required("userRecordName", at: "").string(at: "userRecordName")
            return .signedIn(userRecordName: name)
        } catch let error as NimbusError where error.code == .authenticationFailed || error.code == .authenticationRequired {
            return .signedOut
        }
    }

    /// Changes the signed-in user's password (`current` is required when one is set); their other
    /// sessions end.
    public func changePassword(current: String?, new: String) async throws {
        _ = try await account("password", AuthRequest(password: new, currentPassword: current))
    }

    /// The signed-in user's devices.
    public func sessions() async throws -> [SignedInSession] {
        guard case .sessions(let sessions) = try await account("sessions", AuthRequest()) else {
            throw NimbusError(.internalError, "the server's answer to sessions is not a sessions list")
        }
        return sessions.map {
            SignedInSession(
                id: $0.sessionID,
                device: $0.device,
                lastActive: Date(timeIntervalSince1970: Double($0.lastActiveAt) / 1000),
                expires: Date(timeIntervalSince1970: Double($0.expiresAt) / 1000),
                isCurrent: $0.isCurrent
            )
        }
    }

    /// Ends one of the signed-in user's sessions (another device).
    public func endSession(_ id: String) async throws {
        _ = try await account("sessions", AuthRequest(end: id))
    }

    /// Signs out: ends this session on the server and forgets the token.
    public func signOut() async throws {
        _ = try await account("signout", AuthRequest())
        forgetSignIn()
    }

    /// Signs out everywhere: ends every session of the user and forgets the token.
    public func signOutEverywhere() async throws {
        _ = try await account("sessions", AuthRequest(all: true))
        forgetSignIn()
    }

    /// Deletes the signed-in user's account and everything that is theirs alone: they leave the
    /// shares they accepted, the shares they own end for their participants, and their data goes.
    /// The token is forgotten.
    public func deleteAccount() async throws {
        _ = try await account("delete", AuthRequest(confirm: true))
        forgetSignIn()
    }

    // MARK: - Private

    /// `/auth/1/{container}/{environment}/{action}`, sent once: sign-ins are not safe to repeat
    /// blindly (each makes a session), so only a `retryAfter` from the server sends one again.
    private func account(_ action: String, _ request: AuthRequest) async throws -> AuthResponse {
        guard case .apiToken = authentication.withLock({ $0 }) else {
            throw NimbusError(.badRequest, "signing in needs a container created with an API token")
        }
        let path = "/auth/1/\(Self.escaped(identifier))/\(environment.rawValue)/\(action)"
        let json = try await perform(path: path, body: request.jsonBody, idempotent: false)
        return try serverAnswer { () throws(NimbusError) in try AuthResponse(json: json) }
    }

    private func signedIn(_ answer: AuthResponse, credential: String? = nil) throws -> SignInResult {
        guard case .signedIn(let token, let user, let isNewUser, let newCredential) = answer else {
            throw NimbusError(.internalError, "the server's answer does not sign in")
        }
        authentication.withLock { authentication in
            if case .apiToken(let apiToken, _) = authentication { authentication = .apiToken(apiToken, webAuthToken: token) }
        }
        let kept = newCredential ?? credential ?? tokenStore?.load().flatMap { $0.userRecordName == user ? $0.anonymousCredential : nil }
        tokenStore?.save(StoredCredentials(webAuthToken: token, userRecordName: user, anonymousCredential: kept))
        return SignInResult(userRecordName: user, isNewUser: isNewUser, anonymousCredential: newCredential)
    }

    private func codeSent(_ answer: AuthResponse) throws -> Date {
        guard case .codeSent(let expiresAt) = answer else { throw NimbusError(.internalError, "the server's answer is not a code sent") }
        return Date(timeIntervalSince1970: Double(expiresAt) / 1000)
    }

    private func forgetSignIn() {
        authentication.withLock { authentication in
            if case .apiToken(let apiToken, _) = authentication { authentication = .apiToken(apiToken, webAuthToken: nil) }
        }
        tokenStore?.clear()
    }
}
