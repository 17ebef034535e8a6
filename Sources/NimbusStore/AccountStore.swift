//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// Stores containers, users and credentials.
///
/// Secrets are never stored: API tokens and web auth tokens are kept as SHA-256 hashes, and
/// server-to-server keys are public keys.
public protocol AccountStore: ContactStore, SignInStore {
    /// Creates a container environment with its API token and developer user.
    /// - Throws: ``StoreError`` `.alreadyExists` if that container environment exists.
    func createContainer(_ container: ContainerEnvironment, apiTokenHash: String, developer: UserIdentity) async throws

    /// Returns a container environment's settings, or `nil` if there is none.
    func containerEnvironment(container: String, environment: Environment) async throws -> ContainerEnvironment?

    /// Returns the developer user of a container (the acting user of its server-to-server keys).
    func developer(ofContainer container: String) async throws -> String?

    /// Returns the container environment an API token hash belongs to.
    func apiToken(hash: String) async throws -> ContainerEnvironment?

    /// The API tokens of a container environment, oldest first.
    func apiTokens(of environment: ContainerEnvironment) async throws -> [APITokenRecord]

    /// Adds an API token to a container environment.
    func addAPIToken(hash: String, to environment: ContainerEnvironment) async throws

    /// Removes an API token of a container environment; `false` when it has no such token.
    func deleteAPIToken(hash: String, of environment: ContainerEnvironment) async throws -> Bool

    /// Adds a user to a container.
    /// - Throws: ``StoreError`` `.alreadyExists` if the record name is taken.
    func addUser(_ user: UserIdentity, toContainer container: String) async throws

    /// Returns a user of a container, or `nil` if there is none.
    func user(named userRecordName: String, inContainer container: String) async throws -> UserIdentity?

    /// Returns the user of a container with this email address or phone number (compared in
    /// ``LookupInfo``'s normal form) or record name, if there is one.
    func user(matching lookup: LookupInfo, inContainer container: String) async throws -> UserIdentity?

    /// Stores a web auth token's hash.
    func addWebAuthToken(_ token: WebAuthTokenRecord) async throws

    /// Returns a web auth token by its hash.
    func webAuthToken(hash: String) async throws -> WebAuthTokenRecord?

    /// Shortens or extends a web auth token's life.
    func setWebAuthTokenExpiry(hash: String, expiresAt: Int64) async throws

    /// A replacement's first use, in one transaction: the token it replaces ends at
    /// `retiredAt` (or sooner, if it ends sooner), and the replacement no longer names it.
    func retireReplacedWebAuthToken(replacement: String, retiredAt: Int64) async throws

    /// Deletes the web auth tokens, sign-in codes and codes to verify an address that expired
    /// before `cutoff` (milliseconds since 1970), in every container, a batch per transaction;
    /// returns how many went. None can be used once expired, and nothing else reads them.
    func pruneExpiredCredentials(expiredBefore cutoff: Int64) async throws -> Int

    /// Registers a server-to-server public key.
    /// - Throws: ``StoreError`` `.alreadyExists` if the key ID is registered.
    func addServerKey(_ key: ServerKeyRecord) async throws

    /// Returns a registered server-to-server key.
    func serverKey(id keyID: String) async throws -> ServerKeyRecord?

    /// A container's server-to-server keys with when each was registered, oldest first.
    func serverKeys(ofContainer container: String) async throws -> [(key: ServerKeyRecord, createdAt: Int64)]

    /// Removes a container's server-to-server key; whether it was there.
    func deleteServerKey(id keyID: String, ofContainer container: String) async throws -> Bool

    /// Returns a container's settings (all unset if none were saved).
    func containerSettings(_ container: String) async throws -> ContainerSettings

    /// Saves a container's settings.
    func saveContainerSettings(_ settings: ContainerSettings) async throws
}

/// A container in one environment.
public struct ContainerEnvironment: Sendable, Hashable {
    /// The container identifier, such as `iCloud.com.example.App`.
    public var container: String
    /// The environment: development or production.
    public var environment: Environment

    /// Creates a container environment key.
    public init(container: String, environment: Environment) {
        self.container = container
        self.environment = environment
    }
}

/// A stored web auth token: its hash, whose it is, and when it stops working.
public struct WebAuthTokenRecord: Sendable, Hashable {
    /// The token's SHA-256, in hex; the token itself is never stored.
    public var hash: String
    /// The container the token signs in to.
    public var container: String
    /// The user the token signs in.
    public var userRecordName: String
    /// Milliseconds since 1970-01-01 UTC.
    public var issuedAt: Int64
    /// Milliseconds since 1970-01-01 UTC.
    public var expiresAt: Int64
    /// How long a replacement of this token lives, in milliseconds.
    public var lifetime: Int64
    /// For a replacement not used yet: the hash of the token it replaces, which stays valid
    /// until this one is first used.
    public var replaces: String?
    /// The session the token belongs to: the hash of the first token of a sign-in, which its
    /// replacements inherit, so a device's session is one thing to list and end.
    public var sessionID: String
    /// What the client said it is when it signed in (a browser, an app), for the sessions list.
    public var device: String?

    /// Whether the token has been replaced: its life was cut short of the one it was issued with.
    public var isReplaced: Bool { expiresAt < issuedAt + lifetime }

    /// Creates a web auth token record.
    public init(
        hash: String,
        container: String,
        userRecordName: String,
        issuedAt: Int64,
        expiresAt: Int64,
        lifetime: Int64,
        replaces: String? = nil,
        sessionID: String? = nil,
        device: String? = nil
    ) {
        self.hash = hash
        self.container = container
        self.userRecordName = userRecordName
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.lifetime = lifetime
        self.replaces = replaces
        self.sessionID = sessionID ?? hash
        self.device = device
    }
}

/// A registered server-to-server key.
public struct ServerKeyRecord: Sendable, Hashable {
    /// The key ID clients send in `X-Apple-CloudKit-Request-KeyID`: the SHA-256 of the key's DER form, in hex.
    public var keyID: String
    /// The container the key may act on.
    public var container: String
    /// The P-256 public key, SubjectPublicKeyInfo PEM.
    public var publicKeyPEM: String
    /// The user requests signed with this key act as.
    public var userRecordName: String

    /// Creates a server key record.
    public init(keyID: String, container: String, publicKeyPEM: String, userRecordName: String) {
        self.keyID = keyID
        self.container = container
        self.publicKeyPEM = publicKeyPEM
        self.userRecordName = userRecordName
    }
}
