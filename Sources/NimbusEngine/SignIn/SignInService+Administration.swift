//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

extension SignInService {
    /// A container's users, oldest first, those whose name or email address contains `search`.
    public func users(inContainer container: String, search: String?, limit: Int = 100) async throws(NimbusError) -> [UserAccount] {
        do {
            return try await store.accounts(inContainer: container, search: search, limit: min(max(limit, 1), 1000))
        } catch {
            throw internalError(error)
        }
    }

    /// Disables a user (every session ends, and they cannot sign in) or enables them again.
    /// - Throws: `.unknownItem` for no such user (developers cannot be disabled).
    public func setDisabled(_ disabled: Bool, user: String, container: String) async throws(NimbusError) {
        let found: Bool
        do {
            found = try await store.setDisabled(disabled, user: user, inContainer: container)
        } catch {
            throw internalError(error)
        }
        guard found else { throw NimbusError(.unknownItem, "no user \(user) in \(container)") }
        accounts.forgetCachedTokens(of: user, container: container)
    }

    /// A new long-lived web auth token for a user, as `nimbus user add` gives: for a token that
    /// was lost (the server keeps only hashes, so it cannot show the old one).
    /// - Throws: `.unknownItem` for no such user; `.permissionFailure` for a disabled one.
    public func newWebAuthToken(for user: String, container: String) async throws(NimbusError) -> String {
        let account: UserAccount?
        do {
            account = try await store.account(of: user, inContainer: container)
        } catch {
            throw internalError(error)
        }
        guard let account else { throw NimbusError(.unknownItem, "no user \(user) in \(container)") }
        guard !account.isDisabled else {
            throw NimbusError(.permissionFailure, "user \(user) is disabled; enable them first: nimbus user enable \(user) --container \(container)")
        }
        return try await accounts.mintWebAuthToken(
            for: user,
            container: container,
            lifetime: accounts.configuration.adminWebAuthTokenLifetime
        )
    }

    /// Ends every session of a user; returns how many ended.
    public func revokeSessions(of user: String, container: String) async throws(NimbusError) -> Int {
        do {
            let ended = try await store.endSessions(of: user, inContainer: container, sessionID: nil)
            accounts.forgetCachedTokens(of: user, container: container)
            return ended
        } catch {
            throw internalError(error)
        }
    }
}
