//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel
public import NimbusStore
import Synchronization

extension AccountService {
    /// A container's server-to-server keys, oldest first, with when each was registered.
    /// - Throws: `.unknownItem` for a container that does not exist.
    public func serverKeys(ofContainer container: String) async throws(NimbusError) -> [(key: ServerKeyRecord, createdAt: Int64)] {
        try await requireContainer(container)
        do {
            return try await store.serverKeys(ofContainer: container)
        } catch {
            throw internalError(error)
        }
    }

    /// Revokes a container's server-to-server key: requests signed with it fail at once on
    /// this instance, and within five seconds on others (their cache).
    /// - Throws: `.unknownItem` when the container has no such key.
    public func revokeServerKey(id keyID: String, ofContainer container: String) async throws(NimbusError) {
        let removed: Bool
        do {
            removed = try await store.deleteServerKey(id: keyID, ofContainer: container)
        } catch {
            throw internalError(error)
        }
        guard removed else { throw NimbusError(.unknownItem, "no server-to-server key \(keyID.prefix(64)) in \(container.prefix(255))") }
        cache.withLock { $0.serverKeys[keyID] = nil }
    }
}
