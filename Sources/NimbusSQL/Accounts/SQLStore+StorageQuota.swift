//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore
import Synchronization

/// Per-user storage quotas by container, read at most every ten seconds: every write checks
/// one, and a quota changed through another server instance is seen that much later.
final class StorageQuotaCache: Sendable {
    private struct Entry {
        var quota: Int64?
        var readAt: WallInstant
    }

    static let lifetime = Duration.seconds(10)
    private let entries = Mutex<[String: Entry]>([:])
    private let clock: any NimbusClock

    init(clock: any NimbusClock) {
        self.clock = clock
    }

    func quota(of container: String) -> Int64?? {
        entries.withLock { entries in
            guard let entry = entries[container], entry.readAt.duration(to: clock.now) < Self.lifetime else { return nil }
            return .some(entry.quota)
        }
    }

    func remember(_ quota: Int64?, of container: String) {
        let now = clock.now
        entries.withLock { $0[container] = Entry(quota: quota, readAt: now) }
    }
}

extension SQLStore {
    /// The per-user storage quota of a container, in bytes; `nil` for none.
    func userQuota(of container: String) async throws -> Int64? {
        if let known = quotas.quota(of: container) { return known }
        let rows = try await database.readStatement("SELECT user_quota_bytes FROM container_settings WHERE container = ?", [.text(container)])
        let quota = rows.first?[0].integer
        quotas.remember(quota, of: container)
        return quota
    }

    /// Counts every owner's storage in a container afresh, from the records and assets stored.
    static func recountStorage(of container: String, on connection: any SQLConnection, dialect: SQLDialect) async throws {
        try await connection.execute("DELETE FROM storage_usage WHERE container = ?", [.text(container)])
        try await connection.execute(
            """
            INSERT INTO storage_usage (container, environment, owner, bytes)
            SELECT container, environment, owner, SUM(bytes) FROM (
                SELECT container, environment, owner, \(dialect.recordSize) AS bytes FROM records WHERE container = ? AND is_deleted = 0
                UNION ALL
                SELECT container, environment, owner, size AS bytes FROM assets WHERE container = ?) stored
            GROUP BY container, environment, owner
            """,
            [.text(container), .text(container)]
        )
    }

    /// The bytes an owner's live records take in a container environment (their private
    /// database, shared records included), as counted while the container has a quota.
    public func storageUsed(by owner: String, in container: ContainerEnvironment) async throws -> Int64 {
        let rows = try await database.readStatement(
            "SELECT bytes FROM storage_usage WHERE container = ? AND environment = ? AND owner = ?",
            [.text(container.container), .text(container.environment.rawValue), .text(owner)]
        )
        return rows.first?.int(0) ?? 0
    }
}
