//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import JWTKit
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The provider token that authorises pushes: a JWT signed with the team's key (ES256), with
/// the key's ID in its header and the team as issuer.
///
/// APNs refuses a token older than an hour and throttles a provider that makes new ones more
/// often than every twenty minutes, so one token serves for fifty minutes, or until APNs says
/// it expired.
final class ProviderToken: Sendable {
    private struct Claims: JWTPayload {
        var iss: IssuerClaim
        var iat: IssuedAtClaim

        func verify(using algorithm: some JWTAlgorithm) throws {}
    }

    private struct Current {
        var token: String
        var issuedAt: ContinuousClock.Instant
    }

    private let keys: JWTKeyCollection
    private let keyID: String
    private let teamID: String
    private let current = Mutex<Current?>(nil)

    /// How long one token is used.
    static let lifetime = Duration.seconds(50 * 60)

    /// Reads the key; throws if it is not a P-256 private key in PEM.
    init(keyPEM: String, keyID: String, teamID: String) async throws {
        let key = try ES256PrivateKey(pem: keyPEM)
        keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        self.keyID = keyID
        self.teamID = teamID
    }

    /// The token to send now: the current one, or a new one once it is old.
    func value() async throws -> String {
        let now = ContinuousClock.now
        if let current = current.withLock({ $0 }), now - current.issuedAt < Self.lifetime { return current.token }
        let token = try await keys.sign(Claims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: .now)), kid: JWKIdentifier(string: keyID))
        current.withLock { $0 = Current(token: token, issuedAt: now) }
        return token
    }

    /// Drops the current token: APNs said it expired or is invalid.
    func renew() {
        current.withLock { $0 = nil }
    }
}
