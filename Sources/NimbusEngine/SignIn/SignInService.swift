//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
public import Logging
public import NimbusModel
public import NimbusStore

/// People signing themselves up and in: with an email address and a password, with a code
/// mailed to them, anonymously with only a name, or with an ID token from an OpenID Connect
/// provider; and what they do with their sessions afterwards.
///
/// Every flow ends in a web auth token of a new session, minted by ``AccountService`` as
/// `nimbus user add` does. What a person may not learn is kept from them: sign-up, code
/// requests and password resets answer the same whether an address has an account or not,
/// and a failed sign-in says only that the address or password is wrong.
public final class SignInService: Sendable {
    /// Limits and lifetimes.
    public struct Configuration: Sendable {
        /// How long a token of a new session lives, in milliseconds (CloudKit's "keep me signed
        /// in": 2 weeks). Tokens rotate as they are used, within the same lifetime.
        public var tokenLifetime: Int64 = 14 * 24 * 60 * 60 * 1000
        /// How long a mailed code works, in milliseconds.
        public var codeLifetime: Int64 = 15 * 60 * 1000
        /// Wrong codes allowed before a code stops working.
        public var codeAttempts = 5
        /// Password sign-ins allowed per address within ``attemptWindow``.
        public var passwordAttemptsPerAccount = 10
        /// Sign-in and sign-up attempts allowed per client network address within ``attemptWindow``.
        public var attemptsPerClient = 100
        /// Mails (codes, links) allowed per recipient within ``attemptWindow``.
        public var mailsPerAddress = 5
        /// The window the limits count in, in milliseconds.
        public var attemptWindow: Int64 = 15 * 60 * 1000
        /// The longest name a person may give.
        public var maximumNameLength = 100

        /// Creates the default configuration.
        public init() {}
    }

    let accounts: AccountService
    let store: any AccountStore
    let hasher: PasswordHasher
    let verifier: IDTokenVerifier
    let outbox: MailOutbox
    let configuration: Configuration
    let clock: any NimbusClock
    let logger: Logger
    let accountThrottle: AttemptThrottle
    let clientThrottle: AttemptThrottle
    let mailThrottle: AttemptThrottle

    /// Creates the service.
    public init(
        accounts: AccountService,
        store: any AccountStore,
        hasher: PasswordHasher,
        verifier: IDTokenVerifier,
        outbox: MailOutbox,
        configuration: Configuration = .init(),
        clock: any NimbusClock,
        logger: Logger
    ) {
        self.accounts = accounts
        self.store = store
        self.hasher = hasher
        self.verifier = verifier
        self.outbox = outbox
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        accountThrottle = AttemptThrottle(limit: configuration.passwordAttemptsPerAccount, window: configuration.attemptWindow)
        clientThrottle = AttemptThrottle(limit: configuration.attemptsPerClient, window: configuration.attemptWindow)
        mailThrottle = AttemptThrottle(limit: configuration.mailsPerAddress, window: configuration.attemptWindow)
    }

    /// A container environment's sign-in settings (the defaults if none were saved).
    public func settings(_ environment: ContainerEnvironment) async throws(NimbusError) -> SignInSettings {
        do {
            return try await store.signInSettings(for: environment) ?? SignInSettings()
        } catch {
            throw internalError(error)
        }
    }

    /// The shortest passwords a container environment may accept.
    public static let passwordLengths = 6...128

