//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusModel
public import NimbusStore
import Synchronization

/// The console's operators: adding them, their one-time set-up links, signing in and out, and
/// the audit log of what they change.
///
/// Secrets are random 256-bit values handed out once; the store keeps their SHA-256 only, and
/// passwords with the same memory-hard hash as users'.
public final class OperatorService: Sendable {
    /// How long a console session lasts, in milliseconds: a working day, then sign in again.
    public static let sessionLifetime: Int64 = 12 * 60 * 60 * 1000
    /// How long a set-up link may wait to be used, in milliseconds.
    public static let setupLinkLifetime: Int64 = 24 * 60 * 60 * 1000
    /// Passwords shorter than this are refused: operators hold every container's keys.
    public static let minimumPasswordLength = 12

    let store: any OperatorStore
    let hasher: PasswordHasher
    let clock: any NimbusClock
    let logger: Logger
    /// Failed sign-ins per address and per client: ten in fifteen minutes.
    private let failures = AttemptThrottle(limit: 10, window: 15 * 60 * 1000)
    /// The latest count of storage by container.
    private let storageCount = Mutex<(figures: [ContainerStorage], countedAt: Int64)?>(nil)

    /// Creates the service.
    public init(store: any OperatorStore, hasher: PasswordHasher, clock: any NimbusClock, logger: Logger) {
        self.store = store
        self.hasher = hasher
        self.clock = clock
        self.logger = logger
    }

    /// What a set-up link lets its holder do.
    public enum SetupLink: Sendable, Equatable {
        /// Create the first administrator, choosing the address.
        case firstAdministrator
        /// Choose the password of this operator.
        case setPassword(email: String)
    }

    // MARK: - Operators

