//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
import NimbusStore

/// One signed-in device of a user, as the sessions list shows it.
public struct SessionSummary: Sendable, Hashable {
    /// The session's ID, for ending it.
    public var id: String
    /// What the client said it is when it signed in.
    public var device: String?
    /// When its current token was issued, in milliseconds since 1970: about when it was last used.
    public var lastActiveAt: Int64
    /// When it ends unless used, in milliseconds since 1970.
    public var expiresAt: Int64
    /// Whether it is the session of the request that asked.
    public var isCurrent: Bool
}

extension SignInService {
    /// The caller's signed-in devices.
    public func sessions(caller: Caller, webAuthToken: String?) async throws(NimbusError) -> [SessionSummary] {
        let user = try Self.signedIn(caller)
        let current = try await currentSession(webAuthToken, container: caller.container)
        do {
            return try await store.sessions(of: user, inContainer: caller.container).map { token in
                SessionSummary(
                    id: token.sessionID,
                    device: token.device,
                    lastActiveAt: token.issuedAt,
                    expiresAt: token.expiresAt,
                    isCurrent: token.sessionID == current
                )
            }
        } catch {
            throw internalError(error)
        }
    }

    /// Ends one of the caller's sessions, or all of them (`sessionID` `nil`: sign out
    /// everywhere). Returns how many ended; another user's session ID ends nothing.
    public func endSessions(caller: Caller, sessionID: String?) async throws(NimbusError) -> Int {
        let user = try Self.signedIn(caller)
        do {
            let ended = try await store.endSessions(of: user, inContainer: caller.container, sessionID: sessionID)
            accounts.forgetCachedTokens(of: user, container: caller.container)
            return ended
        } catch {
            throw internalError(error)
        }
    }

    /// Signs the caller's own session out (the one its token belongs to).
    public func signOut(caller: Caller, webAuthToken: String?) async throws(NimbusError) {
        _ = try Self.signedIn(caller)
        guard let session = try await currentSession(webAuthToken, container: caller.container) else { return }
        _ = try await endSessions(caller: caller, sessionID: session)
    }

    /// Ends every session of `user` but the one `webAuthToken` belongs to.
    func endOtherSessions(of user: String, keeping webAuthToken: String?, context: SignInContext) async throws {
        let keep = try await currentSession(webAuthToken, container: context.container)
        for session in try await store.sessions(of: user, inContainer: context.container) where session.sessionID != keep {
            _ = try await store.endSessions(of: user, inContainer: context.container, sessionID: session.sessionID)
        }
        accounts.forgetCachedTokens(of: user, container: context.container)
    }

    private func currentSession(_ webAuthToken: String?, container: String) async throws(NimbusError) -> String? {
        guard let webAuthToken else { return nil }
        return try await accounts.liveWebAuthToken(webAuthToken, container: container)?.sessionID
    }
}
