//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import JWTKit
import Logging
public import NimbusModel
public import NimbusStore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The claims of a Sign in with Apple server-to-server notification: a JWT Apple signs with the
/// keys of its ID tokens, whose `events` claim is itself a JSON string.
struct AppleNotificationClaims: JWTIdentityToken {
    var issuer: IssuerClaim
    var audience: AudienceClaim
    var issuedAt: IssuedAtClaim
    var id: IDClaim
    var events: String

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case audience = "aud"
        case issuedAt = "iat"
        case id = "jti"
        case events
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}

    /// The event the `events` string describes.
    struct Event: Decodable {
        var type: String
        var sub: String
    }
}

/// What a Sign in with Apple notification did.
public enum AppleNotificationOutcome: Sendable, Hashable {
    /// The person withdrew the app's consent: their sessions ended.
    case sessionsEnded(Int)
    /// The person deleted their Apple account: their sessions ended and the Apple account no
    /// longer signs in to theirs.
    case unlinked(sessionsEnded: Int)
    /// An event Nimbus takes no action on (`email-disabled`, `email-enabled`), or a person who
    /// never signed in here.
    case ignored
}

extension SignInService {
    /// How old a notification may be, in milliseconds: Apple retries a notification it could not
    /// deliver, but not for days.
    static let appleNotificationAge: Int64 = 24 * 60 * 60 * 1000

    /// Handles a Sign in with Apple server-to-server notification (`{"payload": JWT}`) sent to a
    /// provider of kind `apple`: a withdrawn consent ends the person's sessions; a deleted Apple
    /// account also unlinks it from theirs. Each notification (its `jti`) counts once.
    /// - Throws: `.badRequest` for an unknown provider or a provider of another kind;
    ///   `.authenticationFailed` for a payload that does not verify, is too old, or was seen.
    public func handleAppleNotification(payload: String?, provider name: String, in environment: ContainerEnvironment) async throws(NimbusError)
        -> AppleNotificationOutcome
    {
        guard let payload, !payload.isEmpty, payload.utf8.count <= 16 * 1024 else { throw .badRequest("payload is required") }
        let settings = try await settings(environment)
        guard let provider = settings.provider(named: name), provider.kind == .apple else {
            throw .badRequest("provider \(name) is not a Sign in with Apple provider of this container environment")
        }
        let claims = try await verifier.verifiedClaims(payload, as: AppleNotificationClaims.self, provider: provider)
        guard claims.issuer.value == provider.issuer else { throw IDTokenVerifier.rejected("the notification was issued by another issuer") }
        let issuedAt = Int64(claims.issuedAt.value.timeIntervalSince1970 * 1000)
        let now = clock.millisecondsSince1970
        guard issuedAt <= now + 60_000, now - issuedAt <= Self.appleNotificationAge else {
            throw IDTokenVerifier.rejected("the notification is too old, or from the future")
        }
        guard let event = try? JSONDecoder().decode(AppleNotificationClaims.Event.self, from: Data(claims.events.utf8)) else {
            throw .badRequest("the notification's events claim is not an event")
        }
        do {
            guard
                try await store.claimNonce(
                    Credentials.hash("\(provider.issuer)|jti|\(claims.id.value)"),
                    expiresAt: issuedAt + Self.appleNotificationAge
                )
            else { throw IDTokenVerifier.rejected("the notification was handled before") }
            guard event.type == "consent-revoked" || event.type == "account-delete",
                let identity = try await store.identity(provider: provider.issuer, subject: event.sub, inContainer: environment.container)
            else { return .ignored }
            let ended = try await store.endSessions(of: identity.userRecordName, inContainer: environment.container, sessionID: nil)
            accounts.forgetCachedTokens(of: identity.userRecordName, container: environment.container)
            logger.notice(
                "Sign in with Apple: \(event.type)",
                metadata: [LogKey.container: "\(environment.container)", LogKey.user: "\(identity.userRecordName)"]
            )
            if event.type == "account-delete" {
                _ = try await store.deleteIdentity(provider: provider.issuer, subject: event.sub, inContainer: environment.container)
                return .unlinked(sessionsEnded: ended)
            }
            return .sessionsEnded(ended)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }
}