    /// Saves a container environment's sign-in settings.
    /// - Throws: `.unknownItem` if the container environment does not exist; `.badRequest` for
    ///   a provider whose issuer, or a callback URL, is not HTTPS (plain HTTP only on
    ///   loopback), or a minimum password length outside ``passwordLengths``.
    public func saveSettings(_ settings: SignInSettings, for environment: ContainerEnvironment) async throws(NimbusError) {
        guard Self.passwordLengths.contains(settings.minimumPasswordLength) else {
            throw .badRequest("the shortest password must be \(Self.passwordLengths.lowerBound) to \(Self.passwordLengths.upperBound) characters")
        }
        for provider in settings.providers {
            guard OpenIDURLPolicy.isAllowed(provider.issuer) else {
                throw .badRequest("issuer \(provider.issuer) must be an https URL (plain http only on loopback)")
            }
            guard !provider.clientIDs.isEmpty, !provider.clientIDs.contains("") else {
                throw .badRequest("provider \(provider.name) needs at least one client ID")
            }
        }
        for url in settings.callbackURLs {
            guard let callback = CallbackURL(url), callback.isAllowed else {
                throw .badRequest("callback URL \(url) must be an https URL (plain http only on loopback)")
            }
        }
        do {
            guard try await store.containerEnvironment(container: environment.container, environment: environment.environment) != nil else {
                throw NimbusError(.unknownItem, "container \(environment.container) has no \(environment.environment.rawValue) environment")
            }
            try await store.saveSignInSettings(settings, for: environment)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// The time now on the service's clock, in milliseconds since 1970.
    public var now: Int64 { clock.millisecondsSince1970 }

    // MARK: - Helpers

    /// A new session for `user`: its first token.
    func startSession(for user: String, context: SignInContext) async throws(NimbusError) -> String {
        try await accounts.mintWebAuthToken(
            for: user,
            container: context.container,
            lifetime: configuration.tokenLifetime,
            device: context.device
        )
    }

    /// Queues a message of a container environment's sign-in.
    func post(_ message: MailMessage, context: SignInContext) {
        var message = message
        message.sender = context.containerEnvironment
        outbox.post(message)
    }

    /// Refuses a request from a client address that has made too many, and counts this one:
    /// for what creates something (an account, a mail), which a flood must not repeat.
    func checkClient(_ context: SignInContext) throws(NimbusError) {
        try checkClientAllowed(context)
        countClient(context)
    }

    /// Refuses a sign-in attempt from a client address that has failed too often, without
    /// counting it: only failures count, so many people signing in behind one address (an
    /// office, a carrier's NAT) are not turned away for succeeding.
    func checkClientAllowed(_ context: SignInContext) throws(NimbusError) {
        guard let address = context.clientAddress else { return }
        if let wait = clientThrottle.wait(for: address, at: clock.millisecondsSince1970) { throw Self.throttled(wait) }
    }

    /// Counts a request, or a failed sign-in attempt, against its client address.
    func countClient(_ context: SignInContext) {
        guard let address = context.clientAddress else { return }
        clientThrottle.record(address, at: clock.millisecondsSince1970)
    }

    /// Refuses to mail an address that was mailed too often; counts this mail.
    func checkMail(to email: String, context: SignInContext) throws(NimbusError) {
        let key = "\(context.container)|\(email)"
        let now = clock.millisecondsSince1970
        if let wait = mailThrottle.wait(for: key, at: now) { throw Self.throttled(wait) }
        mailThrottle.record(key, at: now)
    }

    static func throttled(_ milliseconds: Int64) -> NimbusError {
        let seconds = max(1, (milliseconds + 999) / 1000)
        return NimbusError(.requestRateLimited, "too many attempts; try again in \(seconds) seconds", retryAfter: .seconds(seconds))
    }

    /// A name as a person gave it: trimmed, one character or more, not too long.
    func validName(_ name: String?) throws(NimbusError) -> String {
        let trimmed = (name ?? "").trimmingWhitespace
        guard !trimmed.isEmpty else { throw .badRequest("name must have at least one character") }
        guard trimmed.count <= configuration.maximumNameLength else {
            throw .badRequest("name must have at most \(configuration.maximumNameLength) characters")
        }
        return trimmed
    }

    /// An email address in normal form, if it is one.
    static func validEmail(_ email: String?) throws(NimbusError) -> String {
        guard let email, !email.isEmpty else { throw .badRequest("email is required") }
        let address = LookupInfo.emailAddress(email)
        if let violation = address.syntaxViolation { throw .badRequest(violation) }
        return LookupInfo.normalizedEmail(email)
    }

    /// Refuses a password the policy does not accept.
    static func checkPassword(_ password: String?, settings: SignInSettings) throws(NimbusError) -> String {
        guard let password, !password.isEmpty else { throw .badRequest("password is required") }
        guard password.count >= settings.minimumPasswordLength else {
            throw .badRequest("password must have at least \(settings.minimumPasswordLength) characters")
        }
        // scrypt takes any length, but the request body should not be an attack on the CPU.
        guard password.utf8.count <= 1024 else { throw .badRequest("password must have at most 1024 bytes") }
        return password
    }

    func internalError(_ error: any Error) -> NimbusError {
        .fromStore(error, logger: logger)
    }
}

/// Where a sign-in request comes from.
public struct SignInContext: Sendable {
    /// The container signed in to.
    public var container: String
    /// Its environment.
    public var environment: Environment
    /// The client's network address, for throttling; `nil` when unknown.
    public var clientAddress: String?
    /// What the client says it is (its user agent), for the sessions list.
    public var device: String?

    /// Creates a context.
    public init(container: String, environment: Environment, clientAddress: String?, device: String?) {
        self.container = container
        self.environment = environment
        self.clientAddress = clientAddress
        self.device = device
    }

    /// The container environment.
    public var containerEnvironment: ContainerEnvironment { ContainerEnvironment(container: container, environment: environment) }
}

/// What a successful sign-in hands back.
public struct SignedIn: Sendable, Hashable {
    /// The token of the new session.
    public var webAuthToken: String
    /// The signed-in user.
    public var userRecordName: String
    /// For a new anonymous account: the credential the device keeps to sign in again, shown once.
    public var anonymousCredential: String?
    /// Whether this sign-in created the account.
    public var isNewUser: Bool
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
