//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Fetches an OpenID Connect provider's public documents: its discovery document and its
/// key set (JWKS).
///
/// The engine does no networking of its own: the server passes one that uses its HTTP client.
/// ``IDTokenVerifier`` asks only for URLs ``isAllowed(_:)`` accepts.
public protocol OpenIDDocumentFetcher: Sendable {
    /// The body of a `GET` of `url`; throws for a failed request or a status other than 200.
    func fetch(_ url: String) async throws -> [UInt8]

    /// The body of a `POST` of an `application/x-www-form-urlencoded` form to `url` (a token
    /// endpoint); throws for a failed request or a status other than 200.
    func post(_ url: String, form: [(String, String)]) async throws -> [UInt8]
}

extension OpenIDDocumentFetcher {
    /// Whether keys may be fetched from `url`: over HTTPS, or over plain HTTP from a loopback
    /// address (development and tests). Anything else could hand an attacker on the network
    /// the keys a forged token is checked with.
    public static func isAllowed(_ url: String) -> Bool {
        OpenIDURLPolicy.isAllowed(url)
    }
}

/// Which URLs an issuer's documents may come from.
public enum OpenIDURLPolicy {
    /// HTTPS anywhere; plain HTTP only to `127.0.0.1`, `[::1]` or `localhost`.
    public static func isAllowed(_ url: String) -> Bool {
        let lowered = url.lowercased()
        if lowered.hasPrefix("https://") { return lowered.count > "https://".count }
        guard lowered.hasPrefix("http://") else { return false }
        let rest = lowered.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else { return false }
        let host: Substring
        if authority.hasPrefix("[") {
            host = authority.prefix { $0 != "]" }.dropFirst()
        } else {
            host = authority.prefix { $0 != ":" }
        }
        return host == "127.0.0.1" || host == "::1" || host == "localhost"
    }
}
