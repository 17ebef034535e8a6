//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import JWTKit
public import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Checks ID tokens from OpenID Connect providers: signature against the issuer's published
/// keys, issuer, audience, expiry and nonce.
///
/// Keys come from the issuer's discovery document (`{issuer}/.well-known/openid-configuration`,
/// its `jwks_uri`) and are cached. A token signed with a key the cache does not know makes it
/// fetch the set again (a provider rotated its keys), at most once per ``refreshInterval``, so
/// forged key IDs cannot make the server hammer a provider.
public actor IDTokenVerifier {
    /// What a verified token says about the person.
    public struct Identity: Sendable, Hashable {
        /// The issuer (`iss`).
        public var issuer: String
        /// The person's stable ID at the issuer (`sub`).
        public var subject: String
        /// The email address, if the token carries one the provider says is verified.
        public var verifiedEmail: String?
        /// The name the token gives, if any.
        public var name: String?
        /// When the token expires, in milliseconds since 1970.
        public var expiresAt: Int64
    }

    /// The nonces a token may carry for the one the client sent.
    public enum NonceMatch: Sendable {
        /// The token carries the nonce as sent.
        case exact
        /// The token carries the nonce's SHA-256 in hex (Sign in with Apple's native flow), or
        /// the nonce as sent (its web flow).
        case exactOrSHA256
    }

    private struct IssuerKeys {
        var keys: JWTKeyCollection
        var kids: Set<String>
        var fetchedAt: Int64
    }

    private let fetcher: any OpenIDDocumentFetcher
    private let clock: any NimbusClock
    private var cache: [String: IssuerKeys] = [:]
    /// How long a key set is used before it is fetched again, in milliseconds.
    let maximumAge: Int64 = 60 * 60 * 1000
    /// The least time between two fetches of one issuer's keys, in milliseconds.
    let refreshInterval: Int64 = 30 * 1000
    /// How far a token's times may be off the server's clock, in milliseconds.
    let leeway: Int64 = 60 * 1000

    /// Creates a verifier that fetches keys with `fetcher`.
    public init(fetcher: any OpenIDDocumentFetcher, clock: any NimbusClock) {
        self.fetcher = fetcher
        self.clock = clock
    }

    /// Verifies `token` as an ID token of `provider` for the sign-in that sent `nonce`.
    /// - Throws: `.authenticationFailed` with the reason for a token that does not hold;
    ///   `.serviceUnavailable` when the provider's keys cannot be fetched.
    public func verify(_ token: String, provider: SignInProvider, nonce: String, match: NonceMatch) async throws(NimbusError) -> Identity {
        let claims = try await verifiedClaims(token, as: IDTokenClaims.self, provider: provider)
        guard claims.issuer.value == provider.issuer else { throw Self.rejected("the token was issued by another issuer") }
        let now = clock.millisecondsSince1970
        let expiresAt = Int64(claims.expiration.value.timeIntervalSince1970 * 1000)
        guard expiresAt + leeway > now else { throw Self.rejected("the token has expired") }
        if let issuedAt = claims.issuedAt, Int64(issuedAt.value.timeIntervalSince1970 * 1000) > now + leeway {
            throw Self.rejected("the token was issued in the future")
        }
        guard let carried = claims.nonce, Self.nonce(carried, matches: nonce, match) else {
            throw Self.rejected("the token's nonce does not match the one sent")
        }
        let verifiedEmail = claims.emailVerified?.value == true ? claims.email.map(LookupInfo.normalizedEmail) : nil
        let name =
            claims.name
            ?? [claims.givenName, claims.familyName].compactMap { $0 }.joined(separator: " ").nilIfEmpty
        return Identity(issuer: provider.issuer, subject: claims.subject.value, verifiedEmail: verifiedEmail, name: name, expiresAt: expiresAt)
    }

    /// Verifies a token's signature against the provider's published keys and its audience
    /// against the provider's client IDs, and decodes its claims.
    func verifiedClaims<Claims: JWTIdentityToken>(_ token: String, as: Claims.Type, provider: SignInProvider) async throws(NimbusError) -> Claims {
        let header = try Self.header(of: token)
        guard header.alg == "RS256" || header.alg == "ES256" else {
            throw Self.rejected("the token is signed with \(header.alg ?? "no algorithm"); RS256 and ES256 are accepted")
        }
        guard let kid = header.kid, !kid.isEmpty else { throw Self.rejected("the token names no signing key (kid)") }
        let keys = try await keys(of: provider.issuer, knowing: kid)
        do {
            return try await keys.verify(token, as: Claims.self, expectedAudiences: provider.clientIDs)
        } catch {
            throw Self.rejected("the token's signature or audience is not valid for provider \(provider.name)")
        }
    }

    // MARK: - Keys

    private func keys(of issuer: String, knowing kid: String) async throws(NimbusError) -> JWTKeyCollection {
        let now = clock.millisecondsSince1970
        if let cached = cache[issuer] {
            let fresh = now - cached.fetchedAt < maximumAge
            if fresh && cached.kids.contains(kid) { return cached.keys }
            // An unknown key: the provider may have rotated. Not more often than the interval.
            if now - cached.fetchedAt < refreshInterval {
                guard cached.kids.contains(kid) else { throw Self.rejected("the token is signed with a key the issuer does not publish") }
                return cached.keys
            }
        }
        let fetched = try await fetchKeys(of: issuer)
        cache[issuer] = IssuerKeys(keys: fetched.keys, kids: fetched.kids, fetchedAt: now)
        guard fetched.kids.contains(kid) else { throw Self.rejected("the token is signed with a key the issuer does not publish") }
        return fetched.keys
    }

    private struct Discovery: Decodable {
        var issuer: String
        var jwks_uri: String
        var authorization_endpoint: String?
        var token_endpoint: String?
    }

    /// Where a provider's browser sign-in goes: its authorization and token endpoints, from its
    /// discovery document (fetched again after ``maximumAge``).
    /// - Throws: `.serviceUnavailable` when the document cannot be fetched or lacks them.
    public func endpoints(of issuer: String) async throws(NimbusError) -> (authorization: String, token: String) {
        let now = clock.millisecondsSince1970
        if let cached = endpointCache[issuer], now - cached.fetchedAt < maximumAge { return (cached.authorization, cached.token) }
        let discovery = try await discover(issuer)
        guard let authorization = discovery.authorization_endpoint, let token = discovery.token_endpoint,
            OpenIDURLPolicy.isAllowed(authorization), OpenIDURLPolicy.isAllowed(token)
        else {
            throw NimbusError(.serviceUnavailable, "the provider's discovery document names no usable authorization and token endpoints")
        }
        endpointCache[issuer] = (authorization, token, now)
        return (authorization, token)
    }

    private var endpointCache: [String: (authorization: String, token: String, fetchedAt: Int64)] = [:]

    /// Posts a form to a provider's endpoint (its token endpoint), through the fetcher.
    func post(_ url: String, form: [(String, String)]) async throws -> [UInt8] {
        try await fetcher.post(url, form: form)
    }

    private func discover(_ issuer: String) async throws(NimbusError) -> Discovery {
        let base = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let discoveryURL = base + "/.well-known/openid-configuration"
        guard OpenIDURLPolicy.isAllowed(discoveryURL) else {
            throw Self.rejected("the provider's issuer must be an https URL (plain http only on loopback)")
        }
        let discovery: Discovery
        do {
            discovery = try JSONDecoder().decode(Discovery.self, from: Data(try await fetcher.fetch(discoveryURL)))
        } catch {
            throw NimbusError(.serviceUnavailable, "the provider's discovery document could not be fetched; try again", retryAfter: .seconds(5))
        }
        guard discovery.issuer == issuer else {
            throw NimbusError(.serviceUnavailable, "the provider's discovery document names another issuer")
        }
        return discovery
    }

    private struct KeySetIDs: Decodable {
        struct Key: Decodable { var kid: String? }
        var keys: [Key]
    }

    private func fetchKeys(of issuer: String) async throws(NimbusError) -> (keys: JWTKeyCollection, kids: Set<String>) {
        let discovery = try await discover(issuer)
        guard OpenIDURLPolicy.isAllowed(discovery.jwks_uri) else {
            throw NimbusError(.serviceUnavailable, "the provider's discovery document names an unusable jwks_uri")
        }
        do {
            let body = try await fetcher.fetch(discovery.jwks_uri)
            let json = String(decoding: body, as: UTF8.self)
            let kids = Set(try JSONDecoder().decode(KeySetIDs.self, from: Data(body)).keys.compactMap(\.kid))
            let keys = try await JWTKeyCollection().add(jwksJSON: json)
            return (keys, kids)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw NimbusError(.serviceUnavailable, "the provider's keys could not be fetched; try again", retryAfter: .seconds(5))
        }
    }

    // MARK: - Helpers

    private struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    private static func header(of token: String) throws(NimbusError) -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: data)
        else {
            throw rejected("idToken is not a JSON web token")
        }
        return header
    }

    private static func nonce(_ carried: String, matches sent: String, _ match: NonceMatch) -> Bool {
        guard !sent.isEmpty else { return false }
        if carried == sent { return true }
        guard case .exactOrSHA256 = match else { return false }
        return carried.lowercased() == Credentials.hash(sent)
    }

    static func rejected(_ reason: String) -> NimbusError {
        NimbusError(.authenticationFailed, "idToken rejected: \(reason)")
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
