//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore
import Synchronization

/// A caller, and the web auth token the response must hand back (rotated or the same).
public struct Authentication: Sendable {
    /// Who is making the request.
    public var caller: Caller
    /// The token for the `X-Apple-CloudKit-Web-Auth-Token` response header, if a user signed in.
    public var webAuthToken: String?

    /// Creates an authentication result.
    public init(caller: Caller, webAuthToken: String?) {
        self.caller = caller
        self.webAuthToken = webAuthToken
    }
}

extension AccountService {
    /// Authenticates an API-token request, with or without a signed-in user.
    ///
    /// - Throws: `.authenticationFailed` for an unknown API token, one of another container or
    ///   environment, or an unknown or expired web auth token.
    public func authenticate(
        apiToken: String,
        webAuthToken: String?,
        container: String,
        environment: Environment
    ) async throws(NimbusError) -> Authentication {
        let tokenEnvironment = try await apiTokenEnvironment(apiToken)
        guard tokenEnvironment == ContainerEnvironment(container: container, environment: environment) else {
            throw NimbusError(.authenticationFailed, "ckAPIToken is not valid for this container and environment")
        }
        guard let webAuthToken, !webAuthToken.isEmpty else {
            return Authentication(
                caller: Caller(container: container, environment: environment, kind: .anonymous, userRecordName: nil),
                webAuthToken: nil
            )
        }
        let token = Self.restoringPluses(webAuthToken)
        let digest = TokenDigest(token: token)
        let record = try await webAuthTokenRecord(digest)
        let time = clock.millisecondsSince1970
        guard let record, record.container == container, record.expiresAt > time else {
            throw NimbusError(.authenticationFailed, "ckWebAuthToken is not valid or has expired; sign in again")
        }
        let caller = Caller(container: container, environment: environment, kind: .user, userRecordName: record.userRecordName)
        if record.replaces != nil {
            // A replacement's first use: the client has it, so the token it replaces may end.
            try await retireReplacedToken(of: record, digest: digest, at: time)
        }
        // A token that has a replacement is never rotated again: it serves its callers until
        // the replacement is used (then for a grace period) or until its own life ends, so a
        // client that never reads the rotation header keeps working for the token's whole life.
        if record.isReplaced {
            // No header: a client that took the replacement keeps it, not this older token.
            return Authentication(caller: caller, webAuthToken: nil)
        }
        guard Double(time - record.issuedAt) >= Double(record.lifetime) * configuration.rotationFraction else {
            return Authentication(caller: caller, webAuthToken: token)
        }
        let replacement = try await mintWebAuthToken(
            for: record.userRecordName,
            container: container,
            lifetime: record.lifetime,
            replacing: record
        )
        // Marked as replaced (a millisecond off its natural end), not shortened.
        let markedEnd = record.issuedAt + record.lifetime - 1
        if record.expiresAt > markedEnd {
            do {
                try await store.setWebAuthTokenExpiry(hash: record.hash, expiresAt: markedEnd)
            } catch {
                throw internalError(error)
            }
            cache.withLock { $0.webAuthTokens[digest]?.value.expiresAt = markedEnd }
        }
        return Authentication(caller: caller, webAuthToken: replacement)
    }

    /// Ends the token a replacement replaces, a grace period from now (for requests already
    /// in flight with it), and makes the replacement an ordinary token.
    private func retireReplacedToken(of replacement: WebAuthTokenRecord, digest: TokenDigest, at time: Int64) async throws(NimbusError) {
        let retiredAt = time + configuration.rotationGrace
        do {
            try await store.retireReplacedWebAuthToken(replacement: replacement.hash, retiredAt: retiredAt)
        } catch {
            throw internalError(error)
        }
        cache.withLock { cache in
            cache.webAuthTokens[digest]?.value.replaces = nil
            // The replaced token's entry is found by its stored hash: the cache is keyed by digest.
            for (key, entry) in cache.webAuthTokens where entry.value.hash == replacement.replaces {
                cache.webAuthTokens[key]?.value.expiresAt = min(entry.value.expiresAt, retiredAt)
            }
        }
    }

    /// Authenticates a server-to-server request by its signature.
    ///
    /// - Throws: `.authenticationFailed` for an unknown key, a key of another container, a bad
    ///   signature or a date outside the configured window.
    public func authenticate(
        signature: RequestSignature,
        container: String,
        environment: Environment
    ) async throws(NimbusError) -> Caller {
        let failure = NimbusError(.authenticationFailed, "request signature is not valid")
        guard let key = try await serverKey(signature.keyID), key.container == container else { throw failure }
        guard let date = ISO8601Timestamp.milliseconds(from: signature.date),
            abs(date - clock.millisecondsSince1970) <= configuration.signatureDateWindow
        else {
            throw NimbusError(.authenticationFailed, "X-Apple-CloudKit-Request-ISO8601Date is missing or too far from the server's clock")
        }
        guard signature.isValid(publicKeyPEM: key.publicKeyPEM) else { throw failure }
        guard try await environmentExists(ContainerEnvironment(container: container, environment: environment)) else {
            throw NimbusError(.authenticationFailed, "container \(container) has no \(environment.rawValue) environment")
        }
        return Caller(container: container, environment: environment, kind: .serverKey, userRecordName: key.userRecordName, keyID: key.keyID)
    }

