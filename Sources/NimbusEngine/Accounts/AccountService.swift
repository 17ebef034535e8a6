//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusModel
public import NimbusStore
import Synchronization

/// Containers, users and credentials: creating them, and turning a request's credentials into
/// a ``Caller``.
///
/// Credentials that never change once made (API tokens, server keys) are cached after the first
/// lookup. Web auth tokens are cached for a few seconds at most, so an expiry set by another
/// server instance takes effect promptly.
public final class AccountService: Sendable {
    /// How credentials behave.
    public struct Configuration: Sendable {
        /// How long a web auth token lives, in milliseconds (CloudKit's default: 30 minutes).
        public var webAuthTokenLifetime: Int64 = 30 * 60 * 1000
        /// How long tokens minted by `nimbus user add` live ("keep me signed in": 2 weeks).
        public var adminWebAuthTokenLifetime: Int64 = 14 * 24 * 60 * 60 * 1000
        /// A token is replaced once it is this old (a fraction of its lifetime), and the
        /// replacement goes back in the `X-Apple-CloudKit-Web-Auth-Token` header.
        public var rotationFraction: Double = 0.5
        /// How long a replaced token keeps working once its replacement has been used, for
        /// requests already in flight (ms). Until then it works for its whole life.
        public var rotationGrace: Int64 = 60 * 1000
        /// How far a signed request's date may be from the server's clock (ms).
        public var signatureDateWindow: Int64 = 5 * 60 * 1000

        /// Creates a configuration with the default values.
        public init() {}
    }

    let store: any AccountStore
    let configuration: Configuration
    /// The clock it reads the time from.
    let clock: any NimbusClock
    let logger: Logger
    let mailer: any VerificationMailer
    let cache = Mutex(CredentialCache())

    /// Creates the service.
    /// - Parameter mailer: Delivers address verification codes; `nil` logs them (development).
    public init(
        store: any AccountStore,
        configuration: Configuration = .init(),
        clock: any NimbusClock,
        logger: Logger,
        mailer: (any VerificationMailer)? = nil
    ) {
        self.store = store
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        self.mailer = mailer ?? LogVerificationMailer(logger: logger)
    }

    // MARK: - Administration

    /// What creating a container environment hands out.
    public struct NewContainer: Sendable {
        /// The container environment that was created.
        public var container: ContainerEnvironment
        /// The API token, shown once: only its hash is stored.
        public var apiToken: String
    }

