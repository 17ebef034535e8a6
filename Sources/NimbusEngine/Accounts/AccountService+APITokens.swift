//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore
import Synchronization

extension AccountService {
    /// A container environment's API tokens, oldest first (their hashes: the tokens were shown
    /// once, when made).
    /// - Throws: `.unknownItem` when the environment does not exist.
    public func apiTokens(of environment: ContainerEnvironment) async throws(NimbusError) -> [APITokenRecord] {
        try await requireExists(environment)
        do {
            return try await store.apiTokens(of: environment)
        } catch {
            throw internalError(error)
        }
    }

    /// Makes another API token for a container environment (to replace one without a gap).
    /// - Returns: the token, shown only now.
    public func createAPIToken(for environment: ContainerEnvironment) async throws(NimbusError) -> String {
        try await requireExists(environment)
        let token = Credentials.makeAPIToken()
        do {
            try await store.addAPIToken(hash: Credentials.hash(token), to: environment)
        } catch {
            throw internalError(error)
        }
        return token
    }

    /// Revokes the API token whose hash starts with `hashPrefix` (at least 12 hex digits):
    /// requests with it fail at once here, and within seconds on other instances.
    /// - Throws: `.unknownItem` when no token of the environment matches, `.badRequest` when
    ///   the prefix is too short or matches more than one.
    public func revokeAPIToken(hashPrefix: String, of environment: ContainerEnvironment) async throws(NimbusError) {
        guard hashPrefix.utf8.count >= 12, hashPrefix.utf8.count <= 64, hashPrefix.allSatisfy(\.isHexDigit) else {
            throw .badRequest("an API token is named by at least 12 hex digits of its hash")
        }
        let matching = try await apiTokens(of: environment).filter { $0.hash.hasPrefix(hashPrefix.lowercased()) }
        guard let token = matching.first else { throw NimbusError(.unknownItem, "no API token \(hashPrefix) in \(environment.container)") }
        guard matching.count == 1 else { throw .badRequest("\(hashPrefix) names more than one API token; give more digits") }
        do {
            _ = try await store.deleteAPIToken(hash: token.hash, of: environment)
        } catch {
            throw internalError(error)
        }
        cache.withLock { cache in cache.apiTokens = cache.apiTokens.filter { $0.key.hex != token.hash } }
    }
}
