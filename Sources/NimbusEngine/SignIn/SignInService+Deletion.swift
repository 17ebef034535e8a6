//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
public import NimbusModel
import NimbusStore

/// What deleting an account removed.
public struct AccountDeletion: Sendable, Hashable {
    /// Custom zones deleted, in every environment (their shares ended for every participant).
    public var zonesDeleted: Int
    /// Others' shares the user left.
    public var sharesLeft: Int
}

extension SignInService {
    /// Deletes the signed-in caller's account: they leave the shares they accepted, their zones
    /// and the shares in them are deleted (participants lose access, as when an owner unshares),
    /// then their records, subscriptions, inbox, devices, addresses, ways to sign in and sessions
    /// go, and the account with them. Records they wrote to the public database stay: they are
    /// the app's.
    ///
    /// Decision: invitations to the user not yet accepted stay in their owners' shares, as any
    /// invitation nobody answers; the owner sees them and may remove them.
    public func deleteAccount(caller: Caller, database: DatabaseService) async throws(NimbusError) -> AccountDeletion {
        let user = try Self.signedIn(caller)
        let deletion = try await delete(user, container: caller.container, database: database)
        logger.notice("Account deleted by its user", metadata: [LogKey.container: "\(caller.container)", LogKey.user: "\(user)"])
        return deletion
    }

    /// Deletes a user's account as ``deleteAccount(caller:database:)`` does, for an operator
    /// (`nimbus user delete`).
    /// - Throws: `.unknownItem` for no such user.
    public func deleteUser(_ user: String, container: String, database: DatabaseService) async throws(NimbusError) -> AccountDeletion {
        let account: UserAccount?
        do {
            account = try await store.account(of: user, inContainer: container)
        } catch {
            throw internalError(error)
        }
        guard account != nil else { throw NimbusError(.unknownItem, "no user \(user) in \(container)") }
        let deletion = try await delete(user, container: container, database: database)
        logger.notice("Account deleted by an operator", metadata: [LogKey.container: "\(container)", LogKey.user: "\(user)"])
        return deletion
    }

    private func delete(_ user: String, container: String, database: DatabaseService) async throws(NimbusError) -> AccountDeletion {
        var deletion = AccountDeletion(zonesDeleted: 0, sharesLeft: 0)
        for environment in [Environment.development, .production] {
            let target = ContainerEnvironment(container: container, environment: environment)
            guard try await accounts.exists(target) else { continue }
            let removed = try await database.removeSharedData(of: user, container: container, environment: environment)
            deletion.zonesDeleted += removed.zonesDeleted
            deletion.sharesLeft += removed.sharesLeft
        }
        do {
            _ = try await store.deleteUser(user, inContainer: container)
        } catch {
            throw internalError(error)
        }
        accounts.forgetCachedTokens(of: user, container: container)
        return deletion
    }
}