    /// Creates a container environment, its API token and (once per container) its developer user.
    /// - Throws: `.alreadyExists` if it exists.
    public func createContainer(_ container: String, environment: Environment) async throws(NimbusError) -> NewContainer {
        guard !container.isEmpty, container.utf8.count <= 255, !container.contains("/") else {
            throw .badRequest("container identifier must be 1 to 255 characters without '/'")
        }
        let token = Credentials.makeAPIToken()
        let environmentKey = ContainerEnvironment(container: container, environment: environment)
        let developer = UserIdentity(userRecordName: Credentials.makeUserRecordName(), name: "Developer")
        do {
            try await store.createContainer(environmentKey, apiTokenHash: Credentials.hash(token), developer: developer)
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "container \(container) (\(environment.rawValue)) already exists")
        } catch {
            throw internalError(error)
        }
        return NewContainer(container: environmentKey, apiToken: token)
    }

    /// What adding a user hands out.
    public struct NewUser: Sendable {
        /// The user that was added, with their new user record name.
        public var user: UserIdentity
        /// A web auth token for the user, shown once.
        public var webAuthToken: String
    }

    /// Adds a user to a container and signs them in with a long-lived web auth token.
    ///
    /// Other users find them by `email` and `phone` (see ``LookupInfo`` for how they compare).
    /// - Throws: `.unknownItem` if the container does not exist; `.alreadyExists` if another
    ///   user of the container has the same email address or phone number.
    public func addUser(name: String, email: String?, phone: String?, container: String) async throws(NimbusError) -> NewUser {
        try await requireContainer(container)
        let user = UserIdentity(
            userRecordName: Credentials.makeUserRecordName(),
            name: name,
            emailAddress: email.map(LookupInfo.normalizedEmail),
            phoneNumber: phone.map(LookupInfo.normalizedPhone)
        )
        do {
            try await store.addUser(user, toContainer: container)
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "another user of \(container) has this email address or phone number")
        } catch {
            throw internalError(error)
        }
        let token = try await mintWebAuthToken(for: user.userRecordName, container: container, lifetime: configuration.adminWebAuthTokenLifetime)
        return NewUser(user: user, webAuthToken: token)
    }

    /// The container's developer user: who server-to-server keys and the console's changes to
    /// public records act as.
    /// - Throws: `.unknownItem` for a container that does not exist.
    public func developer(ofContainer container: String) async throws(NimbusError) -> String {
        let found: String?
        do {
            found = try await store.developer(ofContainer: container)
        } catch {
            throw internalError(error)
        }
        guard let found else { throw NimbusError(.unknownItem, "no container \(container.prefix(255))") }
        return found
    }

    /// Registers a P-256 public key (SubjectPublicKeyInfo PEM) for server-to-server requests.
    /// Requests signed with it act as the container's developer user. Returns the key ID.
    public func addServerKey(publicKeyPEM: String, container: String) async throws(NimbusError) -> String {
        try await requireContainer(container)
        let der: [UInt8]
        do {
            der = try RequestSignature.publicKeyDER(pem: publicKeyPEM)
        } catch {
            throw .badRequest("not a P-256 public key in PEM form (make one with: openssl ec -in key.pem -pubout)")
        }
        let keyID = Credentials.keyID(ofDER: der)
        do {
            guard let developer = try await store.developer(ofContainer: container) else { throw NimbusError.recordNotFound }
            try await store.addServerKey(
                ServerKeyRecord(keyID: keyID, container: container, publicKeyPEM: publicKeyPEM, userRecordName: developer)
            )
        } catch let error as StoreError where error.kind == .alreadyExists {
            throw NimbusError(.alreadyExists, "this key is registered already as \(keyID)")
        } catch {
            throw internalError(error)
        }
        return keyID
    }

    /// Returns a user of a container.
    public func user(_ userRecordName: String, container: String) async throws(NimbusError) -> UserIdentity {
        let user: UserIdentity?
        do {
            user = try await store.user(named: userRecordName, inContainer: container)
        } catch {
            throw internalError(error)
        }
        guard let user else { throw NimbusError(.unknownItem, "user not found") }
        return user
    }

    // MARK: - Helpers

    /// Mints a token: the first of a new session, or the replacement of `replacing` in its session.
    /// - Parameter device: What the client said it is, for the sessions list (new sessions).
    func mintWebAuthToken(
        for user: String,
        container: String,
        lifetime: Int64,
        replacing: WebAuthTokenRecord? = nil,
        device: String? = nil
    ) async throws(NimbusError) -> String {
        let token = Credentials.makeWebAuthToken()
        let digest = TokenDigest(token: token)
        let issuedAt = clock.millisecondsSince1970
        let record = WebAuthTokenRecord(
            hash: digest.hex,
            container: container,
            userRecordName: user,
            issuedAt: issuedAt,
            expiresAt: issuedAt + lifetime,
            lifetime: lifetime,
            replaces: replacing?.hash,
            sessionID: replacing?.sessionID,
            device: replacing?.device ?? device
        )
        do {
            try await store.addWebAuthToken(record)
        } catch {
            throw internalError(error)
        }
        cache.withLock { $0.webAuthTokens[digest] = CredentialCache.Entry(value: record, cachedAt: issuedAt) }
        return token
    }

    func requireContainer(_ container: String) async throws(NimbusError) {
        do {
            if try await store.developer(ofContainer: container) != nil { return }
        } catch {
            throw internalError(error)
        }
        throw NimbusError(.unknownItem, "container \(container) does not exist; create it with: nimbus container create \(container)")
    }

    func internalError(_ error: any Error) -> NimbusError {
        .fromStore(error, logger: logger)
    }
}

/// Credentials looked up recently, by hash or key ID.
struct CredentialCache: Sendable {
    struct Entry<Value: Sendable>: Sendable {
        var value: Value
        var cachedAt: Int64
    }

    var apiTokens: [TokenDigest: Entry<ContainerEnvironment>] = [:]
    var serverKeys: [String: Entry<ServerKeyRecord>] = [:]
    var webAuthTokens: [TokenDigest: Entry<WebAuthTokenRecord>] = [:]
}
