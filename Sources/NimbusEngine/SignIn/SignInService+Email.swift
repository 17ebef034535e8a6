//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import NimbusModel
import NimbusStore

/// What asking for a code answers: always the same, whether the address has an account or not.
public struct CodeRequested: Sendable, Hashable {
    /// When the code, if one was sent, stops working (milliseconds since 1970).
    public var expiresAt: Int64
}

extension SignInService {
    /// Starts a sign-up with an email address and a password: a code goes to the address, and
    /// ``verify(email:code:newPassword:caller:context:)`` with it creates the account.
    ///
    /// An address with an account gets a message saying so instead; the answer is the same.
    public func signUp(email: String?, password: String?, name: String?, context: SignInContext) async throws(NimbusError) -> CodeRequested {
        let settings = try await settings(context.containerEnvironment)
        guard settings.passwordEnabled else { throw Self.turnedOff("sign-up with a password") }
        let email = try Self.validEmail(email)
        let password = try Self.checkPassword(password, settings: settings)
        let name = try validName(name)
        try checkClient(context)
        try checkMail(to: email, context: context)
        // Hashed either way: an address with an account costs the same time as one without.
        let passwordHash = try await hashPassword(password)
        let expiresAt = clock.millisecondsSince1970 + configuration.codeLifetime
        try await sendCodeUnlessTaken(
            SignInCode(
                container: context.container,
                email: email,
                purpose: .signUp,
                codeHash: "",
                expiresAt: expiresAt,
                name: name,
                passwordHash: passwordHash
            ),
            context: context
        )
        return CodeRequested(expiresAt: expiresAt)
    }

    /// Sends a one-time code that signs in to the address's account, creating one (named
    /// `name`, or after the address) if there is none.
    public func requestCode(email: String?, name: String?, context: SignInContext) async throws(NimbusError) -> CodeRequested {
        let settings = try await settings(context.containerEnvironment)
        guard settings.emailCodeEnabled else { throw Self.turnedOff("sign-in with an email code") }
        let email = try Self.validEmail(email)
        let name: String? = try name.map { name throws(NimbusError) -> String in try validName(name) }
        try checkClient(context)
        try checkMail(to: email, context: context)
        let expiresAt = clock.millisecondsSince1970 + configuration.codeLifetime
        do {
            try await sendCode(
                SignInCode(container: context.container, email: email, purpose: .signIn, codeHash: "", expiresAt: expiresAt, name: name),
                context: context
            )
        } catch {
            throw internalError(error)
        }
        return CodeRequested(expiresAt: expiresAt)
    }