    /// Adds an operator and returns the secret of their set-up link.
    /// - Throws: `.badRequest` for an address that is not one; `.conflict` when it is taken.
    public func add(email: String, role: OperatorRole) async throws(NimbusError) -> (OperatorAccount, link: String) {
        let email = try Self.checkedEmail(email)
        let account = OperatorAccount(
            id: Credentials.makeUserRecordName(),
            email: email,
            role: role,
            passwordHash: nil,
            createdAt: clock.millisecondsSince1970
        )
        do {
            try await store.addOperator(account)
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "an operator with the address \(email) exists; `nimbus operator link \(email)` makes a new set-up link")
        } catch {
            throw .fromStore(error, logger: logger)
        }
        return (account, try await newLink(for: account.id))
    }

    /// A new set-up link for an existing operator (a forgotten password): the old password
    /// stays until the link is used.
    /// - Throws: `.unknownItem` when there is no such operator.
    public func setupLink(forEmail email: String) async throws(NimbusError) -> String {
        guard let account = try await operatorAccount(email: email.lowercased()) else {
            throw NimbusError(.unknownItem, "no operator has the address \(email.prefix(200))")
        }
        return try await newLink(for: account.id)
    }

    /// On a server without operators, a link that creates the first administrator; `nil` once
    /// one exists.
    public func firstAdministratorLink() async throws(NimbusError) -> String? {
        guard try await operators().isEmpty else { return nil }
        return try await newLink(for: nil)
    }

    /// Every operator, oldest first.
    public func operators() async throws(NimbusError) -> [OperatorAccount] {
        do {
            return try await store.operatorAccounts()
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// Disables an operator (their sessions end) or enables them again.
    public func setDisabled(_ disabled: Bool, email: String, by actor: OperatorAccount?) async throws(NimbusError) {
        guard let account = try await operatorAccount(email: email.lowercased()) else {
            throw NimbusError(.unknownItem, "no operator has the address \(email.prefix(200))")
        }
        do {
            try await store.setOperatorDisabled(disabled, operator: account.id)
        } catch {
            throw .fromStore(error, logger: logger)
        }
        if let actor { try await audit(actor, disabled ? "operator.disable" : "operator.enable", container: nil, target: account.email) }
    }

    // MARK: - Set-up links

    /// What a set-up link is for, or `nil` when it is unknown, used or expired.
    public func setupLink(_ secret: String) async throws(NimbusError) -> SetupLink? {
        let found: String??
        do {
            found = try await store.operatorSetupLink(hash: Credentials.hash(secret), now: clock.millisecondsSince1970)
        } catch {
            throw .fromStore(error, logger: logger)
        }
        guard let found else { return nil }
        guard let id = found else { return .firstAdministrator }
        guard let account = try await operatorAccount(id: id) else { return nil }
        return .setPassword(email: account.email)
    }

    /// Uses a set-up link: sets the password (creating the first administrator with `email`
    /// for a first-administrator link) and starts a session.
    /// - Returns: the operator and the new session's secret.
    /// - Throws: `.badRequest` for a short password or a missing address; `.unknownItem` for a
    ///   link that is unknown, used or expired (nothing is changed).
    public func completeSetup(link secret: String, email: String?, password: String) async throws(NimbusError) -> (OperatorAccount, session: String) {
        try Self.checkPassword(password)
        guard let kind = try await setupLink(secret) else { throw Self.linkGone }
        var firstEmail: String?
        if kind == .firstAdministrator { firstEmail = try Self.checkedEmail(email ?? "") }
        let hash: String
        do {
            hash = try await hasher.hash(password)
        } catch {
            throw .fromStore(error, logger: logger)
        }
        let taken: String??
        do {
            taken = try await store.takeOperatorSetupLink(hash: Credentials.hash(secret), now: clock.millisecondsSince1970)
        } catch {
            throw .fromStore(error, logger: logger)
        }
        guard let taken else { throw Self.linkGone }
        var account: OperatorAccount
        do {
            if let id = taken {
                guard let existing = try await store.operatorAccount(id: id) else { throw Self.linkGone }
                account = existing
                try await store.setOperatorPassword(hash, operator: id)
                try await store.deleteOperatorSessions(operator: id)
            } else {
                account = OperatorAccount(
                    id: Credentials.makeUserRecordName(),
                    email: firstEmail ?? "",
                    role: .admin,
                    passwordHash: hash,
                    createdAt: clock.millisecondsSince1970
                )
                try await store.addOperator(account)
            }
        } catch let error as NimbusError {
            throw error
        } catch {
            throw .fromStore(error, logger: logger)
        }
        account.passwordHash = hash
        try await audit(account, "operator.set-password", container: nil, target: account.email)
        return (account, try await startSession(for: account))
    }

    // MARK: - Sessions

    /// Signs an operator in.
    /// - Returns: the operator and the session's secret.
    /// - Throws: the same `.authenticationFailed` for an unknown address, a wrong password or
    ///   a disabled operator, after the same work, so the answer tells nothing of who exists;
    ///   `.requestRateLimited` after too many failures from the address or the client.
    public func signIn(email: String, password: String, clientAddress: String?) async throws(NimbusError)
        -> (OperatorAccount, session: String)
    {
        let email = email.lowercased().trimmingSpaces
        let now = clock.millisecondsSince1970
        let keys = ["email|" + email] + (clientAddress.map { ["client|" + $0] } ?? [])
        for key in keys {
            if let wait = failures.wait(for: key, at: now) { throw SignInService.throttled(wait) }
        }
        guard password.utf8.count <= 1024 else { throw Self.signInRefused }
        let account = try await operatorAccount(email: email)
        var verified = false
        do {
            if let account, let stored = account.passwordHash {
                verified = try await hasher.verify(password, against: stored)
            } else {
                try await hasher.spendVerificationTime(password)
            }
        } catch {
            throw .fromStore(error, logger: logger)
        }
        guard verified, let account, !account.isDisabled else {
            for key in keys { failures.record(key, at: now) }
            throw Self.signInRefused
        }
        failures.reset("email|" + email)
        return (account, try await startSession(for: account))
    }

    /// The operator a session secret belongs to, if it is live and they are not disabled.
    public func operatorOfSession(_ secret: String) async throws(NimbusError) -> OperatorAccount? {
        do {
            return try await store.operatorOfSession(hash: Credentials.hash(secret), now: clock.millisecondsSince1970)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// Ends a session.
    public func signOut(_ secret: String) async throws(NimbusError) {
        do {
            try await store.deleteOperatorSession(hash: Credentials.hash(secret))
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    // MARK: - Audit

    /// Records a change an operator made.
    public func audit(_ actor: OperatorAccount, _ action: String, container: String?, target: String, subjectUser: String? = nil)
        async throws(NimbusError)
    {
        let entry = ConsoleAuditEntry(
            at: clock.millisecondsSince1970,
            operatorEmail: actor.email,
            action: action,
            container: container,
            target: target,
            subjectUser: subjectUser
        )
        do {
            try await store.appendConsoleAudit(entry)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// The newest entries of the audit log, newest first.
    public func auditLog(limit: Int = 200) async throws(NimbusError) -> [ConsoleAuditEntry] {
        do {
            return try await store.consoleAudit(limit: min(max(limit, 1), 1000))
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// A user's footprint: counts of their zones, records, shares, subscriptions and sessions.
    public func footprint(of user: String, in environment: ContainerEnvironment) async throws(NimbusError) -> UserFootprint {
        do {
            return try await store.footprint(of: user, in: environment, now: clock.millisecondsSince1970)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// How long a count of storage by container is shown before it is counted again: counting
    /// reads every record.
    public static let storageCountLifetime: Int64 = 5 * 60 * 1000

    /// How much each container environment holds, as quotas count it, and when it was counted
    /// (at most ``storageCountLifetime`` ago).
    public func storageByContainer() async throws(NimbusError) -> (figures: [ContainerStorage], countedAt: Int64) {
        let now = clock.millisecondsSince1970
        if let counted = storageCount.withLock({ $0 }), now - counted.countedAt < Self.storageCountLifetime { return counted }
        do {
            let counted = (figures: try await store.storageByContainer(), countedAt: now)
            storageCount.withLock { $0 = counted }
            return counted
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// Every container environment.
    public func containerEnvironments() async throws(NimbusError) -> [ContainerEnvironment] {
        do {
            return try await store.containerEnvironments()
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    // MARK: - Helpers

    private func newLink(for operatorID: String?) async throws(NimbusError) -> String {
        let secret = Credentials.makeAPIToken()
        do {
            try await store.addOperatorSetupLink(
                hash: Credentials.hash(secret),
                operatorID: operatorID,
                expiresAt: clock.millisecondsSince1970 + Self.setupLinkLifetime
            )
        } catch {
            throw .fromStore(error, logger: logger)
        }
        return secret
    }

    private func startSession(for account: OperatorAccount) async throws(NimbusError) -> String {
        let secret = Credentials.makeAPIToken()
        let now = clock.millisecondsSince1970
        do {
            try await store.addOperatorSession(
                hash: Credentials.hash(secret),
                operatorID: account.id,
                expiresAt: now + Self.sessionLifetime,
                now: now
            )
        } catch {
            throw .fromStore(error, logger: logger)
        }
        return secret
    }

    private func operatorAccount(email: String) async throws(NimbusError) -> OperatorAccount? {
        do {
            return try await store.operatorAccount(email: email)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    private func operatorAccount(id: String) async throws(NimbusError) -> OperatorAccount? {
        do {
            return try await store.operatorAccount(id: id)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    private static func checkedEmail(_ email: String) throws(NimbusError) -> String {
        let email = email.lowercased().trimmingSpaces
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !email.contains(where: { $0 == " " || $0.isNewline })
        else {
            throw .badRequest("'\(email.prefix(254))' is not an email address")
        }
        return email
    }

    private static func checkPassword(_ password: String) throws(NimbusError) {
        guard password.count >= minimumPasswordLength else {
            throw .badRequest("the password must have at least \(minimumPasswordLength) characters")
        }
        guard password.utf8.count <= 1024 else { throw .badRequest("the password must have at most 1024 bytes") }
    }

    private static let signInRefused = NimbusError(.authenticationFailed, "wrong email address or password")
    private static let linkGone = NimbusError(.unknownItem, "this set-up link was used or has expired; ask for a new one")
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
