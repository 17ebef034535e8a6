//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore

/// The signed-in user's own account, as they see it.
public struct AccountSummary: Sendable, Hashable {
    /// Who they are.
    public var account: UserAccount
    /// How they sign in: `email`, `anonymous`, or a provider's issuer.
    public var providers: [String]
}

extension SignInService {
    /// The caller's account: name, address, whether others find them, how they sign in.
    public func account(caller: Caller) async throws(NimbusError) -> AccountSummary {
        let user = try Self.signedIn(caller)
        do {
            guard let account = try await store.account(of: user, inContainer: caller.container) else {
                throw NimbusError(.authenticationFailed, "the account no longer exists")
            }
            let providers = try await store.identities(of: user, inContainer: caller.container).map(\.provider)
            return AccountSummary(account: account, providers: providers)
        } catch let error as NimbusError {
            throw error
        } catch {
            throw internalError(error)
        }
    }

    /// Changes the caller's name (`users/current` shows it at once) and whether others find them
    /// by their addresses (`users/lookup/email`, `users/discover`).
    public func updateAccount(caller: Caller, name: String?, discoverable: Bool?) async throws(NimbusError) -> AccountSummary {
        let user = try Self.signedIn(caller)
        let name = try name.map { name throws(NimbusError) -> String in try validName(name) }
        do {
            if let name { _ = try await store.rename(user: user, to: name, inContainer: caller.container) }
            if let discoverable { _ = try await store.setDiscoverable(discoverable, user: user, inContainer: caller.container) }
        } catch {
            throw internalError(error)
        }
        return try await account(caller: caller)
    }
}