    /// Sends a code that sets a new password, if the address has an account; answers the same
    /// either way.
    public func requestPasswordReset(email: String?, context: SignInContext) async throws(NimbusError) -> CodeRequested {
        let settings = try await settings(context.containerEnvironment)
        guard settings.passwordEnabled else { throw Self.turnedOff("sign-in with a password") }
        let email = try Self.validEmail(email)
        try checkClient(context)
        try checkMail(to: email, context: context)
        let expiresAt = clock.millisecondsSince1970 + configuration.codeLifetime
        do {
            if try await store.identity(provider: SignInIdentity.emailProvider, subject: email, inContainer: context.container) != nil {
                try await sendCode(
                    SignInCode(container: context.container, email: email, purpose: .resetPassword, codeHash: "", expiresAt: expiresAt),
                    context: context
                )
            }
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
        return CodeRequested(expiresAt: expiresAt)
    }

    /// Uses a mailed code: finishes a sign-up, signs in, sets a new password (`newPassword`,
    /// ending every other session), or adds the address to the signed-in caller's account.
    /// - Throws: `.authenticationFailed` for a wrong, expired or used code, the same for each.
    public func verify(email: String?, code: String?, newPassword: String?, caller: Caller, context: SignInContext) async throws(NimbusError)
        -> SignedIn
    {
        let email = try Self.validEmail(email)
        guard let code, !code.isEmpty else { throw .badRequest("code is required") }
        try checkClientAllowed(context)
        let failure = NimbusError(.authenticationFailed, "the code is wrong or has expired; ask for a new one")
        do {
            guard var pending = try await store.signInCode(email: email, inContainer: context.container),
                pending.expiresAt > clock.millisecondsSince1970, pending.failedAttempts < configuration.codeAttempts
            else {
                countClient(context)
                throw failure
            }
            guard Self.codeMatches(code, pending) else {
                pending.failedAttempts += 1
                if pending.failedAttempts >= configuration.codeAttempts {
                    try await store.deleteSignInCode(email: email, inContainer: context.container)
                } else {
                    try await store.saveSignInCode(pending)
                }
                countClient(context)
                throw failure
            }
            if pending.purpose == .resetPassword {
                // Checked before the code is spent, so a weak password can be corrected.
                _ = try Self.checkPassword(newPassword, settings: try await settings(context.containerEnvironment))
            }
            // Spent before it acts: a code works once, even if what it does fails.
            try await store.deleteSignInCode(email: email, inContainer: context.container)
            switch pending.purpose {
            case .signUp:
                return try await createEmailUser(email, name: pending.name ?? email, passwordHash: pending.passwordHash, context: context)
            case .signIn:
                if let identity = try await store.identity(provider: SignInIdentity.emailProvider, subject: email, inContainer: context.container) {
                    return try await signInExisting(identity.userRecordName, context: context)
                }
                let name = pending.name ?? String(email.prefix { $0 != "@" })
                return try await createEmailUser(email, name: name, passwordHash: nil, context: context)
            case .resetPassword:
                return try await resetPassword(email, to: newPassword, context: context)
            case .link:
                guard let user = pending.userRecordName, caller.kind == .user, caller.userRecordName == user else { throw failure }
                return try await linkEmail(email, passwordHash: pending.passwordHash, to: user, context: context)
            }
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// Signs in with an email address and a password.
    /// - Throws: `.authenticationFailed` "email or password is wrong", the same whether the
    ///   address has an account or not; `.requestRateLimited` after too many attempts.
    public func signIn(email: String?, password: String?, context: SignInContext) async throws(NimbusError) -> SignedIn {
        let settings = try await settings(context.containerEnvironment)
        guard settings.passwordEnabled else { throw Self.turnedOff("sign-in with a password") }
        let email = try Self.validEmail(email)
        guard let password, !password.isEmpty, password.utf8.count <= 1024 else { throw .badRequest("password is required") }
        try checkClientAllowed(context)
        let accountKey = "\(context.container)|\(email)"
        let now = clock.millisecondsSince1970
        if let wait = accountThrottle.wait(for: accountKey, at: now) { throw Self.throttled(wait) }
        let failure = NimbusError(.authenticationFailed, "email or password is wrong")
        do {
            let identity = try await store.identity(provider: SignInIdentity.emailProvider, subject: email, inContainer: context.container)
            guard let identity, let stored = identity.secretHash else {
                try await hasher.spendVerificationTime(password)
                accountThrottle.record(accountKey, at: now)
                countClient(context)
                throw failure
            }
            guard try await hasher.verify(password, against: stored) else {
                accountThrottle.record(accountKey, at: now)
                countClient(context)
                throw failure
            }
            accountThrottle.reset(accountKey)
            if hasher.needsRehash(stored) {
                _ = try await store.setSecretHash(
                    try await hashPassword(password),
                    provider: identity.provider,
                    subject: email,
                    inContainer: context.container
                )
            }
            return try await signInExisting(identity.userRecordName, context: context)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// Changes the signed-in caller's password (or sets one, on an email identity without);
    /// other sessions end.
    public func changePassword(current: String?, new: String?, caller: Caller, webAuthToken: String?, context: SignInContext)
        async throws(NimbusError)
    {
        let user = try Self.signedIn(caller)
        let settings = try await settings(context.containerEnvironment)
        let newPassword = try Self.checkPassword(new, settings: settings)
        do {
            guard
                let identity = try await store.identities(of: user, inContainer: context.container).first(where: {
                    $0.provider == SignInIdentity.emailProvider
                })
            else { throw NimbusError.badRequest("the account has no email address to keep a password with; add one first") }
            if let stored = identity.secretHash {
                guard let current, try await hasher.verify(current, against: stored) else {
                    throw NimbusError(.authenticationFailed, "the current password is wrong")
                }
            }
            _ = try await store.setSecretHash(
                try await hashPassword(newPassword),
                provider: identity.provider,
                subject: identity.subject,
                inContainer: context.container
            )
            try await endOtherSessions(of: user, keeping: webAuthToken, context: context)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// Starts adding an email address (and a password, if given) to the signed-in caller's
    /// account: a code goes to the address, and ``verify(email:code:newPassword:caller:context:)``
    /// by the same caller adds it.
    public func linkEmail(email: String?, password: String?, caller: Caller, context: SignInContext) async throws(NimbusError) -> CodeRequested {
        let user = try Self.signedIn(caller)
        let settings = try await settings(context.containerEnvironment)
        let email = try Self.validEmail(email)
        let passwordHash: String?
        if let password {
            passwordHash = try await hashPassword(try Self.checkPassword(password, settings: settings))
        } else {
            passwordHash = nil
        }
        try checkClient(context)
        try checkMail(to: email, context: context)
        let expiresAt = clock.millisecondsSince1970 + configuration.codeLifetime
        try await sendCodeUnlessTaken(
            SignInCode(
                container: context.container,
                email: email,
                purpose: .link,
                codeHash: "",
                expiresAt: expiresAt,
                passwordHash: passwordHash,
                userRecordName: user
            ),
            context: context
        )
        return CodeRequested(expiresAt: expiresAt)
    }

    // MARK: - Private

    private func hashPassword(_ password: String) async throws(NimbusError) -> String {
        do {
            return try await hasher.hash(password)
        } catch {
            throw internalError(error)
        }
    }

    private func hasAccount(_ email: String, context: SignInContext) async throws -> Bool {
        if try await store.identity(provider: SignInIdentity.emailProvider, subject: email, inContainer: context.container) != nil { return true }
        return try await store.user(matching: .emailAddress(email), inContainer: context.container) != nil
    }

    /// Mails `code` to its address, or, if the address has an account, a note saying so: the
    /// caller answers the same either way.
    private func sendCodeUnlessTaken(_ code: SignInCode, context: SignInContext) async throws(NimbusError) {
        do {
            if try await hasAccount(code.email, context: context) {
                post(SignInMail.accountExists(to: code.email, container: context.container), context: context)
            } else {
                try await sendCode(code, context: context)
            }
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// Stores `code` with a new code's hash and mails the code.
    private func sendCode(_ code: SignInCode, context: SignInContext) async throws {
        var code = code
        let digits = Self.makeCode()
        code.codeHash = Self.codeHash(digits, email: code.email, container: code.container)
        try await store.saveSignInCode(code)
        post(SignInMail.code(digits, to: code.email, purpose: code.purpose, container: context.container, link: nil), context: context)
    }

    private func createEmailUser(_ email: String, name: String, passwordHash: String?, context: SignInContext) async throws -> SignedIn {
        let user = UserIdentity(userRecordName: Credentials.makeUserRecordName(), name: name, emailAddress: email)
        let identity = SignInIdentity(
            container: context.container,
            provider: SignInIdentity.emailProvider,
            subject: email,
            userRecordName: user.userRecordName,
            secretHash: passwordHash,
            email: email,
            createdAt: clock.millisecondsSince1970
        )
        do {
            try await store.createUser(user, isAnonymous: false, signingInWith: identity)
        } catch let error as StoreError where error.kind == .alreadyExists {
            // Another sign-up or link took the address since the code was sent.
            throw NimbusError(.authenticationFailed, "the code is wrong or has expired; ask for a new one")
        }
        let token = try await startSession(for: user.userRecordName, context: context)
        return SignedIn(webAuthToken: token, userRecordName: user.userRecordName, anonymousCredential: nil, isNewUser: true)
    }

    private func resetPassword(_ email: String, to newPassword: String?, context: SignInContext) async throws -> SignedIn {
        let password = try Self.checkPassword(newPassword, settings: try await settings(context.containerEnvironment))
        guard let identity = try await store.identity(provider: SignInIdentity.emailProvider, subject: email, inContainer: context.container)
        else { throw NimbusError(.authenticationFailed, "the code is wrong or has expired; ask for a new one") }
        _ = try await store.setSecretHash(
            try await hashPassword(password),
            provider: identity.provider,
            subject: email,
            inContainer: context.container
        )
        // A reset means the old password may be known to someone else: every session ends.
        _ = try await store.endSessions(of: identity.userRecordName, inContainer: context.container, sessionID: nil)
        accounts.forgetCachedTokens(of: identity.userRecordName, container: context.container)
        return try await signInExisting(identity.userRecordName, context: context)
    }

    private func linkEmail(_ email: String, passwordHash: String?, to user: String, context: SignInContext) async throws -> SignedIn {
        do {
            try await store.addIdentity(
                SignInIdentity(
                    container: context.container,
                    provider: SignInIdentity.emailProvider,
                    subject: email,
                    userRecordName: user,
                    secretHash: passwordHash,
                    email: email,
                    createdAt: clock.millisecondsSince1970
                )
            )
            try await store.linkAddress(.emailAddress(email), to: user, inContainer: context.container)
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "the address is another account's")
        }
        let token = try await startSession(for: user, context: context)
        return SignedIn(webAuthToken: token, userRecordName: user, anonymousCredential: nil, isNewUser: false)
    }

    /// Six random digits.
    static func makeCode() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = String(UInt32.random(in: 0..<1_000_000, using: &generator))
        return String(repeating: "0", count: 6 - digits.count) + digits
    }

    /// A code's stored form, bound to its address and container.
    static func codeHash(_ code: String, email: String, container: String) -> String {
        Credentials.hash("\(container)|\(email)|\(code.filter { !$0.isWhitespace })")
    }

    static func codeMatches(_ code: String, _ pending: SignInCode) -> Bool {
        let given = Array(codeHash(code, email: pending.email, container: pending.container).utf8)
        return ConstantTime.equal(given, Array(pending.codeHash.utf8))
    }

    static func turnedOff(_ what: String) -> NimbusError {
        NimbusError(.permissionFailure, "\(what) is turned off for this container")
    }

    static func signedIn(_ caller: Caller) throws(NimbusError) -> String {
        guard caller.kind == .user, let user = caller.userRecordName else {
            throw NimbusError(.authenticationRequired, "this needs a signed-in user")
        }
        return user
    }
}
