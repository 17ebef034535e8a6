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

    /// The token in use: being signed, or signed.
    private struct Current {
        var signing: Task<String, any Error>
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

    /// The token to send now: the current one, or a new one once it is old. Pushes that ask
    /// at once share one signing: APNs throttles a provider that changes tokens too often.
    func value() async throws -> String {
        let now = ContinuousClock.now
        let signing = current.withLock { current -> Task<String, any Error> in
            if let current, now - current.issuedAt < Self.lifetime { return current.signing }
            let signing = Task { [keys, keyID, teamID] in
                try await keys.sign(
                    Claims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: .now)),
                    kid: JWKIdentifier(string: keyID)
                )
            }
            current = Current(signing: signing, issuedAt: now)
            return signing
        }
        do {
            return try await signing.value
        } catch {
            current.withLock { if $0?.signing == signing { $0 = nil } }
            throw error
        }
    }

    /// Drops `rejected`, which APNs said expired or is invalid, unless a newer token already
    /// replaced it (many pushes in flight report the same token).
    func renew(rejected: String) async {
        guard let signing = current.withLock({ $0?.signing }), (try? await signing.value) == rejected else { return }
        current.withLock { if $0?.signing == signing { $0 = nil } }
    }
}