    /// The user a web auth token signs in to a container, or `nil` for a missing, unknown or
    /// expired token: for pages a browser opens, where no API token comes along and a bad
    /// token simply means "not signed in".
    public func signedInUser(webAuthToken: String?, container: String) async throws(NimbusError) -> String? {
        guard let webAuthToken, !webAuthToken.isEmpty else { return nil }
        let token = Self.restoringPluses(webAuthToken)
        guard let record = try await webAuthTokenRecord(TokenDigest(token: token)), record.container == container,
            record.expiresAt > clock.millisecondsSince1970
        else { return nil }
        return record.userRecordName
    }

    /// The token with the spaces a form decoder made of its raw '+' turned back (base64 has no
    /// spaces). Looked for by byte: every request asks, and searching a string for a
    /// `Character` walks its grapheme clusters.
    private static func restoringPluses(_ token: String) -> String {
        token.utf8.contains(UInt8(ascii: " ")) ? token.replacing(" ", with: "+") : token
    }

    /// The stored record of a live web auth token of `container`, or `nil` for a missing,
    /// unknown or expired one.
    func liveWebAuthToken(_ webAuthToken: String, container: String) async throws(NimbusError) -> WebAuthTokenRecord? {
        guard !webAuthToken.isEmpty else { return nil }
        let record = try await webAuthTokenRecord(TokenDigest(token: Self.restoringPluses(webAuthToken)))
        guard let record, record.container == container, record.expiresAt > clock.millisecondsSince1970 else { return nil }
        return record
    }

    /// Whether a container environment exists.
    public func exists(_ environment: ContainerEnvironment) async throws(NimbusError) -> Bool {
        try await environmentExists(environment)
    }

    /// Goes on only if a container environment exists.
    /// - Throws: `.unknownItem` naming the container and environment.
    public func requireExists(_ environment: ContainerEnvironment) async throws(NimbusError) {
        guard try await environmentExists(environment) else {
            throw NimbusError(.unknownItem, "container \(environment.container.prefix(255)) has no \(environment.environment.rawValue) environment")
        }
    }

    /// Forgets this instance's cached tokens of a user whose sessions ended, so they stop
    /// working here at once (other instances within the cache's few seconds).
    func forgetCachedTokens(of user: String, container: String) {
        cache.withLock { cache in
            cache.webAuthTokens = cache.webAuthTokens.filter { $0.value.value.userRecordName != user || $0.value.value.container != container }
        }
    }

    // MARK: - Cached lookups

    private func apiTokenEnvironment(_ token: String) async throws(NimbusError) -> ContainerEnvironment {
        let digest = TokenDigest(token: token)
        let time = clock.millisecondsSince1970
        // Kept a few seconds, as web auth tokens are: a token revoked on another instance
        // stops working here within them.
        if let entry = cache.withLock({ $0.apiTokens[digest] }), time - entry.cachedAt < 5_000 { return entry.value }
        let found: ContainerEnvironment?
        do {
            found = try await store.apiToken(hash: digest.hex)
        } catch {
            throw internalError(error)
        }
        guard let found else { throw NimbusError(.authenticationFailed, "ckAPIToken is not valid") }
        cache.withLock { $0.apiTokens[digest] = .init(value: found, cachedAt: time) }
        return found
    }

    private func environmentExists(_ environment: ContainerEnvironment) async throws(NimbusError) -> Bool {
        if cache.withLock({ $0.apiTokens.values.contains { $0.value == environment } }) { return true }
        do {
            return try await store.containerEnvironment(container: environment.container, environment: environment.environment) != nil
        } catch {
            throw internalError(error)
        }
    }

    /// Server keys are cached for a few seconds, as API tokens are: a key revoked on another
    /// instance stops working here within that time.
    private func serverKey(_ keyID: String) async throws(NimbusError) -> ServerKeyRecord? {
        let time = clock.millisecondsSince1970
        if let entry = cache.withLock({ $0.serverKeys[keyID] }), time - entry.cachedAt < 5_000 { return entry.value }
        let found: ServerKeyRecord?
        do {
            found = try await store.serverKey(id: keyID)
        } catch {
            throw internalError(error)
        }
        cache.withLock { $0.serverKeys[keyID] = found.map { .init(value: $0, cachedAt: time) } }
        return found
    }

    /// Web auth tokens are cached for a few seconds: long enough to spare the database under
    /// load, short enough that an expiry set by another instance soon applies here too.
    private func webAuthTokenRecord(_ digest: TokenDigest) async throws(NimbusError) -> WebAuthTokenRecord? {
        let time = clock.millisecondsSince1970
        if let entry = cache.withLock({ $0.webAuthTokens[digest] }), time - entry.cachedAt < 5_000 { return entry.value }
        let found: WebAuthTokenRecord?
        do {
            found = try await store.webAuthToken(hash: digest.hex)
        } catch {
            throw internalError(error)
        }
        cache.withLock { cache in
            if cache.webAuthTokens.count >= 10_000 {
                // Entries older than the cache's lifetime are never served again: dropping them
                // bounds the cache by the tokens seen in the last few seconds.
                cache.webAuthTokens = cache.webAuthTokens.filter { time - $0.value.cachedAt < 5_000 }
            }
            if let found { cache.webAuthTokens[digest] = .init(value: found, cachedAt: time) } else { cache.webAuthTokens[digest] = nil }
        }
        return found
    }
}
