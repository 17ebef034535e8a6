//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
public import NimbusStore

extension SQLStore: AssetStore {
    private static let assetColumns = "asset_id, container, environment, owner, size, checksum, wrapped_key, content_type, file_name, created_at"

    public func saveAsset(_ asset: StoredAsset) async throws {
        // The public database has no per-user quota.
        let quota = asset.tenant.isPublic ? nil : try await userQuota(of: asset.tenant.container)
        try await database.write { connection in
            if let quota {
                let rows = try await connection.query(
                    """
                    INSERT INTO storage_usage (container, environment, owner, bytes) VALUES (?, ?, ?, ?)
                    ON CONFLICT (container, environment, owner) DO UPDATE SET bytes = storage_usage.bytes + excluded.bytes
                    RETURNING bytes
                    """,
                    Self.ownerBinds(asset.tenant) + [.integer(asset.size)]
                )
                if let used = rows.first?.int(0), used > quota { throw StoreError(.quotaExceeded, detail: "\(used) of \(quota) bytes") }
            }
            try await connection.execute(
                "INSERT INTO assets (\(Self.assetColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    .text(asset.id), .text(asset.tenant.container), .text(asset.tenant.environment.rawValue), .text(asset.tenant.owner),
                    .integer(asset.size), .text(asset.checksum), .blob(asset.wrappedKey),
                    asset.contentType.map { .text($0) } ?? .null, asset.fileName.map { .text($0) } ?? .null, .integer(asset.createdAt),
                ]
            )
        }
    }

    public func uploadAllowance(for tenant: Tenant) async throws -> AssetAllowance {
        let maximum = try await database.readStatement(
            "SELECT max_asset_bytes FROM container_settings WHERE container = ?",
            [.text(tenant.container)]
        ).first?[0].integer
        guard !tenant.isPublic, let quota = try await userQuota(of: tenant.container) else {
            return AssetAllowance(maximumSize: maximum, room: nil)
        }
        let used =
            try await database.readStatement(
                "SELECT bytes FROM storage_usage WHERE container = ? AND environment = ? AND owner = ?",
                Self.ownerBinds(tenant)
            ).first?.int(0) ?? 0
        return AssetAllowance(maximumSize: maximum, room: Swift.max(0, quota - used))
    }

    public func asset(id: String) async throws -> StoredAsset? {
        let rows = try await database.readStatement("SELECT \(Self.assetColumns) FROM assets WHERE asset_id = ?", [.text(id)])
        return rows.first.flatMap(Self.storedAsset)
    }

    public func collectUnreferencedAssets(uploadedBefore cutoff: Int64, limit: Int) async throws -> [StoredAsset] {
        // One statement: a reference written after it started keeps its asset (a record save
        // refers to an asset only through a receipt, which expires long before the cutoff).
        let rows = try await database.write { connection in
            let deleted = try await connection.query(
                """
                DELETE FROM assets WHERE asset_id IN (
                    SELECT asset_id FROM assets a WHERE a.created_at < ?
                      AND NOT EXISTS (SELECT 1 FROM record_assets r WHERE r.asset_id = a.asset_id)
                    ORDER BY a.created_at LIMIT ?)
                RETURNING \(Self.assetColumns)
                """,
                [.integer(cutoff), .integer(Int64(limit))]
            )
            // Given back where they were counted (storage is counted only under a quota).
            for row in deleted {
                try await connection.execute(
                    "UPDATE storage_usage SET bytes = bytes - ? WHERE container = ? AND environment = ? AND owner = ?",
                    [.integer(row.int(4)), .text(row.string(1)), .text(row.string(2)), .text(row.string(3))]
                )
            }
            return deleted
        }
        return rows.compactMap(Self.storedAsset)
    }

    private static func ownerBinds(_ tenant: Tenant) -> [SQLValue] {
        [.text(tenant.container), .text(tenant.environment.rawValue), .text(tenant.owner)]
    }

    private static func storedAsset(_ row: SQLRow) -> StoredAsset? {
        guard let environment = Environment(rawValue: row.string(2)) else { return nil }
        return StoredAsset(
            id: row.string(0),
            tenant: Tenant(container: row.string(1), environment: environment, owner: row.string(3)),
            size: row.int(4),
            checksum: row.string(5),
            wrappedKey: row[6].blob ?? [],
            contentType: row[7].text,
            fileName: row[8].text,
            createdAt: row.int(9)
        )
    }
}
