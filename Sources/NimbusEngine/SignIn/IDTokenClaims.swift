//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import JWTKit

/// The claims of an OpenID Connect ID token that signing in reads.
///
/// Expiry, issuer and nonce are checked by ``IDTokenVerifier`` against the server's clock,
/// not here: `verify(using:)` checks only what the token's own shape requires.
struct IDTokenClaims: JWTIdentityToken {
    var issuer: IssuerClaim
    var subject: SubjectClaim
    var audience: AudienceClaim
    var expiration: ExpirationClaim
    var issuedAt: IssuedAtClaim?
    var nonce: String?
    var email: String?
    /// Apple sends it as the string `"true"`, others as a boolean; ``BoolClaim`` takes both.
    var emailVerified: BoolClaim?
    var name: String?
    var givenName: String?
    var familyName: String?
    /// Apple's mark of a private relay address.
    var isPrivateEmail: BoolClaim?

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case expiration = "exp"
        case issuedAt = "iat"
        case nonce
        case email
        case emailVerified = "email_verified"
        case name
        case givenName = "given_name"
        case familyName = "family_name"
        case isPrivateEmail = "is_private_email"
    }

    func verify(using algorithm: some JWTAlgorithm) throws {
        guard !subject.value.isEmpty else {
            throw JWTError.claimVerificationFailure(failedClaim: subject, reason: "the token names no subject")
        }
    }
}
